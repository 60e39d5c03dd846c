/**
 * One iteration of a candidate's loop, as small steps over the LoopState:
 *
 *   prompt -> agent call (waits per the outcome table) -> commit -> frozen checks -> review
 *   -> score into the state -> reword the commit with the score -> events and progress.md
 *   -> the after-iteration stop rules
 *
 * `runLoop` repeats it while the before-iteration rules allow. Each step takes the loop's
 * fixed context and a state, and returns a new state or a value; the rules it asks are in
 * ./stop-rules.ts, what each agent outcome means is in ./outcome-policy.ts.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rewordHead } from '../git/checkpoint.js';
import { branchTips, commitAll, reclaimHead } from '../git/commit.js';
import { watchGitDir } from '../git/guard.js';
import { diffText } from '../git/diff.js';
import { updateOwnRef } from '../git/refs.js';
import { resolveCommit } from '../git/repo.js';
import type { TamperedPath } from '../checks/frozen.js';
import type { Provider, ProviderResult } from '../providers/types.js';
import type { BudgetLedger } from './budget.js';
import { channelFile, readChannel } from './channel.js';
import type { UnstampedEvent } from './events.js';
import { phaseOf, timeLeft, withChannelEntries, withScore, type LoopState } from './loop-state.js';
import { OUTCOME_POLICY, planWait } from './outcome-policy.js';
import type { CandidatePlan, PhasePlan, RunPlan } from './plan.js';
import { appendProgress } from './progress.js';
import { buildIterationPrompt } from './prompts.js';
import { runReview } from './review.js';
import { agentSandbox } from './agent-sandbox.js';
import { iterationDir } from './run-folder.js';
import { scoreCommit, type Scoring } from './score.js';
import { stopAfterIteration, stopBeforeIteration, stopOutOfTime, type LoopLimits, type Stop } from './stop-rules.js';

/** What stays the same for the whole loop of one candidate. */
export interface LoopContext {
  readonly plan: RunPlan;
  readonly candidate: CandidatePlan;
  readonly signal: AbortSignal;
  readonly emit: (event: UnstampedEvent) => void;
  /** Runs an agent call under the per-provider-kind concurrency limit. */
  readonly limitProvider: <T>(candidate: CandidatePlan, call: () => Promise<T>) => Promise<T>;
  /** The run's money, shared by every candidate. */
  readonly budget: BudgetLedger;
  readonly provider: Provider;
  readonly reviewer: Provider | undefined;
  /** The agent's environment (the user's, the spec's `env`, the candidate's identity). */
  readonly agentEnv: Readonly<Record<string, string | undefined>>;
  /** The checks' (and the reviewer's) environment: never the agent's extra env. */
  readonly checkEnv: Readonly<Record<string, string | undefined>>;
  /** Untracked files from setup: never committed, kept through the checks. */
  readonly setupPaths: readonly string[];
  readonly limits: LoopLimits;
}

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
    const before = stopBeforeIteration(state, ctx.limits, Date.now(), { aborted: ctx.signal.aborted, budgetBlocked: ctx.budget.blocked(ctx.candidate.id) });
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
  const gitDirTampered = await watch.restore(iteration);
  state = { ...state, lastOutcome: call.result.outcome, lastMessage: call.result.message };
  // Commit before anything else: a crash, a timeout or a cancel keeps what was written.
  const committed = await commitWork(ctx, state, `iteration ${iteration}`, watch.branchesBefore);
  state = committed.state;
  const stop = stopAfterCall(call, ctx.signal.aborted);
  if (stop) {
    if (gitDirTampered.length > 0) ctx.emit({ type: 'candidate.tampered', candidate: candidate.id, iteration, paths: gitDirTampered });
    return { state, stop };
  }

  emitStatus(ctx, 'checking', iteration, phase);
  const checked = await checkIteration(ctx, state, artifactsDir);
  const scoring: Scoring = { ...checked, tampered: [...gitDirTampered, ...checked.tampered] };
  if (scoring.interrupted && ctx.signal.aborted) return { state, stop: { reason: 'cancelled' } };
  if (scoring.tampered.length > 0) ctx.emit({ type: 'candidate.tampered', candidate: candidate.id, iteration, paths: scoring.tampered });
  const review = await reviewIteration(ctx, state, phase, artifactsDir);

  const failedChecks = scoring.checks.filter((c) => !c.passed);
  const maxScore = scoring.maxScore + (plan.review?.score ?? 0);
  state = withScore(
    state,
    {
      score: scoring.score + review.points,
      maxScore,
      failedChecks,
      ...(review.refuseReason ? { refuseReason: review.refuseReason } : {}),
      tampered: scoring.tampered.map((t) => t.path),
      changed: committed.changed,
    },
    plan,
  );
  if (committed.changed) state = await rewordWithScore(ctx, state);
  reportScore(ctx, state, { phase, maxScore, failedChecks: failedChecks.map((c) => c.name), costUsd: call.costUsd, changed: committed.changed, review, scoring });
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
    iteration: state.iteration,
    maxIterations: plan.maxIterations,
    ...(state.feedback ? { feedback: state.feedback } : {}),
    messages: state.pendingMessages,
    ...(plan.spec.prompt.output_file ? { outputFile: plan.spec.prompt.output_file } : {}),
    ...(left !== undefined ? { timeLeftMs: left } : {}),
    ...(budgetLeft !== undefined ? { budgetLeftUsd: budgetLeft } : {}),
  });
}

