/**
 * Scripted RunEvent streams for the UI tests: whole runs as plain arrays, the way the engine
 * emits them, with fixed times so that frames are reproducible.
 */
import { failureExcerpt } from '../../src/checks/failure-excerpt.js';
import type { CheckOutcome } from '../../src/checks/run-checks.js';
import type { CandidateInfo, RunEvent, UnstampedEvent } from '../../src/engine/record/events.js';

export const T0 = Date.UTC(2026, 11, 2, 9, 0, 0);

/** Stamps events one second apart from T0 unless they carry their own offset. */
export function stamp(events: readonly (UnstampedEvent & { readonly at?: number })[]): RunEvent[] {
  return events.map((e, i) => {
    const { at, ...rest } = e;
    return { t: new Date(T0 + (at ?? i) * 1000).toISOString(), ...rest } as RunEvent;
  });
}

export function candidate(index: number, label: string, provider: CandidateInfo['provider'] = 'script', model?: string): CandidateInfo {
  const id = `c${index}`;
  return {
    id,
    index,
    label,
    provider,
    model,
    branch: `bestof/r1/${id}`,
    ref: `refs/bestof/r1/${id}/kept`,
    worktree: `/tmp/worktrees/r1/${id}`,
  };
}

export const CHECKS = [
  { name: 'basic', score: 40 },
  { name: 'unicode', score: 30 },
  { name: 'edges', score: 30 },
];

export function check(name: string, passed: boolean, outputTail = ''): CheckOutcome {
  const maxPoints = CHECKS.find((k) => k.name === name)?.score ?? 1;
  // A failed check carries its failing part, cut as the engine cuts it (src/checks/run-checks.ts).
  const excerpt = passed ? {} : { excerpt: failureExcerpt(outputTail) };
  return { name, passed, points: passed ? maxPoints : 0, maxPoints, exitCode: passed ? 0 : 1, timedOut: false, durationMs: 320, outputTail, ...excerpt };
}

export function runStarted(candidates: readonly CandidateInfo[], over: Partial<Extract<UnstampedEvent, { type: 'run.started' }>> = {}): UnstampedEvent {
  return {
    type: 'run.started',
    runId: 'r1',
    name: 'demo',
    repo: '/tmp/repo',
    base: 'HEAD',
    baseCommit: 'b'.repeat(40),
    runDir: '/tmp/repo/.bestof/runs/r1',
    specPath: '/tmp/repo/bestof.toml',
    candidates,
    checks: CHECKS,
    maxScore: 100,
    scoreThreshold: 100,
    maxIterations: 3,
    mergeMode: 'branch',
    ...over,
  };
}

export const finished = (
  id: string,
  status: 'done' | 'failed' | 'stopped' | 'cancelled',
  reason: Extract<UnstampedEvent, { type: 'candidate.finished' }>['reason'],
  score: number,
  extra: Partial<Extract<UnstampedEvent, { type: 'candidate.finished' }>> = {},
): UnstampedEvent => ({
  type: 'candidate.finished',
  candidate: id,
  status,
  reason,
  iterations: 1,
  score,
  commit: score > 0 ? `${id}`.padEnd(40, 'a') : undefined,
  diff: { files: 1, insertions: 9, deletions: 1 },
  durationMs: 4200,
  costUsd: 0.021,
  ...extra,
});

/**
 * Four candidates in mixed states: c1 done with every check, c2 in its second iteration
 * after scoring 40, c3 failed (its agent could not log in), c4 still queued.
 */
