/**
 * Distinguish: tests that tell the finalists apart, between the vote and selection
 * (`[select.distinguish]`; docs/distinguish.md). The arithmetic is the pure core's
 * (src/distinguish/rank.ts); this stage gathers, asks, runs and records as `distinguish.*` events:
 *
 *   finalists  the candidates that can win (select.ts, without git's evidence), by score then
 *              `tie_break`: with `when = "tie"` those sharing the top score, with `"always"` the top
 *              ones; at most `max_finalists`. Fewer than 2: skipped
 *   budget     the tester's `max_cost_usd` (or this run's cost per agent call so far) against what
 *              `[budget] max_total_cost_usd` has left: skipped with the numbers when it cannot pay
 *   started    the seed, the shuffled labels, the finalists' commits (reused on resume)
 *   tester     its call (../../distinguish/tester.ts), or the interrupted step's files (../../distinguish/reuse.ts)
 *   runs       every kept file on every finalist's scored tree and on base, side by side under
 *              `[parallel] max_concurrency`; each run one `distinguish.run`
 *   finished   the agreement ranking and the sentence that says which rule decided
 *
 * Selection (./selection.ts) puts the finalists in the step's order. Nothing the tester wrote is
 * ever in a worktree but while a test runs, in a commit, or in the merge.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { rankByAgreement } from '../../../distinguish/rank.js';
import { BASE_TARGET, type DistinguishStart, type DistinguishState, type GeneratedTest, type TesterCall, type TestRun } from '../../../distinguish/types.js';
import { DISTINGUISH_FOLDER } from '../../../spec/schema-distinguish.js';
import { labelAt, seededRandom, seededShuffle } from '../../../vote/order.js';
import { WorktreeReplacedError } from '../../../git/guards/guard.js';
import { reattachWorktree } from '../../../git/history/checkpoint.js';
import { distinguishDir, TESTS_SUBDIR } from '../../distinguish/paths.js';
import { crossTests } from '../../distinguish/cross-tests.js';
import { reusableStep } from '../../distinguish/reuse.js';
import { runOnFinalist, testChecks, testRun, type FinalistTree } from '../../distinguish/run-tests.js';
import { callTester } from '../../distinguish/tester.js';
import type { CandidateState } from '../../record/run-state.js';
import { readSetupPaths, setupPathsFile } from '../../record/run-folder.js';
import { scoreOnBase } from '../../scoring/base-reference.js';
import { rankCandidates } from '../../select/select.js';
import { chooseFinalists } from '../../select/distinguish-order.js';
import { keptFilesChangedMessage } from '../../workspace/kept-files-watch.js';
import type { RunContext } from '../run-context.js';

const TIE_BREAK_ALONE = 'selection uses the tie-break';

export async function distinguish(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  const d = plan.distinguish;
  if (!d) return;
  const skip = (message: string): void => ctx.emit({ type: 'distinguish.skipped', message });
  const finalists = finalistsOf(ctx);
  if (finalists.length < 2) {
    skip(
      `no distinguishing tests: ${finalists.length === 0 ? 'no candidate can win' : d.spec.when === 'tie' ? `${finalists[0]?.id} alone has the top score` : `only ${finalists[0]?.id} can win`}; ${TIE_BREAK_ALONE}`,
    );
    return;
  }
  const unaffordable = budgetShortfall(ctx);
  if (unaffordable !== undefined) {
    skip(unaffordable);
    return;
  }
  const earlier = ctx.resume?.distinguish;
  const seed = d.spec.seed ?? (earlier?.start?.seed || randomBytes(8).toString('hex'));
  const shuffled = seededShuffle(
    finalists.map((c) => c.id),
    seededRandom(`${seed}\u0000tester`),
  );
  const start: DistinguishStart = {
    seed,
    when: d.spec.when,
    finalists: finalists.map((c) => c.id),
    commits: Object.fromEntries(finalists.map((c) => [c.id, c.commit as string])),
    labels: shuffled.map((candidate, i) => ({ candidate, label: labelAt(i) })),
    tester: { kind: d.settings.kind, ...(d.settings.model !== undefined ? { model: d.settings.model } : {}) },
    command: d.command,
    folder: DISTINGUISH_FOLDER,
    ...(d.spec.cross_tests ? { crossTests: true } : {}),
  };
  const testsDir = join(distinguishDir(plan.runDir), TESTS_SUBDIR);
  const reuse = await reusableStep(earlier, start, plan.sandbox.enabled, testsDir);
  ctx.emit({ type: 'distinguish.started', ...start });
  if (earlier?.call && 'none' in reuse) ctx.emit({ type: 'run.warning', message: `the distinguish step starts again and asks the tester anew: ${reuse.none}` });
  let call: TesterCall;
  if ('call' in reuse) {
    call = { ...reuse.call, reused: true };
  } else {
    const shown = start.labels.map((l) => ({ label: l.label, commit: start.commits[l.candidate] as string }));
    call = await callTester(ctx, { plan, distinguish: d, shown, folder: start.folder });
  }
  ctx.emit({ type: 'distinguish.tester', ...call });
  if (ctx.signal.aborted) return;
  if (call.error !== undefined || call.tests.length === 0) {
    skip(`${call.error ?? 'the tester wrote no test'}; ${TIE_BREAK_ALONE}`);
    return;
  }
  const cross = d.spec.cross_tests
    ? await crossTests(
        plan,
        start.finalists.map((id) => ({ id, commit: start.commits[id] as string })),
        d.spec.tests,
        ctx.signal,
      )
    : [];
  if (d.spec.cross_tests) ctx.emit({ type: 'distinguish.cross', tests: cross });
  const tests = [...call.tests, ...cross];
  const recorded = 'call' in reuse ? [...reuse.runs, ...sameCrossRuns(earlier, cross)] : [];
  for (const run of recorded) ctx.emit({ type: 'distinguish.run', ...run, reused: true });
  await runEverywhere(ctx, start, tests, recorded);
  if (ctx.signal.aborted) return;
  const result = rankByAgreement({ finalists: start.finalists, tests, runs: ctx.state().distinguish?.runs ?? [] });
  ctx.emit({ type: 'distinguish.finished', result, message: result.decided });
}

/** The interrupted step's runs of the rival tests that are the same now (id, author, digest): the commits are the same, so they are. */
function sameCrossRuns(earlier: DistinguishState | undefined, cross: readonly GeneratedTest[]): TestRun[] {
  const same = new Set(
    cross.filter((t) => earlier?.cross?.some((e) => e.id === t.id && e.author === t.author && e.digest === t.digest && e.file === t.file)).map((t) => t.id),
  );
  return (earlier?.runs ?? []).filter((r) => same.has(r.test));
}

