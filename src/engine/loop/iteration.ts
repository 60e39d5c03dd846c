/**
 * One iteration of a candidate's loop, as small steps over the LoopState:
 *
 *   prompt -> agent call (waits per the outcome table) -> commit -> frozen checks -> review
 *   -> score into the state -> reword the commit with the score -> keep it (ref and record)
 *   -> events and progress.md
 *   -> the after-iteration stop rules
 *
 * `runLoop` repeats it while the before-iteration rules allow. Each step takes the loop's
 * fixed context and a state, and returns a new state or a value; the rules it asks are in
 * ./stop-rules.ts, what each agent outcome means is in ./outcome-policy.ts.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { diffText } from '../../git/history/diff.js';
import { channelFile, readChannel } from './channel.js';
import { phaseOf, timeLeft, withChannelEntries, withScore, type LoopState } from './loop-state.js';
import type { PhasePlan } from '../plan/plan.js';
import { appendProgress } from './progress.js';
import { reportsCost } from '../../providers/definitions.js';
import { buildIterationPrompt } from './prompts.js';
import { runReview, type ReviewResult, type Verdict } from '../select/review.js';
import { agentSandbox, checkSandbox } from '../sandbox/agent-sandbox.js';
import { CHECK_LOGS_DIR, iterationDir } from '../record/run-folder.js';
import { scoreCommit, type Scoring } from '../scoring/score.js';
import { keptAsInBase, type TamperedPath } from '../../checks/frozen.js';
import { keptFilesChangedMessage } from '../workspace/kept-files-watch.js';
import { stopAfterIteration, stopBeforeIteration, type Stop } from './stop-rules.js';
import { callProvider, stopAfterCall, watchAgentCall } from './agent-call.js';
import { commitWork, keepCommitted, rewordWithScore, type CommittedWork } from './commit-step.js';
import { listFew } from '../words.js';
import type { LoopContext } from './loop-context.js';
import type { PendingIteration } from './pending-scoring.js';

export interface IterationStep {
  readonly state: LoopState;
  /** Set when the loop ends with this iteration. */
  readonly stop?: Stop;
}

/** Iterations until a stop rule holds. */
export async function runLoop(ctx: LoopContext, start: LoopState): Promise<{ state: LoopState; stop: Stop }> {
  let state = start;
  for (;;) {
    state = readChannelAtBoundary(ctx, state);
    const reachedBy = ctx.othersStop?.by;
    const before = stopBeforeIteration(state, ctx.limits, Date.now(), {
      aborted: ctx.signal.aborted,
      budgetBlocked: ctx.budget.blocked(ctx.candidate.id),
      ...(reachedBy ? { otherReachedThreshold: { by: reachedBy, keptAt: ctx.candidate.ref } } : {}),
    });
    if (before) return { state, stop: before };
    const step = await runIteration(ctx, state);
    if (step.stop) return { state: step.state, stop: step.stop };
    state = step.state;
  }
}

/** What was sent through the channel since the last boundary (nothing is read after a cancel). */
export function readChannelAtBoundary(ctx: LoopContext, state: LoopState): LoopState {
  if (ctx.signal.aborted) return state;
  const read = readChannel(channelFile(ctx.plan.runDir, ctx.candidate.id), state.channelConsumed);
  const next = withChannelEntries(state, read.entries, read.consumed);
  for (const entry of next.seen) ctx.emit({ type: 'channel.received', candidate: ctx.candidate.id, kind: entry.kind, text: entry.text });
  return next.state;
}

export async function runIteration(ctx: LoopContext, before: LoopState): Promise<IterationStep> {
  const { plan, candidate } = ctx;
  const iteration = before.iteration + 1;
  const phase = phaseOf(before, plan.phases);
  const artifactsDir = iterationDir(plan.runDir, candidate.id, iteration);
  await mkdir(artifactsDir, { recursive: true });
  emitStatus(ctx, 'running', iteration, phase);
  const prompt = iterationPrompt(ctx, { ...before, iteration }, phase, Date.now());
  let state: LoopState = { ...before, iteration, pendingMessages: [] };

  const watch = await watchAgentCall(ctx);
  const call = await callProvider(ctx, state, { prompt, artifactsDir, model: phase?.model ?? candidate.model });
  const { tampered: gitDirTampered, branchesAfter } = await watch.restore(iteration);
  state = { ...state, lastOutcome: call.result.outcome, lastMessage: call.result.message };
  // Commit before anything else: a crash, a timeout or a cancel keeps what was written. The
  // commit is on the candidate's branch now; it is kept (ref and record) once reworded with its score.
  const committed = await commitWork(ctx, state, `iteration ${iteration}`, { before: watch.branchesBefore, after: branchesAfter });
  state = committed.state;
  const stop = stopAfterCall(call, ctx.signal.aborted);
  if (stop) {
    state = await keepCommitted(ctx, committed);
    if (gitDirTampered.length > 0) ctx.emit({ type: 'candidate.tampered', candidate: candidate.id, iteration, paths: gitDirTampered });
    return { state, stop };
  }

  return scoreIteration(ctx, state, committed, { phase, artifactsDir, gitDirTampered, costUsd: call.costUsd });
}

