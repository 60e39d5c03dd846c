/** The Markdown report of the hand-worked bench (src/bench/markdown.ts); the numbers are worked out in summary.test.ts. */
import { describe, expect, it } from 'vitest';
import { compareToBaseline } from '../../src/bench/baseline.js';
import { renderBenchMarkdown } from '../../src/bench/markdown.js';
import { summarizeBench } from '../../src/bench/summary.js';
import { trialLine } from '../../src/ui/bench-lines.js';
import { handWorkedBench, handWorkedRecords, trialRecord } from './hand-worked-bench.js';

function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`## ${title}\n`);
  if (start < 0) return '';
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end < 0 ? undefined : end).trim();
}

describe('renderBenchMarkdown', () => {
  const markdown = renderBenchMarkdown(summarizeBench(handWorkedBench()));

  it('opens with the bench, its shape and its infra count', () => {
    expect(markdown.split('\n').slice(0, 3)).toEqual(['# Bench: nightly', '', '2 tasks × 3 agents × 3 trials: 18 trials, 1 infra failure.']);
  });

  it('has one row per agent: rate with its interval, pass@1, pass@3, mean score, cost mean/p50/p90, time p50/p90, infra', () => {
    const lines = section(markdown, 'Agents').split('\n');
    expect(lines.slice(2, 7)).toEqual([
      '| Agent | Kind · model | Resolved | 95% interval | pass@1 | pass@3 | Mean score | Cost mean | Cost p50 | Cost p90 | Time p50 | Time p90 | Infra |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      '| claude-sonnet | claude · sonnet | 83.3% (5/6) | [43.6%, 97.0%] | 83.3% | 100.0% | 90.0% | $0.350 | $0.300 | $0.600 | 50s | 1m 20s | 0 |',
      '| codex-mini | codex · gpt-5-mini | 33.3% (2/6) | [9.7%, 70.0%] | 33.3% | 100.0% | 60.0% | $0.075 | $0.050 | $0.100 | 10s | 10s | 0 |',
      '| gemini-flash | gemini · gemini-2.5-flash | 20.0% (1/5) | [3.6%, 62.4%] | 25.0% | – | 52.0% | $0.030 | $0.030 | $0.050 | 7.0s | 9.0s | 1 |',
    ]);
  });

  it('shows each task against its bar, and the paired differences with their (clamped) intervals', () => {
    expect(section(markdown, 'Tasks').split('\n').slice(4, 6)).toEqual([
      '| t1 | 50.0% | 100.0% (3/3) pass | 33.3% (1/3) FAIL | 50.0% (1/2) pass |',
      '| t2 | 60.0% | 66.7% (2/3) pass | 33.3% (1/3) FAIL | 0.0% (0/3) FAIL |',
    ]);
    expect(section(markdown, 'Paired differences').split('\n').slice(4, 7)).toEqual([
      '| claude-sonnet − codex-mini | 2 | +50.0 pp | [-100.0 pp, +100.0 pp] (clamped) |',
      '| claude-sonnet − gemini-flash | 2 | +58.3 pp | [-47.6 pp, +100.0 pp] (clamped) |',
      '| codex-mini − gemini-flash | 2 | +8.3 pp | [-100.0 pp, +100.0 pp] (clamped) |',
    ]);
  });

  it('lists infra failures apart, then the notes, and ends with the harness line', () => {
    expect(section(markdown, 'Infra failures')).toContain('- t1/gemini-flash#2: setup failed: npm ci exited with code 1 (run r-t1-gemini-flash-2)');
    expect(section(markdown, 'Notes')).toContain('- pass@3 of gemini-flash is not possible: task t1 has only 2 valid trials of it');
    expect(markdown.trimEnd().split('\n').at(-1)).toBe(
      'Harness: bestof 0.1.0 (commit 8b1b4470c0ff), spec hash sha256:0123abcd, started 2025-01-10T02:00:00.000Z, finished 2025-01-10T02:30:00.000Z.',
    );
    expect(markdown).not.toContain('## Compared with the baseline');
  });

  it('says what changed against a baseline', () => {
    // The baseline: claude-sonnet resolved every trial, at half today's cost.
    const baselineRecords = handWorkedRecords().map((r) => (r.agent === 'claude-sonnet' ? { ...r, resolved: true, costUsd: r.costUsd / 2 } : r));
    const current = summarizeBench(handWorkedBench());
    const comparison = compareToBaseline(current, summarizeBench(handWorkedBench(baselineRecords)), { resolvedRateDrop: 0.1, costUsdRise: 0.2 });
    const text = section(renderBenchMarkdown(current, comparison), 'Compared with the baseline');
    expect(text).toContain('2 regressions against the baseline:');
    expect(text).toContain('| claude-sonnet | 100.0% → 83.3% | $0.175 → $0.350 | REGRESSION |');
    expect(text).toContain('| codex-mini | 33.3% → 33.3% | $0.075 → $0.075 | ok |');
  });

  it('keeps the table whole when an id or a reason holds a | or a newline, and says an incomplete file is incomplete', () => {
    const file = handWorkedBench();
    const odd = { ...trialRecord('t1', 'claude-sonnet', 1, 'I', 0, 1), infraReason: 'exit 1 | see\nlog' };
    const s = summarizeBench({ ...file, records: [odd] });
    const text = renderBenchMarkdown(s);
    expect(text).toContain('- t1/claude-sonnet#1: exit 1 \\| see log (run r-t1-claude-sonnet-1)');
    expect(text).toContain('2 tasks × 3 agents × 3 trials: 1 of 18 trials recorded (incomplete), 1 infra failure.');
    expect(section(text, 'Tasks')).toContain('| t1 | 50.0% | skipped (1 infra failure) | not run | not run |');
  });

  it('shows an escape sequence in a reason escaped, in the Markdown and in the plain line of the trial', () => {
    const odd = { ...trialRecord('t1', 'claude-sonnet', 1, 'I', 0, 1), infraReason: 'setup: \u001b]0;title\u0007 \u009b2K' };
    const text = renderBenchMarkdown(summarizeBench({ ...handWorkedBench(), records: [odd] }));
    expect(text).toContain('- t1/claude-sonnet#1: setup: \\u001b]0;title\\u0007 \\u009b2K (run r-t1-claude-sonnet-1)');
    expect(text).not.toMatch(/[\u0007\u001b\u009b]/);
    expect(trialLine(odd)).toBe('t1/claude-sonnet#1: infra failure, left out of the rates: setup: \\u001b]0;title\\u0007 \\u009b2K');
  });
});
