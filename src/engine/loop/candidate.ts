/**
 * One candidate, from its worktree to the end of its loop.
 *
 *   setup (worktree, copies, setup commands)
 *   loop:  channel -> stop rules before the iteration -> runIteration:
 *            prompt -> provider (waits out rate limits) -> commit -> frozen checks -> review
 *            -> commit reworded with the score -> candidate.scored, progress.md
 *            -> stop rules after the iteration
 *   end:   candidate.finished with the loop's score; providers closed; CandidateEnd returned
 *
 * The state: everything the loop knows is one immutable LoopState (./loop-state.ts:
 * iteration, head, last score and outcome, the next prompt's feedback, channel messages,
 * breaker streaks, phase position, deadlines). Each step returns a new one.
 * The rules: ./stop-rules.ts holds every stop rule as a pure function of that state, in
 * order of precedence, and the final status of each StopReason.
 * The outcomes: ./outcome-policy.ts is one exhaustive table of what each agent outcome does
 * (retry, wait, stop, next prompt, breaker); ./iteration.ts holds the steps, with the agent call
 * in ./agent-call.ts and the commits in ./commit-step.ts.
 *
 * The promise: whatever happens (a crash, a timeout, a cancel, a cap), what the agent wrote
 * is committed on the candidate's branch and kept under refs/bestof/<run>/<candidate>/kept before
 * this returns. A resumed candidate picks up its history from the event log and goes on.
 * Final scoring (every check, curriculum included) is a stage of the run after every loop: it
 * re-scores from the CandidateEnd returned here.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { diffStat, diffSummary } from '../../git/history/diff.js';
import type { Provider } from '../../providers/types.js';
import type { BudgetLedger } from './budget.js';
import type { SecretSet } from '../sandbox/secrets.js';
import { candidateEnv, checkEnv } from '../plan/candidate-env.js';
import type { UnstampedEvent } from '../record/events.js';
import { commitWork, keepCommitted } from './commit-step.js';
import { runLoop, scorePendingIteration } from './iteration.js';
import type { LoopContext } from './loop-context.js';
import type { BaseTests } from '../scoring/base-reference.js';
import { initialLoopState, type LoopState } from './loop-state.js';
import { HARD_ITERATION_LIMIT, type CandidatePlan, type RunPlan } from '../plan/plan.js';
import { candidateDir, setupPathsFile } from '../record/run-folder.js';
import type { IterationState } from '../record/run-state.js';
import { finalVerdict, stopBeforeStart, type LoopLimits, type Stop } from './stop-rules.js';
import { pendingIteration } from './pending-scoring.js';
import type { StopReason } from '../record/run-types.js';
import { createSetupGuard, type SetupGuard } from '../workspace/setup-guard.js';
import { prepareWorkspace, redoSetup, type WorkspaceOptions } from '../workspace/workspace.js';
import { cowLayerDir } from '../workspace/cow-layout.js';
import type { OverlayMounts } from '../../git/worktrees/cow-worktree.js';
import type { OthersStop } from './others-stop.js';

export interface CandidateResume {
  /** Iterations recorded in the event log (the last one may be unfinished). */
  readonly iterations: readonly IterationState[];
  readonly head: string | undefined;
  /** Channel lines already read before the interruption. */
  readonly channelConsumed: number;
  readonly elapsedMs: number;
}

export interface CandidateContext {
  readonly plan: RunPlan;
  readonly signal: AbortSignal;
  readonly emit: (event: UnstampedEvent) => void;
  /** Runs a provider call under the per-provider-kind concurrency limit. */
  readonly limitProvider: <T>(candidate: CandidatePlan, call: () => Promise<T>) => Promise<T>;
  readonly createProvider: (candidate: CandidatePlan) => Provider;
  readonly createReviewer?: () => Provider;
  readonly budget: BudgetLedger;
  readonly secrets: SecretSet;
  /** Date.now() past which the run starts no new work (`loop.run_duration`). */
  readonly runDeadline?: number;
  readonly resume?: CandidateResume;
  /** Copy-on-write worktrees: the run's shared base checkout is ready at `lower` (../run/stages/candidates.ts). */
  readonly cow?: { readonly lower: string; readonly mounts: OverlayMounts };
  /** Base's tests for the report checks (LoopContext.baseTests). */
  readonly baseTests?: (() => Promise<BaseTests | undefined>) | undefined;
  /** `[select] stop_others = "on_threshold"`: the run's flag (./others-stop.ts). @default never set */
  readonly othersStop?: OthersStop | undefined;
}