/** The finalists, in the ranking's order (score, then `tie_break`). */
function finalistsOf(ctx: RunContext): CandidateState[] {
  const { plan } = ctx;
  const d = plan.distinguish!;
  const state = ctx.state();
  const candidates = state.order.map((id) => state.candidates[id]).filter((c): c is CandidateState => c !== undefined);
  const ranking = rankCandidates(candidates, {
    minScore: plan.spec.select.min_score,
    tieBreak: plan.spec.select.tie_break,
    allowTampered: plan.spec.select.allow_tampered,
  });
  return chooseFinalists(ranking, d.spec.when, d.spec.max_finalists).map((id) => state.candidates[id] as CandidateState);
}

/**
 * Why the tester cannot be paid for, or undefined. Its price is known only after the call: the
 * estimate is its `max_cost_usd`, or else this run's cost per agent call so far.
 */
function budgetShortfall(ctx: RunContext): string | undefined {
  const cap = ctx.plan.spec.budget.max_total_cost_usd;
  if (cap === undefined) return undefined;
  const own = ctx.plan.distinguish?.spec.max_cost_usd;
  const state = ctx.state();
  const calls = Object.values(state.candidates).reduce((n, c) => n + c.iterations.filter((it) => it.outcome !== undefined).length, 0);
  const perCall = calls > 0 ? ctx.budget.total / calls : 0;
  const needed = own ?? perCall;
  const left = cap - ctx.budget.total;
  if (left > 0 && needed <= left) return undefined;
  return (
    `no distinguishing tests: the tester may cost about $${needed.toFixed(2)} (${own !== undefined ? 'its max_cost_usd' : "this run's cost per agent call"}), ` +
    `and [budget] max_total_cost_usd = $${cap.toFixed(2)} has $${Math.max(0, left).toFixed(2)} left; ${TIE_BREAK_ALONE}. Raise max_total_cost_usd, or lower [select.distinguish] max_cost_usd`
  );
}