export interface ProviderCall {
  /** The last call's result (after any waits). */
  readonly result: ProviderResult;
  /** What every call of this iteration cost together. */
  readonly costUsd: number;
  /** Set when the outcome ends the candidate (OUTCOME_POLICY: stop, a wait it cannot make, out of time). */
  readonly stop?: Stop;
}

/**
 * The agent call of an iteration; what follows each outcome is OUTCOME_POLICY's `call`:
 * go on, go on unless the time is up, wait and call again inside the same iteration, or stop.
 */
export async function callProvider(
  ctx: LoopContext,
  state: LoopState,
  request: { readonly prompt: string; readonly artifactsDir: string; readonly model: string | undefined },
): Promise<ProviderCall> {
  const { emit, signal, plan, candidate } = ctx;
  let costUsd = 0;
  for (let waits = 0; ; ) {
    const left = timeLeft(state, Date.now());
    const result = await runAgent(ctx, state.iteration, request, left);
    costUsd += result.costUsd;
    recordCall(ctx, state.iteration, result);
    if (signal.aborted) return { result, costUsd };

    const policy = OUTCOME_POLICY[result.outcome].call;
    switch (policy.kind) {
      case 'proceed':
        return { result, costUsd };
      case 'proceed_unless_out_of_time': {
        const stop = left !== undefined ? stopOutOfTime(state, Date.now()) : undefined;
        return stop ? { result: { ...result, message: stop.message }, costUsd, stop } : { result, costUsd };
      }
      case 'stop':
        // A cancel needs no message: the run says it was cancelled and how to resume.
        return { result, costUsd, stop: policy.reason === 'cancelled' ? { reason: 'cancelled' } : { reason: policy.reason, message: result.message ?? policy.reason } };
      case 'wait_and_retry': {
        waits += 1;
        const decision = planWait(policy, {
          attempt: waits,
          retryAfterMs: result.retryAfterMs,
          backoffMs: plan.spec.loop.rate_limit_backoff,
          maxRateLimitWaits: plan.spec.loop.max_rate_limit_waits,
          timeLeftMs: timeLeft(state, Date.now()),
        });
        if ('giveUp' in decision) {
          const message = `${result.message ?? policy.giveUp}; ${decision.giveUp}`;
          return { result: { ...result, message }, costUsd, stop: { reason: policy.giveUp, message } };
        }
        emit({ type: 'candidate.waiting', candidate: candidate.id, iteration: state.iteration, reason: policy.giveUp, waitMs: decision.waitMs, attempt: waits });
        await sleep(decision.waitMs, undefined, { signal }).catch(() => undefined);
        if (signal.aborted) return { result: { ...result, outcome: 'cancelled' }, costUsd };
        continue;
      }
    }
  }
}