export function mixedRun(): RunEvent[] {
  return stamp([
    runStarted([candidate(1, 'thorough'), candidate(2, 'hasty', 'command', 'sonnet'), candidate(3, 'broken', 'command', 'gpt-5'), candidate(4, 'late')]),
    { type: 'candidate.status', candidate: 'c1', status: 'setup', iteration: 0 },
    { type: 'candidate.status', candidate: 'c2', status: 'setup', iteration: 0 },
    { type: 'candidate.status', candidate: 'c3', status: 'setup', iteration: 0 },
    { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 },
    { type: 'candidate.activity', candidate: 'c1', iteration: 1, text: '\u001b[32mReading\u001b[0m configs/demo/test\r\n' },
    {
      type: 'provider.finished',
      candidate: 'c1',
      iteration: 1,
      outcome: 'success',
      costUsd: 0.021,
      usage: { input: 5200, output: 410, cacheRead: 0, cacheWrite: 0 },
      turns: 3,
      durationMs: 2000,
    },
    { type: 'candidate.committed', candidate: 'c1', iteration: 1, commit: 'c1'.padEnd(40, 'a'), changedFiles: 1 },
    { type: 'candidate.status', candidate: 'c1', status: 'checking', iteration: 1 },
    { type: 'check.finished', candidate: 'c1', iteration: 1, check: check('basic', true) },
    { type: 'check.finished', candidate: 'c1', iteration: 1, check: check('unicode', true) },
    { type: 'check.finished', candidate: 'c1', iteration: 1, check: check('edges', true) },
    { type: 'candidate.scored', candidate: 'c1', iteration: 1, score: 100, maxScore: 100, failedChecks: [] },
    finished('c1', 'done', 'threshold_reached', 100),
    { type: 'candidate.status', candidate: 'c2', status: 'running', iteration: 1 },
    {
      type: 'provider.finished',
      candidate: 'c2',
      iteration: 1,
      outcome: 'success',
      costUsd: 0.005,
      usage: { input: 1200, output: 90, cacheRead: 0, cacheWrite: 0 },
      turns: 1,
      durationMs: 900,
    },
    { type: 'candidate.committed', candidate: 'c2', iteration: 1, commit: 'c2'.padEnd(40, 'a'), changedFiles: 1 },
    { type: 'check.finished', candidate: 'c2', iteration: 1, check: check('basic', true) },
    {
      type: 'check.finished',
      candidate: 'c2',
      iteration: 1,
      check: check('unicode', false, 'not ok 1 - strips accents\n  expected: "creme-brulee"\n  actual: "cr-me-br-l-e"'),
    },
    { type: 'check.finished', candidate: 'c2', iteration: 1, check: check('edges', false, 'not ok 1 - trims dashes') },
    { type: 'candidate.scored', candidate: 'c2', iteration: 1, score: 40, maxScore: 100, failedChecks: ['unicode', 'edges'] },
    { type: 'candidate.status', candidate: 'c2', status: 'running', iteration: 2 },
    { type: 'candidate.activity', candidate: 'c2', iteration: 2, text: 'Fixing the accents: normalize NFKD then drop combining marks' },
    { type: 'candidate.status', candidate: 'c3', status: 'running', iteration: 1 },
    {
      type: 'provider.finished',
      candidate: 'c3',
      iteration: 1,
      outcome: 'auth_error',
      message: 'OPENAI_API_KEY is not set',
      costUsd: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      turns: 0,
      durationMs: 100,
    },
    finished('c3', 'failed', 'auth_error', 0, {
      message: 'OPENAI_API_KEY is not set',
      commit: undefined,
      diff: { files: 0, insertions: 0, deletions: 0 },
      costUsd: 0,
    }),
    { type: 'run.warning', message: 'the checkout has uncommitted changes; a merge would be refused' },
  ]);
}