/** Every test on every finalist and on base that the record does not hold yet. */
async function runEverywhere(ctx: RunContext, start: DistinguishStart, tests: readonly GeneratedTest[], recorded: readonly TestRun[]): Promise<void> {
  const { plan } = ctx;
  const d = plan.distinguish!;
  const done = new Set(recorded.map((r) => `${r.test}\u0000${r.target}`));
  // A rival's test never runs on its author's code.
  const missing = (target: string): GeneratedTest[] => tests.filter((t) => t.author !== target && !done.has(`${t.id}\u0000${target}`));
  const onRun = (run: TestRun): void => ctx.emit({ type: 'distinguish.run', ...run });
  const options = { plan, secrets: ctx.secrets, signal: ctx.signal, onRun };
  const jobs = start.finalists.map((id) =>
    ctx.queue.add(async () => {
      const todo = missing(id);
      if (todo.length === 0 || ctx.signal.aborted) return;
      const checks = testChecks(plan, d, todo, start.folder);
      const finalist = await finalistTree(ctx, id, start.commits[id] as string);
      if (typeof finalist === 'string') {
        for (const t of todo) onRun({ test: t.id, target: id, outcome: 'failed', tail: finalist });
        return;
      }
      const scoring = await runOnFinalist({ ...options, checks }, finalist).catch((error: unknown) => {
        if (!(error instanceof WorktreeReplacedError)) throw error;
        return error.message;
      });
      if (typeof scoring === 'string') {
        ctx.emit({ type: 'run.warning', candidate: id, message: `the distinguishing tests could not run in its worktree: ${scoring}` });
        return;
      }
      if (scoring.keptFilesChanged) {
        ctx.emit({ type: 'run.warning', candidate: id, message: keptFilesChangedMessage(id, scoring.keptFilesChanged) });
        ctx.emit({ type: 'candidate.tampered', candidate: id, iteration: ctx.state().candidates[id]?.iteration ?? 0, paths: scoring.keptFilesChanged });
      }
    }),
  );
  jobs.push(
    ctx.queue.add(async () => {
      const todo = missing(BASE_TARGET);
      if (todo.length === 0 || ctx.signal.aborted) return;
      const checks = testChecks(plan, d, todo, start.folder);
      const ran = await scoreOnBase({ plan, secrets: ctx.secrets, signal: ctx.signal, emit: ctx.emit }, checks, {
        name: 'distinguish-base',
        logDir: join(distinguishDir(plan.runDir), 'logs', BASE_TARGET),
      });
      if (!ran.ok) {
        if (!ctx.signal.aborted) ctx.emit({ type: 'run.warning', message: `the distinguishing tests could not run on base: ${ran.error}` });
        return;
      }
      for (const outcome of ran.value) onRun(testRun(outcome, BASE_TARGET));
    }),
  );
  await Promise.all(jobs);
}

/** The finalist's worktree at its scored commit (made again after a kill -9 took it), or why it cannot be. */
async function finalistTree(ctx: RunContext, id: string, commit: string): Promise<FinalistTree | string> {
  const { plan } = ctx;
  const candidate = plan.candidates.find((c) => c.id === id);
  if (!candidate) return `no candidate ${id} in the plan`;
  if (ctx.resume) {
    const attached = await reattachWorktree(plan.repoRoot, candidate.worktree, candidate.branch);
    if (!attached.ok) return `its worktree could not be made again: ${attached.error}`;
  }
  const end = ctx.ends.of(id);
  return { candidate, commit, keepPaths: end?.setupPaths ?? readSetupPaths(setupPathsFile(plan.runDir, id)), setupGuard: end?.setupGuard };
}
