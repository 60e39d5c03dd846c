/**
 * report.md and report.json from the folded state: a winner chosen in the compare view, and
 * costs no agent reported ("–", never "$0").
 */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/events.js';
import { foldEvents } from '../../src/engine/run-state.js';
import { buildJsonReport, renderMarkdownReport } from '../../src/report/report.js';
import { finishedRun, winnerChosen } from '../ui/scripted-runs.js';

const choice = winnerChosen();

/** c2 a command agent (it reports no cost), c3 tokens of a model without a price. */
function unpriced(): RunEvent[] {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return finishedRun().map((e): RunEvent => {
    if (e.type === 'run.started') return { ...e, candidates: e.candidates.map((c) => (c.id === 'c2' ? { ...c, provider: 'command' } : c.id === 'c3' ? { ...c, provider: 'codex' } : c)) };
    if (e.type === 'provider.finished' && e.candidate !== 'c1') return { ...e, costUsd: 0, usage: e.candidate === 'c2' ? zero : e.usage };
    return e;
  });
}

describe('a winner chosen in the compare view', () => {
  it('is the winner of both reports, "chosen by you in the compare view, instead of c1"', () => {
    const state = foldEvents([...finishedRun(), choice]);
    const md = renderMarkdownReport(state);
    expect(md).toContain('- winner: **c2** (hasty) — chosen by you in the compare view, instead of c1\n');
    expect(md).toContain(`- merge (squash): done — ${choice.message}\n`);
    expect(md).toContain('- status: **winner** — c2 (hasty) chosen by you in the compare view, instead of c1;');
    const json = buildJsonReport(state);
    expect([json.winner, json.winnerNote]).toEqual(['c2', 'chosen by you in the compare view, instead of c1']);
    expect(json.chosen).toMatchObject({ candidate: 'c2', previous: 'c1', by: 'user', ok: true });
  });

  it('whose merge failed is reported as such, beside the winner that stays', () => {
    const state = foldEvents([...finishedRun(), { ...choice, ok: false, commit: undefined, message: 'the checkout has uncommitted changes; nothing was merged' }]);
    const md = renderMarkdownReport(state);
    expect(md).toContain('- winner: **c1** (thorough)\n');
    expect(md).toContain('- chosen by you in the compare view: **c2** (hasty), but its merge (squash) was not done — the checkout has uncommitted changes; nothing was merged; the winner is still c1\n');
    expect(buildJsonReport(state).winnerNote).toBeNull();
  });

  it('is not mentioned in a run where nobody chose', () => {
    const state = foldEvents(finishedRun());
    expect(renderMarkdownReport(state)).toContain('- winner: **c1** (thorough)\n');
    expect(renderMarkdownReport(state)).not.toContain('compare view');
    expect(buildJsonReport(state)).toMatchObject({ winnerNote: null, chosen: null });
  });
});

describe('costs no agent reported', () => {
  it('read "–" in report.md, with what that means, and costKnown: false in report.json', () => {
    const state = foldEvents(unpriced());
    const md = renderMarkdownReport(state);
    expect(md).toContain('- duration: 6.1s, cost: $0.0100+\n');
    expect(md).toMatch(/^\| 1 \| c1 thorough \| 100\/100 \| \$0\.0100 \|/m);
    expect(md).toMatch(/^\| 2 \| c2 hasty \| 40\/100 \| – \|/m);
    expect(md).toMatch(/^\| 3 \| c3 gamer \| 0\/100 \| – \|/m);
    expect(md).toContain('cost "–": the agent reported no cost (a command agent, or tokens of a model without a price in configs/prices.toml)');
    const json = buildJsonReport(state) as { costKnown: boolean; candidates: { id: string; costKnown: boolean }[] };
    expect(json.costKnown).toBe(false);
    expect(json.candidates.map((c) => [c.id, c.costKnown])).toEqual([['c1', true], ['c2', false], ['c3', false]]);
  });

  it('leave a run whose agents all reported their cost as it was', () => {
    const md = renderMarkdownReport(foldEvents(finishedRun()));
    expect(md).toContain('cost: $0.0300\n');
    expect(md).not.toContain('–:');
    expect(md).not.toContain('reported no cost');
  });
});