/** The demo's three candidates, finished: c1 wins with 100, c2 gets 40, c3 tampered and gets 0. */
export function finishedRun(): RunEvent[] {
  const cs = [candidate(1, 'thorough'), candidate(2, 'hasty'), candidate(3, 'gamer')];
  const scored = (id: string, iteration: number, score: number, passed: readonly string[]): UnstampedEvent[] => [
    { type: 'candidate.status', candidate: id, status: 'running', iteration },
    {
      type: 'provider.finished',
      candidate: id,
      iteration,
      outcome: 'success',
      costUsd: 0.01,
      usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 },
      turns: 1,
      durationMs: 500,
    },
    { type: 'candidate.committed', candidate: id, iteration, commit: id.padEnd(40, 'a'), changedFiles: 1 },
    ...CHECKS.map((k): UnstampedEvent => ({ type: 'check.finished', candidate: id, iteration, check: check(k.name, passed.includes(k.name)) })),
    { type: 'candidate.scored', candidate: id, iteration, score, maxScore: 100, failedChecks: CHECKS.map((k) => k.name).filter((n) => !passed.includes(n)) },
  ];
  return stamp([
    runStarted(cs),
    ...scored('c1', 1, 100, ['basic', 'unicode', 'edges']),
    finished('c1', 'done', 'threshold_reached', 100),
    ...scored('c2', 1, 40, ['basic']),
    finished('c2', 'done', 'max_iterations', 40, { diff: { files: 1, insertions: 3, deletions: 1 } }),
    ...scored('c3', 1, 0, []),
    { type: 'candidate.tampered', candidate: 'c3', iteration: 1, paths: [{ path: 'configs/demo/test/basic.test.mjs', change: 'modified' }] },
    finished('c3', 'done', 'max_iterations', 0, { commit: 'c3'.padEnd(40, 'a'), diff: { files: 2, insertions: 5, deletions: 20 } }),
    {
      type: 'selection.finished',
      ranking: [
        { candidate: 'c1', rank: 1, score: 100, maxScore: 100, costUsd: 0.01, diffSize: 10, durationMs: 4200, iterations: 1, eligible: true },
        { candidate: 'c2', rank: 2, score: 40, maxScore: 100, costUsd: 0.01, diffSize: 4, durationMs: 4200, iterations: 1, eligible: true },
        {
          candidate: 'c3',
          rank: 3,
          score: 0,
          maxScore: 100,
          costUsd: 0.01,
          diffSize: 25,
          durationMs: 4200,
          iterations: 1,
          eligible: false,
          reason: 'passed no check',
        },
      ],
      winner: 'c1',
      message: 'c1 wins with 100 of 100 points',
    },
    {
      type: 'merge.finished',
      candidate: 'c1',
      mode: 'branch',
      ok: true,
      branch: 'bestof/r1/c1',
      message: "the winner's work is on branch bestof/r1/c1 (merge it with `git merge bestof/r1/c1`)",
    },
    { type: 'run.finished', status: 'winner', exitCode: 0, winner: 'c1', durationMs: 6100, message: 'c1 (thorough) won' },
  ]);
}

/** c2 chosen in the compare view after finishedRun() (c1 had won), merged with squash. */
export function winnerChosen(over: Partial<Extract<RunEvent, { type: 'winner.chosen' }>> = {}): Extract<RunEvent, { type: 'winner.chosen' }> {
  return {
    t: new Date(T0 + 600_000).toISOString(),
    type: 'winner.chosen',
    candidate: 'c2',
    previous: 'c1',
    mode: 'squash',
    ok: true,
    commit: 'd'.repeat(40),
    branch: 'bestof/r1/c2',
    message: 'merged bestof/r1/c2 (c2aaaaaaaa) into main (squash) as dddddddddd',
    by: 'user',
    ...over,
  };
}

export const DIFF_C2 = `diff --git a/configs/demo/slugify.mjs b/configs/demo/slugify.mjs
index 1111111..2222222 100644
--- a/configs/demo/slugify.mjs
+++ b/configs/demo/slugify.mjs
@@ -1,3 +1,5 @@
-export function slugify(title) { return title; }
+export function slugify(title) {
+  return title.toLowerCase().replace(/\\s+/g, '-');
+}
diff --git a/notes.md b/notes.md
new file mode 100644
--- /dev/null
+++ b/notes.md
@@ -0,0 +1 @@
+hasty notes
`;