function runAgent(
  ctx: LoopContext,
  iteration: number,
  request: { readonly prompt: string; readonly artifactsDir: string; readonly model: string | undefined },
  timeLeftMs: number | undefined,
): Promise<ProviderResult> {
  const { candidate, emit } = ctx;
  const timeoutMs = timeLeftMs !== undefined ? Math.max(1000, Math.min(candidate.settings.timeout, timeLeftMs)) : candidate.settings.timeout;
  return ctx.limitProvider(candidate, () =>
    ctx.provider.run({
      prompt: request.prompt,
      cwd: candidate.worktree,
      model: request.model,
      iteration,
      candidateId: candidate.id,
      env: ctx.agentEnv,
      timeoutMs,
      artifactsDir: request.artifactsDir,
      signal: ctx.signal,
      onActivity: (text) => emit({ type: 'candidate.activity', candidate: candidate.id, iteration, text: text.slice(0, 500) }),
      sandbox: agentSandbox(ctx.plan, candidate, ctx.agentEnv),
    }),
  );
}

function recordCall(ctx: LoopContext, iteration: number, result: ProviderResult): void {
  const warning = ctx.budget.record(ctx.candidate.id, result.costUsd);
  ctx.emit({
    type: 'provider.finished',
    candidate: ctx.candidate.id,
    iteration,
    outcome: result.outcome,
    ...(result.message === undefined ? {} : { message: result.message }),
    costUsd: result.costUsd,
    usage: result.usage,
    turns: result.turns,
    durationMs: Math.round(result.durationMs),
  });
  if (warning) ctx.emit({ type: 'run.warning', message: warning });
}

/** After the agent call (and its commit): a cancel, or a stop the outcome asked for. */
export function stopAfterCall(call: ProviderCall, aborted: boolean): Stop | undefined {
  if (aborted) return { reason: 'cancelled' };
  return call.stop;
}

export interface AgentCallWatch {
  /** Every local branch before the call: one the agent moved while it had it checked out is put back at the commit. */
  readonly branchesBefore: ReadonlyMap<string, string>;
  /** Puts back what the agent changed in the shared git dir; each change is reported as a warning and returned as frozen tampering. */
  restore(iteration: number): Promise<TamperedPath[]>;
}

/**
 * Watches the git dir around an agent call (src/git/guard.ts): the sandbox makes it read-only
 * when there is one, this makes a change undone and the candidate unable to win when there is not.
 */
export async function watchAgentCall(ctx: Pick<LoopContext, 'candidate' | 'emit'>): Promise<AgentCallWatch> {
  const { candidate } = ctx;
  const [watch, branchesBefore] = await Promise.all([watchGitDir(candidate.worktree), branchTips(candidate.worktree)]);
  return {
    branchesBefore,
    async restore() {
      const { changes, overlapped } = await watch.restore();
      if (changes.length === 0) return [];
      const list = changes.map((c) => `${c.path} (${c.change})`).join(', ');
      ctx.emit({
        type: 'run.warning',
        candidate: candidate.id,
        message: `the git dir changed while ${candidate.id}'s agent ran: ${list}; bestof put it back as it was, and ${candidate.id} cannot win${overlapped ? ' (other agents ran at the same time: without the sandbox bestof cannot tell which one did it)' : ''}`,
      });
      return changes.map((c) => ({ path: c.path, change: c.change, rule: 'frozen' }));
    },
  };
}

/**
 * Commits whatever is in the worktree (never the setup files) and moves the candidate's ref
 * to it. An agent may also commit by itself: HEAD is the truth, not what bestof committed —
 * as long as it is the candidate's branch and builds on the last kept commit (`reclaimHead`).
 */
