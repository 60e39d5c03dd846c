/**
 * report.md and report.json from the folded state: a winner chosen in the compare view, and
 * costs no agent reported ("–", never "$0").
 */
import { failureExcerpt } from '../../src/checks/failure-excerpt.js';
import type { CheckOutcome } from '../../src/checks/run-checks.js';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { buildJsonReport, renderMarkdownReport } from '../../src/report/report.js';
import { renderRunHtml } from '../../src/report/html/run-html.js';
import { ok } from '../../src/result.js';
import { finishedRun, winnerChosen } from '../ui/scripted-runs.js';

const choice = winnerChosen();

/** c2 a command agent (it reports no cost), c3 tokens of a model without a price. */
function unpriced(): RunEvent[] {
  const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  return finishedRun().map((e): RunEvent => {
    if (e.type === 'run.started')
      return { ...e, candidates: e.candidates.map((c) => (c.id === 'c2' ? { ...c, provider: 'command' } : c.id === 'c3' ? { ...c, provider: 'codex' } : c)) };
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
    const state = foldEvents([
      ...finishedRun(),
      { ...choice, ok: false, commit: undefined, message: 'the checkout has uncommitted changes; nothing was merged' },
    ]);
    const md = renderMarkdownReport(state);
    expect(md).toContain('- winner: **c1** (thorough)\n');
    expect(md).toContain(
      '- chosen by you in the compare view: **c2** (hasty), but its merge (squash) was not done — the checkout has uncommitted changes; nothing was merged; the winner is still c1\n',
    );
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
    expect(json.candidates.map((c) => [c.id, c.costKnown])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', false],
    ]);
  });

  it('leave a run whose agents all reported their cost as it was', () => {
    const md = renderMarkdownReport(foldEvents(finishedRun()));
    expect(md).toContain('cost: $0.0300\n');
    expect(md).not.toContain('–:');
    expect(md).not.toContain('reported no cost');
  });
});

/** A check with this output, its failing part cut as the engine cuts it (src/checks/run-checks.ts). */
function withOutput(check: CheckOutcome, output: string): CheckOutcome {
  return { ...check, outputTail: output, excerpt: failureExcerpt(output) };
}

describe('why checks failed', () => {
  it('says, per candidate, which checks failed in its last checked iteration, how, the last lines of their output and where the whole log is', () => {
    const tails: Record<string, string> = {
      unicode: 'not ok 1 - strips accents\n  expected: "creme-brulee"\n  actual: "cr-me-br-l-e"\n\n',
      edges: 'not ok 1 - trims dashes',
    };
    const events = finishedRun().map(
      (e): RunEvent =>
        e.type === 'check.finished' && e.candidate === 'c2' && !e.check.passed ? { ...e, check: withOutput(e.check, tails[e.check.name] ?? '') } : e,
    );
    const md = renderMarkdownReport(foldEvents(events));
    const section = md.slice(md.indexOf('## Failed checks (last iteration)'));
    expect(section).toContain(
      '### c2 · unicode: exit 1 (iteration 1)\n\n```\nnot ok 1 - strips accents\n  expected: "creme-brulee"\n  actual: "cr-me-br-l-e"\n```\n',
    );
    expect(section).toContain('### c2 · edges: exit 1 (iteration 1)\n\n```\nnot ok 1 - trims dashes\n```\n');
    expect(section).toMatch(/The whole output: `[^`]*candidates\/c2\/iteration-1\/checks\/unicode\.log` \(`final-checks\/unicode\.log` when/);
    expect(section).toContain('### c3 · basic: exit 1 (iteration 1)\n\n(no output)\n');
    // c1 passed every check: nothing of it here.
    expect(section).not.toContain('### c1');
  });

  it('shows the last lines when no line marks a failure, in a fence the output cannot close, and says a time-out and a check with no output', () => {
    const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
    const events = finishedRun().map((e): RunEvent => {
      if (e.type !== 'check.finished' || e.candidate !== 'c2') return e;
      if (e.check.name === 'unicode') return { ...e, check: withOutput(e.check, [...lines, 'a ``` in the output'].join('\n')) };
      if (e.check.name === 'edges') return { ...e, check: { ...withOutput(e.check, ''), exitCode: undefined, timedOut: true } };
      return e;
    });
    const md = renderMarkdownReport(foldEvents(events));
    expect(md).toContain(`### c2 · unicode: exit 1 (iteration 1)\n\n\`\`\`\`\n${[...lines.slice(-7), 'a ``` in the output'].join('\n')}\n\`\`\`\`\n`);
    expect(md).not.toContain('line 13\n');
    expect(md).toContain('### c2 · edges: timed out (iteration 1)\n\n(no output)\n');
  });

  it('is left out when every check passed', () => {
    const events = finishedRun().filter((e) => !(e.type === 'check.finished' && !e.check.passed));
    expect(renderMarkdownReport(foldEvents(events))).not.toContain('## Failed checks');
  });
});

describe('a file made binary (text in base, binary in the commit: a stray NUL byte)', () => {
  const madeBinary = (): RunEvent[] =>
    finishedRun().map(
      (e): RunEvent => (e.type === 'candidate.finished' && e.candidate === 'c2' ? { ...e, diff: { ...e.diff, madeBinary: ['src/add.js'] } } : e),
    );

  it('is named beside its diff size in report.md, report.json and report.html; other candidates say nothing of it', () => {
    const state = foldEvents(madeBinary());
    const md = renderMarkdownReport(state);
    expect(md).toMatch(/^\| 2 \| c2 hasty \|[^\n]* file[s]?\), made binary: src\/add\.js \|/m);
    expect(md.match(/made binary/g)).toHaveLength(1);
    const json = buildJsonReport(state) as { candidates: { id: string; diff: { madeBinary?: string[] } }[] };
    expect(json.candidates.map((c) => [c.id, c.diff.madeBinary])).toEqual([
      ['c1', undefined],
      ['c2', ['src/add.js']],
      ['c3', undefined],
    ]);
    const html = renderRunHtml(state, new Map(state.order.map((id) => [id, ok('')])), { assets: null });
    // In the ranking and in the candidate's own section.
    expect(html.match(/<span class="badge bad">made binary: src\/add\.js<\/span>/g)).toHaveLength(2);
  });
});