/** How a candidate's loop ended: what the final-scoring phase needs to score it again. */
export interface CandidateEnd {
  /** Its last commit; undefined when it never changed anything. */
  readonly head: string | undefined;
  readonly iteration: number;
  /** Untracked files from setup, kept through scoring and never committed. */
  readonly setupPaths: readonly string[];
  /** The watch over what setup made (../workspace/setup-guard.ts), for the final scoring; none when setup did not complete. */
  readonly setupGuard?: SetupGuard | undefined;
  /** The reason of its candidate.finished event. */
  readonly reason: StopReason;
}

export function loopLimits(plan: RunPlan): LoopLimits {
  const { spec } = plan;
  return {
    maxIterations: plan.maxIterations,
    requestedIterations: plan.requestedIterations,
    hardIterationLimit: HARD_ITERATION_LIMIT,
    phaseCount: plan.phases.length,
    scoreThreshold: plan.scoreThreshold,
    allowRegression: spec.loop.allow_regression,
    breaker: {
      sameFailureIterations: spec.breaker.same_failure_iterations,
      errorIterations: spec.breaker.error_iterations,
      noDiffIterations: spec.breaker.no_diff_iterations,
    },
    ...(spec.budget.max_total_cost_usd !== undefined ? { maxTotalCostUsd: spec.budget.max_total_cost_usd } : {}),
    ...(spec.budget.max_candidate_cost_usd !== undefined ? { maxCandidateCostUsd: spec.budget.max_candidate_cost_usd } : {}),
  };
}

