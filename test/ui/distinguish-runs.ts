/**
 * Scripted runs with the distinguish step (`[select.distinguish]`) for the report and UI tests:
 * three candidates tie at 100 points, a tester writes four test files, each runs on every
 * finalist and on base, and the result is the one the step's own ranking (rankByAgreement)
 * computes from those runs, as the engine emits it.
 *
 * The finalists in their order before the step: c1, c2, c3 (the tie-break would pick c1).
 *   t1 accents: c1 FAIL, c2 pass, c3 pass, base FAIL
 *   t2 edges:   c1 pass, c2 pass, c3 FAIL, base FAIL
 *   t3 slow:    c1 pass, c2 timed out, c3 pass, base pass  -> dropped: it timed out
 *   t4 wrong:   FAIL everywhere                          -> dropped: it fails on every finalist
 * c2 passes both kept tests, c1 and c3 one each: c2 wins.
 */
import { rankByAgreement } from '../../src/distinguish/rank.js';
import { BASE_TARGET, type GeneratedTest, type TestRun } from '../../src/distinguish/types.js';
import type { RunEvent, UnstampedEvent } from '../../src/engine/record/events.js';
import type { RankEntry } from '../../src/engine/record/run-types.js';
import { candidate, CHECKS, check, finished, runStarted, stamp } from './scripted-runs.js';

export const TESTS: readonly GeneratedTest[] = [
  { id: 't1', file: 'test_accents.py', digest: 'a'.repeat(64), bytes: 310 },
  { id: 't2', file: 'test_edges.py', digest: 'b'.repeat(64), bytes: 280 },
  { id: 't3', file: 'test_slow.py', digest: 'c'.repeat(64), bytes: 120 },
  { id: 't4', file: 'test_wrong.py', digest: 'd'.repeat(64), bytes: 90 },
];

export const FINALISTS = ['c1', 'c2', 'c3'] as const;

/** The tail of c1's failure on t1, unless a test gives its own. */
export const C1_TAIL = 'FAILED test_accents.py::test_strips_accents\nAssertionError: assert "cr-me" == "creme"';

export interface DistinguishRunOptions {
  /** The tail of c1's failure on t1. */
  readonly c1Tail?: string;
  /** The tester's name for t1's file. */
  readonly t1File?: string;
}

const OUTCOMES: Readonly<Record<string, readonly TestRun['outcome'][]>> = {
  // c1, c2, c3, base
  t1: ['failed', 'passed', 'passed', 'failed'],
  t2: ['passed', 'passed', 'failed', 'failed'],
  t3: ['passed', 'timed_out', 'passed', 'passed'],
  t4: ['failed', 'failed', 'failed', 'failed'],
};

export function testRuns(c1Tail = C1_TAIL): TestRun[] {
  return TESTS.flatMap((t) =>
    [...FINALISTS, BASE_TARGET].map((target, i): TestRun => {
      const outcome = OUTCOMES[t.id]?.[i] ?? 'failed';
      if (outcome === 'passed') return { test: t.id, target, outcome };
      const tail = t.id === 't1' && target === 'c1' ? c1Tail : `FAILED ${t.file} on ${target}`;
      return { test: t.id, target, outcome, tail };
    }),
  );
}

function scored(id: string): UnstampedEvent[] {
  return [
    { type: 'candidate.status', candidate: id, status: 'running', iteration: 1 },
    {
      type: 'provider.finished',
      candidate: id,
      iteration: 1,
      outcome: 'success',
      costUsd: 0.01,
      usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 },
      turns: 1,
      durationMs: 500,
    },
    { type: 'candidate.committed', candidate: id, iteration: 1, commit: id.padEnd(40, 'a'), changedFiles: 1 },
    ...CHECKS.map((k): UnstampedEvent => ({ type: 'check.finished', candidate: id, iteration: 1, check: check(k.name, true) })),
    { type: 'candidate.scored', candidate: id, iteration: 1, score: 100, maxScore: 100, failedChecks: [] },
    finished(id, 'done', 'threshold_reached', 100),
  ];
}