/**
 * On resume, the iteration whose agent finished and whose work was committed but not scored
 * (./pending-scoring.ts): scored now, on the candidate's head, without calling its agent again.
 * `reused`: what the commit step found in a worktree the stopped run left (work written after the
 * last commit, or a commit not yet kept), already labelled with the pending iteration.
 */
export async function scorePendingIteration(
  ctx: LoopContext,
  before: LoopState,
  pending: PendingIteration,
  reused: CommittedWork | undefined,
): Promise<IterationStep> {
  const { plan, candidate } = ctx;
  const phase = phaseOf(before, plan.phases);
  const artifactsDir = iterationDir(plan.runDir, candidate.id, pending.iteration);
  await mkdir(artifactsDir, { recursive: true });
  // The normal path after a Ctrl-C during the checks: said as what the candidate does, not as a warning.
  ctx.emit({
    type: 'candidate.activity',
    candidate: candidate.id,
    iteration: pending.iteration,
    text: `scoring iteration ${pending.iteration}, committed before the run stopped: its agent is not called again for it`,
  });
  const state = reused?.state ?? before;
  const head = state.head;
  // The commit may be the agent's own, or one already kept: its message is left as it is.
  const changed = reused?.changed === true || (head !== undefined && head !== pending.previousCommit);
  const committed: CommittedWork = reused ? { ...reused, changed } : { state: { ...state, headIsOurs: false }, changed, changedFiles: 0 };
  return scoreIteration(ctx, committed.state, committed, { phase, artifactsDir, gitDirTampered: [], costUsd: 0 });
}

/** What the scoring half of an iteration takes from its agent half. */
interface AgentHalf {
  readonly phase: PhasePlan | undefined;
  readonly artifactsDir: string;
  /** What the agent changed in the shared git dir (put back): frozen tampering. */
  readonly gitDirTampered: readonly TamperedPath[];
  readonly costUsd: number;
}

/**
 * The scoring half of an iteration, on the commit its agent half made: the frozen checks, the
 * review, the score into the state, the reword, the kept ref, the events, the after-iteration rules.
 */
async function scoreIteration(ctx: LoopContext, scored: LoopState, made: CommittedWork, half: AgentHalf): Promise<IterationStep> {
  const { plan, candidate } = ctx;
  const { phase, artifactsDir, gitDirTampered } = half;
  const iteration = scored.iteration;
  let state = scored;
  let committed = made;
  emitStatus(ctx, 'checking', iteration, phase);
  const checked = await checkIteration(ctx, state, artifactsDir, { worktreeIsCommit: committed.worktreeIsCommit === true });
  let scoring: Scoring = { ...checked, tampered: [...gitDirTampered, ...checked.tampered] };
  if (checked.setupRebuilt) ctx.emit({ type: 'run.warning', candidate: candidate.id, message: setupRebuiltMessage(candidate.id, checked.setupRebuilt) });
  if (checked.keptFilesChanged)
    ctx.emit({ type: 'run.warning', candidate: candidate.id, message: keptFilesChangedMessage(candidate.id, checked.keptFilesChanged) });
  if (checked.headMovedFrom) {
    ctx.emit({
      type: 'run.warning',
      candidate: candidate.id,
      message: `${candidate.id}'s branch was moved to ${checked.headMovedFrom.slice(0, 10)} after its agent ended (by another agent: without the sandbox any agent can move any branch); bestof put it back at ${state.head?.slice(0, 10)} and scored that`,
    });
  }
  if (scoring.interrupted && ctx.signal.aborted) return { state: await keepCommitted(ctx, committed), stop: { reason: 'cancelled' } };
  if (scoring.tampered.length > 0) ctx.emit({ type: 'candidate.tampered', candidate: candidate.id, iteration, paths: scoring.tampered });
  const review = await reviewIteration(ctx, state, phase, artifactsDir);
  if (review.tampered.length > 0) {
    ctx.emit({ type: 'candidate.tampered', candidate: candidate.id, iteration, paths: review.tampered });
    scoring = { ...scoring, tampered: [...scoring.tampered, ...review.tampered] };
  }

  const failedChecks = scoring.checks.filter((c) => !c.passed);
  const maxScore = scoring.maxScore + (plan.review?.score ?? 0);
  state = withScore(
    state,
    {
      // Kept files changed while the checks ran: the iteration counts no point, the review's neither.
      score: scoring.keptFilesChanged ? 0 : scoring.score + review.points,
      maxScore,
      failedChecks,
      ...(review.refuseReason ? { refuseReason: review.refuseReason } : {}),
      tampered: scoring.tampered.map((t) => t.path),
      ...(committed.leftOut ? { leftOut: committed.leftOut } : {}),
      changed: committed.changed,
    },
    plan,
  );
  committed = await rewordWithScore(ctx, { ...committed, state });
  state = await keepCommitted(ctx, committed);
  reportScore(ctx, state, {
    phase,
    maxScore,
    failedChecks: failedChecks.map((c) => c.name),
    costUsd: half.costUsd,
    changed: committed.changed,
    review,
    scoring,
  });
  const after = stopAfterIteration(state, ctx.limits);
  return after ? { state, stop: after } : { state };
}

