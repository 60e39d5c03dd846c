/**
 * The pick against the oracle, worked by hand (src/bench/pick-summary.ts, stats.ts): one agent,
 * three candidates a trial, two selections scored on the same trials.
 *
 *   trial   candidates passing the oracle   tie_break's pick   vote's pick
 *   1       c1 c2 (2 of 3)                  c1 ✓               c3 ✗
 *   2       none (0 of 3)                   c1 ✗               c2 ✗
 *   3       c1 (1 of 3)                     c2 ✗               c1 ✓
 *   4       c2 c3 (2 of 3)                  c1 ✗               c2 ✓
 *   5       c1 c2 c3 (3 of 3)               c1 ✓               c2 ✓ (no vote decided: the tie-break's, fell back)
 *   6       an infra failure: left out of everything
 *
 *   random   mean of 2/3, 0, 1/3, 2/3, 1 = 8/15 = 0.533; pooled 8 of 15 candidates, the same
 *   pick     tie_break 2/5 = 0.4, vote 3/5 = 0.6
 *   oracle   trials 1, 3, 4, 5 have a passing candidate: 4/5 = 0.8
 *
 * Wilson at 95% (z = 1.959964, z² = 3.841459): centre = (p + z²/2n) / (1 + z²/n),
 * half = z / (1 + z²/n) × sqrt(p(1-p)/n + z²/4n²).
 *   8/15: 1 + z²/n = 1.256097; centre = (0.533333 + 0.128049) / 1.256097 = 0.526537;
 *         half = 1.560360 × sqrt(0.016593 + 0.004268) = 0.225367 → [0.301, 0.752]
 *   2/5:  1 + z²/n = 1.768292; centre = (0.4 + 0.384146) / 1.768292 = 0.443448;
 *         half = 1.108394 × sqrt(0.048 + 0.038415) = 0.325827 → [0.118, 0.769]
 *   3/5:  centre = (0.6 + 0.384146) / 1.768292 = 0.556552; half the same → [0.231, 0.882]
 *   4/5:  centre = (0.8 + 0.384146) / 1.768292 = 0.669655;
 *         half = 1.108394 × sqrt(0.032 + 0.038415) = 0.294121 → [0.376, 0.964]
 *
 * Paired, tie_break − vote: only tie_break right in trial 1 (b = 1), only vote right in trials 3
 * and 4 (c = 2), n = 5. mean = (1 − 2) / 5 = −0.2; variance = (b + c)/n − mean² = 0.6 − 0.04 =
 * 0.56; SE = sqrt(0.56 / 5) = 0.334664; half = 1.959964 × 0.334664 = 0.655929 → [−0.856, 0.456].
 */
import { describe, expect, it } from 'vitest';
import { renderJUnit } from '../../src/bench/junit.js';
import { renderBenchMarkdown } from '../../src/bench/markdown.js';
import { summarizePicks } from '../../src/bench/pick-summary.js';
import { policyPicks } from '../../src/bench/picks.js';
import { summarizeBench } from '../../src/bench/summary.js';
import type { BenchFile, BenchSelection, TrialRecord } from '../../src/bench/types.js';
import { handWorkedBench, trialRecord } from './hand-worked-bench.js';
import { renderBenchHtml } from '../../src/report/html/bench-html.js';

const SELECTIONS: BenchSelection[] = [
  { name: 'tie_break', policy: 'tie_break' },
  { name: 'vote', policy: 'vote' },
];

/** Per trial: which of c1..c3 pass, the run's picks (vote absent: no vote decided). */
const TRIALS: readonly [string, { tie_break: string; vote?: string }][] = [
  ['110', { tie_break: 'c1', vote: 'c3' }],
  ['000', { tie_break: 'c1', vote: 'c2' }],
  ['100', { tie_break: 'c2', vote: 'c1' }],
  ['011', { tie_break: 'c1', vote: 'c2' }],
  ['111', { tie_break: 'c1' }],
];

function judgedBench(): BenchFile {
  const records: TrialRecord[] = TRIALS.map(([passing, picks], i) => {
    const candidates = [...passing].map((mark, j) => ({
      candidate: `c${j + 1}`,
      passed: mark === '1',
      why: mark === '1' ? '' : 'oracle check judge exited with 1',
    }));
    return { ...trialRecord('t1', 'claude-sonnet', i + 1, 'R', 0.1, 10), oracle: { candidates, picks: policyPicks(SELECTIONS, picks, candidates) } };
  });
  records.push(trialRecord('t1', 'claude-sonnet', 6, 'I', 0, 1));
  const base = handWorkedBench(records);
  return { ...base, matrix: { tasks: [{ id: 't1', bar: 0.5 }], agents: [base.matrix.agents[0]!], trials: 6, selections: SELECTIONS } };
}

const three = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 1000) / 1000);

