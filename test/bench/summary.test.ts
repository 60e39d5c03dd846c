/**
 * The hand-worked bench (hand-worked-bench.ts: 2 tasks x 3 agents x 3 trials, one infra failure)
 * summarised by src/bench/summary.ts, every number worked out below and asserted to 4 decimals.
 */
import { describe, expect, it } from 'vitest';
import { summarizeBench, type AgentSummary, type BenchSummary } from '../../src/bench/summary.js';
import { handWorkedBench } from './hand-worked-bench.js';

const four = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 10_000) / 10_000);

function agent(s: BenchSummary, id: string): AgentSummary {
  const found = s.agents.find((a) => a.agent === id);
  if (found === undefined) throw new Error(`no agent ${id}`);
  return found;
}

function numbers(a: AgentSummary) {
  return {
    resolved: `${a.resolved}/${a.valid}`,
    infra: a.infra,
    rate: four(a.rate),
    interval: [four(a.interval?.low), four(a.interval?.high)],
    passAt1: four(a.passAt1),
    passAtK: a.passAtK.map((p) => [p.k, four(p.value)]),
    maxK: a.maxK,
    meanScore: four(a.meanScore),
    cost: [four(a.costUsd.mean), a.costUsd.p50, a.costUsd.p90],
    duration: [a.durationMs.mean, a.durationMs.p50, a.durationMs.p90],
  };
}