function emitStatus(ctx: LoopContext, status: 'running' | 'checking' | 'reviewing', iteration: number, phase: PhasePlan | undefined): void {
  ctx.emit({ type: 'candidate.status', candidate: ctx.candidate.id, status, iteration, ...(phase ? { phase: phase.name } : {}) });
}

/** The prompt of the iteration `state.iteration`; `state.feedback` is what the previous one left. */
export function iterationPrompt(ctx: Pick<LoopContext, 'plan' | 'candidate' | 'budget'>, state: LoopState, phase: PhasePlan | undefined, now: number): string {
  const { plan } = ctx;
  const left = timeLeft(state, now);
  const budgetLeft = ctx.budget.left(ctx.candidate.id);
  return buildIterationPrompt({
    task: plan.prompt,
    ...(plan.retryTemplate !== undefined ? { retryTemplate: plan.retryTemplate } : {}),
    ...(phase ? { phase: { name: phase.name, prompt: phase.prompt } } : {}),
    rules: { kept: keptAsInBase(plan.spec.checks), editable: plan.spec.checks.editable, ...(plan.runner ? { runner: plan.runner.patterns } : {}) },
    iteration: state.iteration,
    maxIterations: plan.maxIterations,
    ...(state.feedback ? { feedback: state.feedback } : {}),
    messages: state.pendingMessages,
    ...(plan.spec.prompt.output_file ? { outputFile: plan.spec.prompt.output_file } : {}),
    ...(left !== undefined ? { timeLeftMs: left } : {}),
    ...(budgetLeft !== undefined ? { budgetLeftUsd: budgetLeft } : {}),
  });
}

/** What the run says when an agent changed setup's output (../workspace/setup-guard.ts). */
export function setupRebuiltMessage(candidate: string, rebuilt: NonNullable<Scoring['setupRebuilt']>): string {
  const shown = listFew(rebuilt.changed, 3);
  const after = rebuilt.error
    ? `setup ran again before the checks and failed: ${rebuilt.error}`
    : 'they are not its work: setup ran again, and the checks saw what setup makes';
  const removed = rebuilt.removed?.length ? `; what setup left beside the paths it makes (${listFew(rebuilt.removed, 3)}) was removed for the checks` : '';
  return `${candidate}'s agent changed what setup made (${shown}); ${after}${removed}`;
}

/**
 * The frozen checks that count in this iteration (curriculum: `from_iteration`), on the candidate's
 * commit. `afterCommitStep`: commitWork has just run in this worktree, no agent since: it left HEAD
 * on the candidate's branch at `state.head` and cleared the index's assume-unchanged /
 * skip-worktree bits, which the scoring tree then need not read again (ScoringTreeOptions.justCommitted).
 */
export async function checkIteration(
  ctx: LoopContext,
  state: LoopState,
  artifactsDir: string,
  afterCommitStep?: { readonly worktreeIsCommit: boolean },
): Promise<Scoring> {
  const { plan, candidate } = ctx;
  const reference = await ctx.baseTests?.();
  return scoreCommit({
    worktree: candidate.worktree,
    baseCommit: plan.baseCommit,
    commit: state.head ?? plan.baseCommit,
    frozen: keptAsInBase(plan.spec.checks),
    editable: plan.spec.checks.editable,
    runner: plan.runner,
    checks: plan.spec.checks.items.filter((check) => check.from_iteration <= state.iteration),
    keepPaths: ctx.setupPaths,
    setupGuard: ctx.setupGuard,
    justCommitted: afterCommitStep ? { branchRef: `refs/heads/${candidate.branch}`, worktreeIsCommit: afterCommitStep.worktreeIsCommit } : undefined,
    env: ctx.checkEnv,
    checkSandbox: (home) => checkSandbox(plan, candidate, ctx.checkEnv, home),
    logDir: join(artifactsDir, CHECK_LOGS_DIR),
    logRedactor: () => ctx.secrets.createStreamRedactor(),
    signal: ctx.signal,
    onCheck: (check) => ctx.emit({ type: 'check.finished', candidate: candidate.id, iteration: state.iteration, check }),
    ...(reference ? { reference } : {}),
  });
}