export async function runCandidate(ctx: CandidateContext, candidate: CandidatePlan): Promise<CandidateEnd> {
  const { plan, signal, emit } = ctx;
  const { spec } = plan;
  const id = candidate.id;
  let state = initialLoopState(plan, {
    now: Date.now(),
    candidateDurationMs: spec.loop.duration,
    runDeadline: ctx.runDeadline,
    ...(ctx.resume
      ? { history: ctx.resume.iterations, head: ctx.resume.head, channelConsumed: ctx.resume.channelConsumed, elapsedMs: ctx.resume.elapsedMs }
      : {}),
  });

  await mkdir(candidateDir(plan.runDir, id), { recursive: true });
  const reachedBy = ctx.othersStop?.by;
  const tooLate = stopBeforeStart(state, Date.now(), reachedBy ? { otherReachedThreshold: { by: reachedBy, keptAt: candidate.ref } } : {});
  if (tooLate) return finish(ctx, candidate, state, tooLate, []);

  emit({ type: 'candidate.status', candidate: id, status: 'setup', iteration: state.iteration });
  const agentEnv = candidateEnv(plan, candidate);
  const workspaceOptions: WorkspaceOptions = {
    mode: ctx.resume ? 'resume' : 'new',
    repoRoot: plan.repoRoot,
    worktree: candidate.worktree,
    branch: candidate.branch,
    keptRef: candidate.ref,
    baseCommit: plan.baseCommit,
    copy: spec.setup.copy,
    link: spec.setup.link,
    commands: spec.setup.commands,
    commandTimeoutMs: spec.setup.timeout,
    env: agentEnv,
    logFile: join(candidateDir(plan.runDir, id), 'setup.log'),
    logRedactor: () => ctx.secrets.createStreamRedactor(),
    setupPathsFile: setupPathsFile(plan.runDir, id),
    onProgress: (progress) => emit({ type: 'candidate.setup_progress', candidate: id, ...progress }),
    sandboxed: plan.sandbox.enabled,
    ...(ctx.cow ? { cow: { lower: ctx.cow.lower, layer: cowLayerDir(candidate.worktree), mounts: ctx.cow.mounts } } : {}),
    signal,
  };
  const prepared = await prepareWorkspace(workspaceOptions);
  if (!prepared.ok) {
    const { message, infrastructure } = prepared.error;
    emit({ type: 'candidate.setup', candidate: id, ok: false, message, copied: [] });
    // A failure of git or bestof (after retries) is not the candidate's: it was lost, not beaten,
    // and the run says so rather than crowning another (../run/stages/finish.ts).
    const stop: Stop = signal.aborted
      ? { reason: 'cancelled', message: 'cancelled during setup' }
      : infrastructure
        ? { reason: 'infrastructure_failed', message: `lost during setup: ${message}` }
        : { reason: 'setup_failed', message };
    return finish(ctx, candidate, state, stop, []);
  }
  const workspace = prepared.value;
  for (const warning of workspace.warnings) emit({ type: 'run.warning', candidate: id, message: warning });
  emit({ type: 'candidate.setup', candidate: id, ok: true, copied: workspace.copied });
  const setupGuard = createSetupGuard({
    worktree: candidate.worktree,
    setupPaths: workspace.setupPaths,
    redo: (redoSignal, sandbox) => redoSetup(workspaceOptions, workspace.setupPaths, redoSignal, sandbox),
  });
  // On resume the worktree's setup output is taken as it is found: what happened before cannot be known.
  await setupGuard.seal();

  const provider = ctx.createProvider(candidate);
  const reviewer = ctx.createReviewer?.();
  try {
    const loop: LoopContext = {
      plan,
      candidate,
      signal,
      emit,
      limitProvider: ctx.limitProvider,
      budget: ctx.budget,
      secrets: ctx.secrets,
      provider,
      reviewer,
      agentEnv,
      checkEnv: checkEnv(plan, candidate),
      setupPaths: workspace.setupPaths,
      setupGuard,
      limits: loopLimits(plan),
      baseTests: ctx.baseTests,
      othersStop: ctx.othersStop,
    };
    // The description asks the CLI its version, which can take seconds on a loaded machine: it is
    // asked while the loop runs, and recorded before the candidate's end.
    const describing = (provider.describe?.() ?? Promise.resolve(undefined)).then(
      (described) => {
        if (described) emit({ type: 'candidate.provider', candidate: id, ...described });
      },
      () => undefined,
    );
    // An iteration paid for but not scored when the run stopped is scored, not run again.
    const pending = ctx.resume ? pendingIteration(ctx.resume.iterations) : undefined;
    if (pending) state = { ...state, iteration: pending.iteration, lastOutcome: pending.outcome, lastMessage: pending.message };
    // A worktree left by a killed run may hold what the agent wrote after its last commit.
    const reused = workspace.reused
      ? await commitWork(loop, state, pending ? `iteration ${pending.iteration}` : `iteration ${state.iteration + 1} (interrupted; saved on resume)`)
      : undefined;
    const resumed = pending ? await scorePendingIteration(loop, state, pending, reused) : { state: reused ? await keepCommitted(loop, reused) : state };
    const ended = resumed.stop ? { state: resumed.state, stop: resumed.stop } : await runLoop(loop, resumed.state);
    await describing;
    return await finish(ctx, candidate, ended.state, ended.stop, workspace.setupPaths, setupGuard);
  } finally {
    // On every path out (an end, a cancel, a bug that throws): release the agents' sessions.
    await Promise.all([provider.close(), reviewer?.close()].map((closing) => closing?.catch(() => undefined)));
  }
}

/** candidate.finished with the loop's score and the final status of its stop reason. */
async function finish(
  ctx: CandidateContext,
  candidate: CandidatePlan,
  state: LoopState,
  stop: Stop,
  setupPaths: readonly string[],
  setupGuard?: SetupGuard,
): Promise<CandidateEnd> {
  const { plan } = ctx;
  const verdict = finalVerdict(stop, { outcome: state.lastOutcome, message: state.lastMessage });
  const diff = state.head ? diffSummary(await diffStat(plan.repoRoot, plan.baseCommit, state.head)) : { files: 0, insertions: 0, deletions: 0 };
  ctx.emit({
    type: 'candidate.finished',
    candidate: candidate.id,
    status: verdict.status,
    reason: verdict.reason,
    ...(verdict.message === undefined ? {} : { message: verdict.message }),
    iterations: state.iteration,
    score: state.lastScore,
    commit: state.head,
    diff,
    durationMs: Date.now() - state.startedAt,
    costUsd: ctx.budget.spentBy(candidate.id),
  });
  return { head: state.head, iteration: state.iteration, setupPaths, setupGuard, reason: verdict.reason };
}