describe('summarizeBench on the hand-worked bench', () => {
  const summary = summarizeBench(handWorkedBench());

  it('claude-sonnet: 5 of 6 resolved, Wilson [0.4365, 0.9699], pass@1 0.8333, pass@3 1', () => {
    // Rate 5/6 = 0.8333. Wilson (z = 1.959964, z^2 = 3.841459, n = 6): denominator 1 + 3.841459/6 = 1.640243;
    //   centre = (0.833333 + 0.320122) / 1.640243 = 0.703222;
    //   half = (1.959964 / 1.640243) * sqrt(0.833333*0.166667/6 + 3.841459/144)
    //        = 1.194923 * sqrt(0.023148 + 0.026677) = 1.194923 * 0.223215 = 0.266725 -> [0.4365, 0.9699].
    // pass@1 = mean(3/3, 2/3) = 0.8333. pass@3: t1 n=3,c=3 -> 1; t2 n=3,c=2: n-c = 1 < 3 -> 1; mean 1.
    // Mean score: 5 trials at 10/10 and one at 4/10: (5 + 0.4) / 6 = 0.9.
    // Cost .10 .20 .30 .40 .50 .60: mean 0.35; p50 = rank ceil(3) = .30; p90 = rank ceil(5.4) = 6 = .60.
    // Duration 30..80 s: mean 55 s, p50 = 50 s, p90 = 80 s.
    expect(numbers(agent(summary, 'claude-sonnet'))).toEqual({
      resolved: '5/6',
      infra: 0,
      rate: 0.8333,
      interval: [0.4365, 0.9699],
      passAt1: 0.8333,
      passAtK: [[3, 1]],
      maxK: 3,
      meanScore: 0.9,
      cost: [0.35, 0.3, 0.6],
      duration: [55_000, 50_000, 80_000],
    });
  });

  it('codex-mini: 2 of 6 resolved, Wilson [0.0968, 0.7000], pass@1 0.3333, pass@3 1', () => {
    // Rate 2/6 = 0.3333. Same denominator as above; centre = (0.333333 + 0.320122) / 1.640243 = 0.398389;
    //   half = 1.194923 * sqrt(0.333333*0.666667/6 + 0.026677) = 1.194923 * sqrt(0.063714) = 1.194923 * 0.252416 = 0.301618
    //   -> [0.0968, 0.7000].
    // pass@1 = mean(1/3, 1/3); pass@3: n=3, c=1, n-c = 2 < 3 -> 1 on both tasks.
    // Mean score (2*10 + 4*4) / 60 = 0.6. Cost .05 x3, .10 x3: mean 0.075, p50 (3rd) .05, p90 (6th) .10.
    expect(numbers(agent(summary, 'codex-mini'))).toEqual({
      resolved: '2/6',
      infra: 0,
      rate: 0.3333,
      interval: [0.0968, 0.7],
      passAt1: 0.3333,
      passAtK: [[3, 1]],
      maxK: 3,
      meanScore: 0.6,
      cost: [0.075, 0.05, 0.1],
      duration: [10_000, 10_000, 10_000],
    });
  });

  it('gemini-flash: the infra trial is left out: 1 of 5 resolved, Wilson [0.0362, 0.6245], pass@1 0.25, pass@3 not possible', () => {
    // Valid trials: t1 R U (2), t2 U U U (3): 1 of 5 = 0.2.
    // Wilson n = 5: denominator 1 + 3.841459/5 = 1.768292; centre = (0.2 + 0.384146) / 1.768292 = 0.330345;
    //   half = (1.959964 / 1.768292) * sqrt(0.2*0.8/5 + 3.841459/100) = 1.108394 * sqrt(0.032 + 0.038415)
    //        = 1.108394 * 0.265357 = 0.294121 -> [0.0362, 0.6245].
    // pass@1 = mean(1/2, 0/3) = 0.25 (not the pooled 0.2: each task weighs the same).
    // pass@3: t1 has only 2 valid trials, so k is at most 2: not possible.
    // Mean score (10 + 4*4) / 50 = 0.52. Cost .01 .03 .02 .04 .05 (the infra trial's .005 left out): mean 0.03,
    //   p50 = 3rd of 5 = .03, p90 = rank ceil(4.5) = 5th = .05. Duration 5 6 7 8 9 s: mean 7, p50 7, p90 9.
    const gemini = agent(summary, 'gemini-flash');
    expect(numbers(gemini)).toEqual({
      resolved: '1/5',
      infra: 1,
      rate: 0.2,
      interval: [0.0362, 0.6245],
      passAt1: 0.25,
      passAtK: [[3, null]],
      maxK: 2,
      meanScore: 0.52,
      cost: [0.03, 0.03, 0.05],
      duration: [7_000, 7_000, 9_000],
    });
    // The total cost counts every trial: 0.15 + the infra trial's 0.005.
    expect(four(gemini.totalCostUsd)).toBe(0.155);
    expect(summary.notes).toEqual([
      'pass@3 of gemini-flash is not possible: task t1 has only 2 valid trials of it (infra failures are left out), and k can be at most the smallest trial count',
    ]);
  });

  it('pass@2, asked for: 1, 0.6667 and 0.5', () => {
    // claude: t1 1; t2 n=3,c=2: n-c = 1 < 2 -> 1. Mean 1.
    // codex: each task n=3, c=1: 1 - C(2,2)/C(3,2) = 1 - 1/3 = 0.6667.
    // gemini: t1 n=2, c=1: n-c = 1 < 2 -> 1; t2 n=3, c=0: 0. Mean 0.5.
    const s = summarizeBench(handWorkedBench(), { k: [2] });
    expect(s.agents.map((a) => a.passAtK.map((p) => [p.k, four(p.value)]))).toEqual([[[2, 1]], [[2, 0.6667]], [[2, 0.5]]]);
    expect(s.notes).toEqual([]);
  });

  it('paired differences on the same tasks, each with its t interval (1 degree of freedom with 2 tasks)', () => {
    // Per-task rates: claude t1 1, t2 2/3; codex 1/3, 1/3; gemini 1/2 (the infra trial left out), 0.
    // With T = 2 tasks, SE = sd/sqrt(2) = |d1 - d2| / 2, and t(0.975, 1) = 12.706205.
    // claude - codex: d = 2/3, 1/3; mean 0.5; SE = (1/3)/2 = 0.1667; half = 2.1177 -> [-1.6177, 2.6177], clamped [-1, 1].
    // claude - gemini: d = 1/2, 2/3; mean 7/12 = 0.5833; SE = (1/6)/2 = 0.0833; half = 1.0589 -> [-0.4755, 1.6422], clamped [-0.4755, 1].
    // codex - gemini: d = -1/6, 1/3; mean 1/12 = 0.0833; SE = (1/2)/2 = 0.25; half = 3.1766 -> [-3.0932, 3.2599], clamped [-1, 1].
    const pairs = summary.pairs.map((p) => ({
      pair: `${p.a} - ${p.b}`,
      perTask: p.perTask.map((t) => four(t.difference)),
      mean: four(p.estimate?.mean),
      se: four(p.estimate?.standardError),
      half: four(p.estimate?.halfWidth),
      interval: [four(p.estimate?.interval?.low), four(p.estimate?.interval?.high)],
      clamped: p.estimate?.clamped,
    }));
    expect(pairs).toEqual([
      { pair: 'claude-sonnet - codex-mini', perTask: [0.6667, 0.3333], mean: 0.5, se: 0.1667, half: 2.1177, interval: [-1, 1], clamped: true },
      { pair: 'claude-sonnet - gemini-flash', perTask: [0.5, 0.6667], mean: 0.5833, se: 0.0833, half: 1.0589, interval: [-0.4755, 1], clamped: true },
      { pair: 'codex-mini - gemini-flash', perTask: [-0.1667, 0.3333], mean: 0.0833, se: 0.25, half: 3.1766, interval: [-1, 1], clamped: true },
    ]);
  });

  it('cells: each task x agent against its bar (t1 0.5, t2 0.6); an agent exactly at the bar passes', () => {
    // t1: claude 3/3 pass, codex 1/3 < 0.5 fail, gemini 1/2 = 0.5 pass (the infra trial left out).
    // t2: claude 2/3 >= 0.6 pass, codex 1/3 fail, gemini 0/3 fail.
    expect(summary.cells.map((c) => `${c.task}/${c.agent} ${c.resolved}/${c.valid} ${c.verdict}`)).toEqual([
      't1/claude-sonnet 3/3 passed',
      't1/codex-mini 1/3 failed',
      't1/gemini-flash 1/2 passed',
      't2/claude-sonnet 2/3 passed',
      't2/codex-mini 1/3 failed',
      't2/gemini-flash 0/3 failed',
    ]);
    expect(summary.infraFailures).toEqual([
      { task: 't1', agent: 'gemini-flash', trial: 2, reason: 'setup failed: npm ci exited with code 1', runId: 'r-t1-gemini-flash-2' },
    ]);
    expect([summary.recorded, summary.expected]).toEqual([18, 18]);
  });

  it("a task x agent whose every trial was an infra failure is skipped, left out of that agent's pass@k, and said so", () => {
    const file = handWorkedBench();
    const records = file.records.map((r) =>
      r.task === 't2' && r.agent === 'codex-mini' ? { ...r, infra: true, resolved: false, infraReason: 'the CLI could not start' } : r,
    );
    const s = summarizeBench({ ...file, records });
    const codex = agent(s, 'codex-mini');
    // Only t1 is left: 1 of 3, pass@1 1/3, pass@3 1 over that one task.
    expect([codex.resolved, codex.valid, codex.infra, codex.tasks, four(codex.passAt1), codex.passAtK[0]?.value]).toEqual([1, 3, 3, 1, 0.3333, 1]);
    expect(s.cells.find((c) => c.task === 't2' && c.agent === 'codex-mini')?.verdict).toBe('skipped');
    expect(s.notes[0]).toBe('codex-mini has no valid trial of task t2 (every trial was an infra failure): the task is left out of its pass@k');
    // The pairs with codex are over t1 alone: a mean, no interval.
    const pair = s.pairs.find((p) => p.a === 'claude-sonnet' && p.b === 'codex-mini');
    expect([pair?.perTask.length, four(pair?.estimate?.mean), pair?.estimate?.interval]).toEqual([1, 0.6667, null]);
  });

  it('records given in any order summarise the same', () => {
    const file = handWorkedBench();
    expect(summarizeBench({ ...file, records: [...file.records].reverse() })).toEqual(summary);
  });

  it('a shard counts the cells of its slice as expected; pass@1 alone when the matrix has 1 trial per cell', () => {
    const file = handWorkedBench();
    const s = summarizeBench({ ...file, shard: { index: 1, count: 4 }, records: [] });
    // 18 cells dealt to 4 shards: indices 0, 4, 8, 12, 16 go to shard 1.
    expect([s.recorded, s.expected]).toEqual([0, 5]);
    const one = summarizeBench({ ...file, matrix: { ...file.matrix, trials: 1 }, records: file.records.filter((r) => r.trial === 1) });
    expect(one.agents[0]?.passAtK).toEqual([]);
  });

  it('a cost never reported is unknown, not $0: left out of the cost figures, said in the notes, no total when none was', () => {
    const file = handWorkedBench();
    // codex-mini as a command agent (reports no cost) in every trial; gemini-flash in its t2 trials only.
    const records = file.records.map((r) =>
      r.agent === 'codex-mini' || (r.agent === 'gemini-flash' && r.task === 't2') ? { ...r, costUsd: 0, costKnown: false as const } : r,
    );
    const s = summarizeBench({ ...file, records });
    const codex = agent(s, 'codex-mini');
    expect([codex.costUsd.mean, codex.costUsd.p50, codex.costUsd.p90, codex.totalCostUsd, codex.costUnknown]).toEqual([null, null, null, null, 6]);
    const gemini = agent(s, 'gemini-flash');
    // Its valid t1 trials cost 0.01 and 0.03 (the infra trial's 0.005 is out of the figures, in the total).
    expect([four(gemini.costUsd.mean), four(gemini.totalCostUsd), gemini.costUnknown]).toEqual([0.02, 0.045, 3]);
    expect(s.notes).toContain('codex-mini reported no cost in any trial (a command agent reports none): its cost is unknown, not $0');
    expect(s.notes).toContain('gemini-flash reported no cost in 3 of 6 trials: its cost figures are over the others, and its total is a lower bound');
    expect(agent(s, 'claude-sonnet').costUnknown).toBe(0);
  });
});