export interface ReviewSummary {
  readonly points: number;
  /** What the reviewer's call changed in the shared git dir (put back; it counts against the candidate). */
  readonly tampered: readonly TamperedPath[];
  readonly refuseReason?: string;
  /** For progress.md. */
  readonly note?: string;
}

/** The reviewer's verdict on the candidate's diff so far, when the spec has a review and there is a diff. */
export async function reviewIteration(ctx: LoopContext, state: LoopState, phase: PhasePlan | undefined, artifactsDir: string): Promise<ReviewSummary> {
  const { plan, candidate, reviewer } = ctx;
  const head = state.head;
  if (!reviewer || !plan.review || !head) return { points: 0, tampered: [] };
  emitStatus(ctx, 'reviewing', state.iteration, phase);
  const watch = await watchAgentCall(ctx, 'reviewer');
  let review: ReviewResult;
  try {
    review = await runReview({
      provider: reviewer,
      model: plan.review.settings.model,
      promptFile: plan.review.promptFile,
      task: plan.prompt,
      diff: await diffText(plan.repoRoot, plan.baseCommit, head),
      worktree: candidate.worktree,
      commit: head,
      keepPaths: ctx.setupPaths,
      candidateId: candidate.id,
      iteration: state.iteration,
      timeoutMs: plan.review.timeoutMs,
      env: ctx.checkEnv,
      artifactsDir,
      signal: ctx.signal,
      redact: ctx.secrets.redact,
      logRedactor: () => ctx.secrets.createStreamRedactor(),
      sandbox: agentSandbox(plan, candidate, ctx.checkEnv, 'reviewer'),
    });
  } catch (error) {
    await watch.restore(state.iteration);
    throw error;
  }
  const { tampered } = await watch.restore(state.iteration);
  const warning = ctx.budget.record(candidate.id, review.costUsd);
  if (warning) ctx.emit({ type: 'run.warning', message: warning });
  // A reviewer that changed the git dir gave no verdict worth points.
  const verdict: Verdict = tampered.length > 0 ? { verdict: 'none', reason: 'the reviewer changed the git dir (put back)' } : review.verdict;
  const points = verdict.verdict === 'lgtm' ? plan.review.score : 0;
  ctx.emit({
    type: 'review.finished',
    candidate: candidate.id,
    iteration: state.iteration,
    verdict: verdict.verdict,
    ...(verdict.verdict === 'lgtm' ? {} : { reason: verdict.reason }),
    points,
    attempts: review.attempts,
  });
  switch (verdict.verdict) {
    case 'lgtm':
      return { points, tampered, note: `LGTM (+${points})` };
    case 'refuse':
      return { points, tampered, refuseReason: verdict.reason, note: `REFUSE: ${verdict.reason}` };
    case 'none':
      return { points, tampered, note: `no verdict (${verdict.reason})` };
  }
}

function reportScore(
  ctx: LoopContext,
  state: LoopState,
  at: {
    readonly phase: PhasePlan | undefined;
    readonly maxScore: number;
    readonly failedChecks: readonly string[];
    readonly costUsd: number;
    readonly changed: boolean;
    readonly review: ReviewSummary;
    readonly scoring: Scoring;
  },
): void {
  const { plan, candidate } = ctx;
  ctx.emit({
    type: 'candidate.scored',
    candidate: candidate.id,
    iteration: state.iteration,
    score: state.lastScore,
    maxScore: at.maxScore,
    failedChecks: at.failedChecks,
    ...(plan.review ? { reviewPoints: at.review.points } : {}),
  });
  appendProgress(plan.runDir, candidate.id, {
    iteration: state.iteration,
    ...(at.phase ? { phase: at.phase.name } : {}),
    score: state.lastScore,
    maxScore: at.maxScore,
    failedChecks: at.failedChecks,
    outcome: state.lastOutcome ?? 'success',
    costUsd: at.costUsd,
    totalCostUsd: ctx.budget.spentBy(candidate.id),
    costKnown: at.costUsd > 0 || reportsCost(candidate.provider),
    ...(at.changed && state.head ? { commit: state.head } : {}),
    ...(at.review.note ? { review: at.review.note } : {}),
    tampered: at.scoring.tampered.map((t) => t.path),
  });
}