describe('the pick against the oracle, worked by hand', () => {
  it('random, pick and oracle rates with their Wilson intervals', () => {
    const picks = summarizePicks(judgedBench());
    expect(
      picks?.selections.map((s) => ({
        selection: s.selection,
        trials: s.trials,
        random: three(s.random),
        randomInterval: [three(s.randomInterval?.low), three(s.randomInterval?.high)],
        pick: three(s.pick),
        pickInterval: [three(s.pickInterval?.low), three(s.pickInterval?.high)],
        oracle: three(s.oracle),
        oracleInterval: [three(s.oracleInterval?.low), three(s.oracleInterval?.high)],
        fellBack: s.fellBack,
      })),
    ).toEqual([
      {
        selection: 'tie_break',
        trials: 5,
        random: 0.533,
        randomInterval: [0.301, 0.752],
        pick: 0.4,
        pickInterval: [0.118, 0.769],
        oracle: 0.8,
        oracleInterval: [0.376, 0.964],
        fellBack: 0,
      },
      {
        selection: 'vote',
        trials: 5,
        random: 0.533,
        randomInterval: [0.301, 0.752],
        pick: 0.6,
        pickInterval: [0.231, 0.882],
        oracle: 0.8,
        oracleInterval: [0.376, 0.964],
        fellBack: 1,
      },
    ]);
  });

  it('the paired difference between the two selections, on the same trials', () => {
    const [pair] = summarizePicks(judgedBench())?.pairs ?? [];
    expect(pair).toMatchObject({ agent: 'claude-sonnet', a: 'tie_break', b: 'vote' });
    const d = pair?.difference;
    expect({ trials: d?.trials, b: d?.aOnly, c: d?.bOnly, mean: three(d?.mean), se: three(d?.standardError) }).toEqual({
      trials: 5,
      b: 1,
      c: 2,
      mean: -0.2,
      se: 0.335,
    });
    expect([three(d?.interval.low), three(d?.interval.high)]).toEqual([-0.856, 0.456]);
  });

  it("a policy that did not decide takes the tie-break's pick; no pick is a wrong one", () => {
    const verdicts = [
      { candidate: 'c1', passed: true, why: '' },
      { candidate: 'c2', passed: false, why: 'x' },
    ];
    expect(policyPicks(SELECTIONS, { tie_break: 'c1' }, verdicts)).toEqual([
      { selection: 'tie_break', policy: 'tie_break', candidate: 'c1', passes: true, fellBack: false },
      { selection: 'vote', policy: 'vote', candidate: 'c1', passes: true, fellBack: true },
    ]);
    expect(policyPicks(SELECTIONS, { tie_break: null, vote: 'c2' }, verdicts).map((p) => [p.candidate, p.passes, p.fellBack])).toEqual([
      [null, false, false],
      ['c2', false, false],
    ]);
  });

  it('bench.md shows the table and the paired difference; the JUnit has a case per agent and selection', () => {
    const summary = summarizeBench(judgedBench());
    const markdown = renderBenchMarkdown(summary);
    expect(markdown).toContain(
      '| claude-sonnet | tie_break | 5 | 53.3% (8/15 candidates) | [30.1%, 75.2%] | 40.0% (2/5) | [11.8%, 76.9%] | 80.0% (4/5) | [37.6%, 96.4%] | 0 |',
    );
    expect(markdown).toContain('| claude-sonnet | tie_break − vote | 5 | 1 / 2 | -20.0 pp | [-85.6 pp, +45.6 pp] |');
    const junit = renderJUnit(summary);
    expect(junit).toMatch(/<testcase classname="pick\.vote" name="claude-sonnet" time="0\.000">\s*<system-out>vote \(vote\): pick 60\.0% \(3\/5\)/);
    expect(junit).toMatch(/<testsuites name="bestof bench nightly" tests="3"/);
  });

  it('a bench without an oracle has no pick section', () => {
    const summary = summarizeBench(handWorkedBench());
    expect(summary.picks).toBeNull();
    expect(renderBenchMarkdown(summary)).not.toContain('oracle');
  });
});

describe('bench.html shows the pick against the oracle', () => {
  it('the same rates, intervals and paired difference as bench.md, in tables of their own', () => {
    const html = renderBenchHtml(summarizeBench(judgedBench()));
    expect(html).toContain('<table id="picks">');
    const row = (selection: string): string => {
      const at = html.indexOf(`data-selection="${selection}"`);
      return html.slice(at, html.indexOf('</tr>', at));
    };
    // The figures worked by hand in this file's header.
    expect(row('tie_break')).toContain('53.3% <span class="note">(8/15 candidates)</span></td><td class="num">[30.1%, 75.2%]');
    expect(row('tie_break')).toContain('40.0% <span class="note">(2/5)</span></td><td class="num">[11.8%, 76.9%]');
    expect(row('tie_break')).toContain('80.0% <span class="note">(4/5)</span></td><td class="num">[37.6%, 96.4%]');
    expect(row('vote')).toContain('60.0% <span class="note">(3/5)</span></td><td class="num">[23.1%, 88.2%]');
    const pairs = html.slice(html.indexOf('<table id="pick-pairs">'), html.indexOf('</table>', html.indexOf('<table id="pick-pairs">')));
    expect(pairs).toContain(
      'tie_break − vote</td><td class="num">5</td><td class="num">1 / 2</td><td class="num">-20.0 pp</td><td class="num">[-85.6 pp, +45.6 pp]',
    );
  });

  it('has no such section for a bench without an oracle', () => {
    expect(renderBenchHtml(summarizeBench(handWorkedBench()))).not.toContain('id="picks"');
  });
});