export async function commitWork(
  ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit' | 'setupPaths'>,
  state: LoopState,
  label: string,
  branchesBefore?: ReadonlyMap<string, string>,
): Promise<{ state: LoopState; changed: boolean }> {
  const { plan, candidate } = ctx;
  const kept = state.head ?? plan.baseCommit;
  const head = await reclaimHead(candidate.worktree, { branch: candidate.branch, kept, ...(branchesBefore ? { branchesBefore } : {}) });
  if (head.headWas !== undefined || head.rewound) {
    const what = [
      head.headWas !== undefined ? `its agent had moved HEAD (${head.headWas}); bestof put HEAD back on ${candidate.branch}` : '',
      head.rewound ? `its branch had lost the last kept commit ${kept.slice(0, 12)}; bestof set it back and commits the agent's files on top` : '',
      head.branchRestored ? `${head.branchRestored} was moved back where it was` : '',
    ].filter(Boolean);
    ctx.emit({ type: 'run.warning', candidate: candidate.id, message: `${candidate.id}: ${what.join('; ')}` });
  }
  const committed = await commitAll(candidate.worktree, { message: `bestof: ${candidate.id} ${label}`, excludePaths: [...ctx.setupPaths] });
  const now = committed.commit ?? (await resolveCommit(candidate.worktree, 'HEAD'));
  if (!now || now === kept) return { state, changed: false };
  await keepCommit(ctx, now);
  ctx.emit({ type: 'candidate.committed', candidate: candidate.id, iteration: state.iteration, commit: now, changedFiles: committed.commit ? committed.changedFiles : 0 });
  return { state: { ...state, head: now, headIsOurs: committed.commit !== undefined }, changed: true };
}

/**
 * Moves the candidate's kept ref to `commit`. A ref planted in its way (only possible without
 * the sandbox) is removed and reported: it cannot make the candidate's work unreachable.
 */
async function keepCommit(ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit'>, commit: string): Promise<void> {
  const removed = await updateOwnRef(ctx.plan.repoRoot, ctx.candidate.ref, commit);
  if (removed.length > 0) {
    ctx.emit({ type: 'run.warning', candidate: ctx.candidate.id, message: `${ctx.candidate.id}: refs planted in the way of its kept ref were removed (${removed.join(', ')}); an agent wrote into bestof's refs` });
  }
}

/** The frozen checks that count in this iteration (curriculum: `from_iteration`), on the candidate's commit. */
export function checkIteration(ctx: LoopContext, state: LoopState, artifactsDir: string): Promise<Scoring> {
  const { plan, candidate } = ctx;
  return scoreCommit({
    worktree: candidate.worktree,
    baseCommit: plan.baseCommit,
    commit: state.head ?? plan.baseCommit,
    frozen: plan.spec.checks.frozen,
    editable: plan.spec.checks.editable,
    checks: plan.spec.checks.items.filter((check) => check.from_iteration <= state.iteration),
    keepPaths: ctx.setupPaths,
    env: ctx.checkEnv,
    logDir: join(artifactsDir, 'checks'),
    signal: ctx.signal,
    onCheck: (check) => ctx.emit({ type: 'check.finished', candidate: candidate.id, iteration: state.iteration, check }),
  });
}

export interface ReviewSummary {
  readonly points: number;
  readonly refuseReason?: string;
  /** For progress.md. */
  readonly note?: string;
}

/** The reviewer's verdict on the candidate's diff so far, when the spec has a review and there is a diff. */
export async function reviewIteration(ctx: LoopContext, state: LoopState, phase: PhasePlan | undefined, artifactsDir: string): Promise<ReviewSummary> {
  const { plan, candidate, reviewer } = ctx;
  const head = state.head;
  if (!reviewer || !plan.review || !head) return { points: 0 };
  emitStatus(ctx, 'reviewing', state.iteration, phase);
  const review = await runReview({
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
    sandbox: agentSandbox(plan, candidate, ctx.checkEnv, 'reviewer'),
  });
  const warning = ctx.budget.record(candidate.id, review.costUsd);
  if (warning) ctx.emit({ type: 'run.warning', message: warning });
  const { verdict } = review;
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
      return { points, note: `LGTM (+${points})` };
    case 'refuse':
      return { points, refuseReason: verdict.reason, note: `REFUSE: ${verdict.reason}` };
    case 'none':
      return { points, note: `no verdict (${verdict.reason})` };
  }
}

/** The iteration's commit says its score, when bestof made it (an agent's own commit is left alone). */
export async function rewordWithScore(ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit'>, state: LoopState): Promise<LoopState> {
  if (!state.head || !state.headIsOurs) return state;
  const { candidate } = ctx;
  const head = await rewordHead(candidate.worktree, `bestof: ${candidate.id} iteration ${state.iteration}, score ${state.lastScore}`);
  await keepCommit(ctx, head);
  return { ...state, head };
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
    ...(at.changed && state.head ? { commit: state.head } : {}),
    ...(at.review.note ? { review: at.review.note } : {}),
    tampered: at.scoring.tampered.map((t) => t.path),
  });
}
