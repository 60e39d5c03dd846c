/**
 * `--baseline` (src/bench/baseline.ts): a regression needs a drop past the tolerance *and* the
 * baseline's rate above the current Wilson interval; or a mean cost risen past the tolerance.
 */
import { describe, expect, it } from 'vitest';
import { compareToBaseline } from '../../src/bench/baseline.js';
import { summarizeBench } from '../../src/bench/summary.js';
import type { TrialRecord } from '../../src/bench/types.js';
import { handWorkedBench, handWorkedRecords } from './hand-worked-bench.js';

const TOLERANCE = { resolvedRateDrop: 0.1, costUsdRise: 0.2 };
const current = summarizeBench(handWorkedBench());

function baselineWith(change: (r: TrialRecord) => TrialRecord) {
  return summarizeBench(handWorkedBench(handWorkedRecords().map(change)));
}

describe('compareToBaseline', () => {
  it('the same bench is no regression', () => {
    const c = compareToBaseline(current, current, TOLERANCE);
    expect(c.regressions).toEqual([]);
    expect(c.changes.map((x) => x.regressed)).toEqual([false, false, false]);
    expect(c.notes).toEqual([]);
  });

  it("claude-sonnet from 6/6 to 5/6: a drop of 16.7 pp past the 10 pp tolerated, and 100% is above today's interval [43.6%, 97.0%]: a regression", () => {
    const c = compareToBaseline(
      current,
      baselineWith((r) => (r.agent === 'claude-sonnet' ? { ...r, resolved: true } : r)),
      TOLERANCE,
    );
    expect(c.regressions).toEqual([
      {
        agent: 'claude-sonnet',
        kind: 'resolved_rate',
        baseline: 1,
        current: 5 / 6,
        message:
          "claude-sonnet: resolved rate fell from 100.0% to 83.3% (5/6), a drop of 16.7 pp, more than the tolerated 10.0 pp, and the baseline's 100.0% is above today's 95% interval [43.6%, 97.0%]",
      },
    ]);
  });

  it('a drop past the tolerance but inside the interval is noise: codex-mini from 4/6 (66.7%) to 2/6, interval [9.7%, 70.0%]', () => {
    // Baseline: codex resolved t1 trials 1 and 3 too: 4/6 = 0.6667. Drop 0.3333 > 0.1, but 0.6667 <= 0.7000.
    const c = compareToBaseline(
      current,
      baselineWith((r) => (r.agent === 'codex-mini' && r.task === 't1' ? { ...r, resolved: true } : r)),
      TOLERANCE,
    );
    expect(c.regressions).toEqual([]);
    expect(c.changes.find((x) => x.agent === 'codex-mini')).toMatchObject({ baselineRate: 4 / 6, currentRate: 2 / 6, regressed: false });
  });

  it('a drop outside the interval but within the tolerance is no regression either', () => {
    // claude 6/6 -> 5/6 is a drop of 16.7 pp; with 20 pp tolerated it is not one.
    const c = compareToBaseline(
      current,
      baselineWith((r) => (r.agent === 'claude-sonnet' ? { ...r, resolved: true } : r)),
      { ...TOLERANCE, resolvedRateDrop: 0.2 },
    );
    expect(c.regressions).toEqual([]);
  });

  it('mean cost: +25% is past 20%, +20% exactly is not', () => {
    // codex-mini's mean cost is 0.075 today; a baseline of 0.06 makes it +25%, of 0.0625 +20%.
    const from = (mean: number) => baselineWith((r) => (r.agent === 'codex-mini' ? { ...r, costUsd: (r.costUsd * mean) / 0.075 } : r));
    expect(compareToBaseline(current, from(0.06), TOLERANCE).regressions).toEqual([
      {
        agent: 'codex-mini',
        kind: 'cost',
        baseline: expect.closeTo(0.06, 9),
        current: expect.closeTo(0.075, 9),
        message: 'codex-mini: mean cost of a trial rose from $0.060 to $0.075 (+25%), more than the tolerated 20%',
      },
    ]);
    expect(compareToBaseline(current, from(0.0625), TOLERANCE).regressions).toEqual([]);
  });

  it('agents in one bench only, and a baseline of another spec, are notes, not regressions', () => {
    const baseline = summarizeBench({ ...handWorkedBench(), specHash: 'sha256:old' });
    const renamed = { ...baseline, agents: baseline.agents.map((a) => (a.agent === 'gemini-flash' ? { ...a, agent: 'gemini-pro' } : a)) };
    const c = compareToBaseline(current, renamed, TOLERANCE);
    expect(c.regressions).toEqual([]);
    expect(c.notes).toEqual([
      'the baseline ran another spec (hash sha256:old, now sha256:0123abcd): its rates are over other tasks or settings, compare them with care',
      'gemini-flash is not in the baseline: nothing to compare it with',
      'gemini-pro is in the baseline only: it did not run in this bench',
    ]);
  });

  it('an agent without a valid trial today has no rate to compare: a note', () => {
    const allInfra = summarizeBench(
      handWorkedBench(handWorkedRecords().map((r) => (r.agent === 'codex-mini' ? { ...r, infra: true, infraReason: 'no CLI' } : r))),
    );
    const c = compareToBaseline(allInfra, current, TOLERANCE);
    expect(c.regressions).toEqual([]);
    expect(c.notes).toEqual(['codex-mini: no resolved rate to compare (no valid trial in this bench)']);
  });
});