/** Everything up to the final scoring: three candidates at 100 points. */
function tiedRun(): UnstampedEvent[] {
  return [runStarted([candidate(1, 'thorough'), candidate(2, 'hasty'), candidate(3, 'gamer')]), ...FINALISTS.flatMap(scored)];
}

const STARTED: UnstampedEvent = {
  type: 'distinguish.started',
  seed: 'd15c0',
  when: 'tie',
  finalists: [...FINALISTS],
  commits: Object.fromEntries(FINALISTS.map((id) => [id, id.padEnd(40, 'a')])),
  labels: [
    { candidate: 'c2', label: 'A' },
    { candidate: 'c3', label: 'B' },
    { candidate: 'c1', label: 'C' },
  ],
  tester: { kind: 'claude', model: 'opus' },
  command: 'python3 -m pytest -q {file}',
  folder: 'bestof-tests',
};

/** The selection's ranking; `counted`: the kept tests each finalist passed, when the step decided. */
function ranking(order: readonly string[], counted?: { readonly passed: Readonly<Record<string, number>>; readonly of: number }): RankEntry[] {
  return order.map((id, i) => ({
    candidate: id,
    rank: i + 1,
    score: 100,
    maxScore: 100,
    costUsd: 0.01,
    diffSize: 10,
    durationMs: 4200,
    iterations: 1,
    eligible: true,
    ...(counted ? { distinguish: { passed: counted.passed[id] ?? 0, of: counted.of } } : {}),
  }));
}

/** The whole run: the step decides for c2, which is merged as a branch. */
export function distinguishRun(options: DistinguishRunOptions = {}): RunEvent[] {
  const tests = TESTS.map((t) => (t.id === 't1' && options.t1File !== undefined ? { ...t, file: options.t1File } : t));
  const runs = testRuns(options.c1Tail);
  const result = rankByAgreement({ finalists: [...FINALISTS], tests, runs });
  const winner = result.order[0] as string;
  return stamp([
    ...tiedRun(),
    STARTED,
    { type: 'distinguish.tester', tests, costUsd: 0.25, refused: [{ file: 'bestof-tests/huge.py', reason: 'larger than 64 KB' }] },
    ...runs.map((r): UnstampedEvent => ({ type: 'distinguish.run', ...r })),
    { type: 'distinguish.finished', result, message: result.decided },
    {
      type: 'selection.finished',
      ranking: ranking(result.order, { passed: result.passed, of: result.kept.length }),
      winner,
      message: result.decided,
      picks: { tie_break: 'c1', distinguish: winner },
    },
    {
      type: 'merge.finished',
      candidate: winner,
      mode: 'branch',
      ok: true,
      branch: `bestof/r1/${winner}`,
      message: `the winner's work is on branch bestof/r1/${winner} (merge it with \`git merge bestof/r1/${winner}\`)`,
    },
    { type: 'run.finished', status: 'winner', exitCode: 0, winner, durationMs: 9100, message: `${winner} won` },
  ]);
}

/** The tester wrote nothing: the step is skipped and the tie-break picks c1. */
export function skippedDistinguishRun(): RunEvent[] {
  const message = 'the tester wrote no test file (its call failed: rate limited): the tie-break decides';
  return stamp([
    ...tiedRun(),
    STARTED,
    { type: 'distinguish.tester', tests: [], costUsd: 0.02, error: 'rate limited' },
    { type: 'distinguish.skipped', message },
    { type: 'selection.finished', ranking: ranking(FINALISTS), winner: 'c1', message: 'c1 wins on the tie-break', picks: { tie_break: 'c1' } },
    { type: 'run.finished', status: 'winner', exitCode: 0, winner: 'c1', durationMs: 9100, message: 'c1 won' },
  ]);
}
