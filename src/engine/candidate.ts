/**
 * One candidate from worktree to final score: setup, then its loop of iterations
 *
 *   channel -> limits -> prompt -> provider (waits out rate limits) -> commit -> frozen checks
 *   -> review -> reworded commit with the score -> progress.md -> stop rules
 *
 * Whatever happens (a crash, a timeout, a cancel, a cap), what the agent wrote is committed
 * on the candidate's branch and kept under refs/bestof/<run>/<candidate> before this returns.
 * A resumed candidate picks up its history from the event log and goes on from there.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { rewordHead } from '../git/checkpoint.js';
import { commitAll } from '../git/commit.js';
import { diffStat, diffText } from '../git/diff.js';
import { updateRef } from '../git/refs.js';
import { resolveCommit } from '../git/repo.js';
import type { Provider, ProviderResult } from '../providers/types.js';
import { candidateDir, iterationDir } from '../report/run-folder.js';
import { Breaker } from './breaker.js';
import type { BudgetLedger } from './budget.js';
import { ChannelReader, channelFile } from './channel.js';
import type { StopReason, UnstampedEvent } from './events.js';
import { backoffDelay } from './backoff.js';
import { PhaseCursor } from './phases.js';
import { HARD_ITERATION_LIMIT, type CandidatePlan, type RunPlan } from './plan.js';
import { appendProgress } from './progress.js';
import { buildIterationPrompt, type IterationFeedback } from './prompts.js';
import { runReview } from './review.js';
import type { IterationState } from './run-state.js';
import { scoreCommit } from './score.js';
import { prepareWorkspace } from './workspace.js';

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
  /** Date.now() past which the run starts no new work (`loop.run_duration`). */
  readonly runDeadline?: number;
  readonly resume?: CandidateResume;
}

type FinalStatus = 'done' | 'failed' | 'stopped' | 'cancelled';

const STATUS_OF_REASON: Record<StopReason, FinalStatus> = {
  completed: 'done',
  threshold_reached: 'done',
  max_iterations: 'done',
  hard_limit: 'done',
  regression: 'stopped',
  candidate_duration: 'stopped',
  run_duration: 'stopped',
  budget_total: 'stopped',
  budget_candidate: 'stopped',
  breaker_same_failure: 'stopped',
  breaker_errors: 'stopped',
  breaker_no_diff: 'stopped',
  rate_limited: 'stopped',
  usage_limit: 'stopped',
  stopped_by_user: 'stopped',
  auth_error: 'failed',
  setup_failed: 'failed',
  provider_failed: 'failed',
  internal_error: 'failed',
  cancelled: 'cancelled',
};

export function candidateEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return {
    ...process.env,
    ...candidate.settings.env,
    BESTOF_RUN: plan.runId,
    BESTOF_CANDIDATE: candidate.id,
    BESTOF_INDEX: String(candidate.index),
    BESTOF_RUN_DIR: plan.runDir,
    PORT: String(candidate.port),
  };
}

/** Environment of the checks: the user's, plus the candidate's identity and port, never the agent's extra env. */
function checkEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return { ...process.env, BESTOF_RUN: plan.runId, BESTOF_CANDIDATE: candidate.id, BESTOF_INDEX: String(candidate.index), PORT: String(candidate.port) };
}

export async function runCandidate(ctx: CandidateContext, candidate: CandidatePlan): Promise<void> {
  const { plan, signal, emit, budget } = ctx;
  const { spec } = plan;
  const id = candidate.id;
  const started = Date.now() - (ctx.resume?.elapsedMs ?? 0);
  const candidateDeadline = spec.loop.duration !== undefined ? started + spec.loop.duration : undefined;
  const history = ctx.resume?.iterations.filter((it) => it.score !== undefined) ?? [];
  let head = ctx.resume?.head;
  let iteration = history.at(-1)?.iteration ?? 0;
  let lastScore = history.at(-1)?.score ?? 0;
  let reason: StopReason | undefined;
  let message: string | undefined;
  let lastOutcome = history.at(-1)?.outcome;
  let lastMessage = history.at(-1)?.providerMessage;
  let feedback: IterationFeedback | undefined = history.length > 0 ? feedbackFromHistory(history.at(-1) as IterationState, plan) : undefined;

  const finish = async (): Promise<void> => {
    const stop = reason ?? 'completed';
    let status = STATUS_OF_REASON[stop];
    let finalReason = stop;
    // The agent's last call did not succeed and nothing better explains the end: its committed
    // work is still scored and may win, but the candidate shows as failed with the agent's message.
    if (stop === 'completed' && lastOutcome !== undefined && lastOutcome !== 'success') {
      [status, finalReason] = ['failed', 'provider_failed'];
      message ??= lastMessage ?? `the agent ended with ${lastOutcome}`;
    }
    const diff = head ? await diffStat(plan.repoRoot, plan.baseCommit, head) : { files: 0, insertions: 0, deletions: 0 };
    emit({
      type: 'candidate.finished',
      candidate: id,
      status,
      reason: finalReason,
      ...(message === undefined ? {} : { message }),
      iterations: iteration,
      score: lastScore,
      commit: head,
      diff: { files: diff.files, insertions: diff.insertions, deletions: diff.deletions },
      durationMs: Date.now() - started,
      costUsd: budget.spentBy(id),
    });
  };

  await mkdir(candidateDir(plan.runDir, id), { recursive: true });
  if (ctx.runDeadline !== undefined && Date.now() >= ctx.runDeadline) {
    [reason, message] = ['run_duration', 'the run reached loop.run_duration before this candidate started'];
    return finish();
  }
  emit({ type: 'candidate.status', candidate: id, status: 'setup', iteration });
  const env = candidateEnv(plan, candidate);
  const workspace = await prepareWorkspace({
    mode: ctx.resume ? 'resume' : 'new',
    repoRoot: plan.repoRoot,
    worktree: candidate.worktree,
    branch: candidate.branch,
    baseCommit: plan.baseCommit,
    copy: spec.setup.copy,
    commands: spec.setup.commands,
    commandTimeoutMs: spec.setup.timeout,
    env,
    logFile: join(candidateDir(plan.runDir, id), 'setup.log'),
    setupPathsFile: join(candidateDir(plan.runDir, id), 'setup-paths.json'),
    signal,
  });
  if (!workspace.ok) {
    emit({ type: 'candidate.setup', candidate: id, ok: false, message: workspace.message, copied: [] });
    [reason, message] = signal.aborted ? ['cancelled', 'cancelled during setup'] : ['setup_failed', workspace.message];
    return finish();
  }
  for (const warning of workspace.warnings) emit({ type: 'run.warning', candidate: id, message: warning });
  emit({ type: 'candidate.setup', candidate: id, ok: true, copied: workspace.copied });

  /** HEAD is a commit bestof made (so its message may be reworded with the score). */
  let headIsOurs = false;
  const commitWork = async (label: string): Promise<boolean> => {
    const committed = await commitAll(candidate.worktree, { message: `bestof: ${id} ${label}`, excludePaths: workspace.setupPaths });
    // An agent may also commit by itself: HEAD is the truth, not what bestof committed.
    const now = committed.commit ?? (await resolveCommit(candidate.worktree, 'HEAD'));
    if (!now || now === (head ?? plan.baseCommit)) return false;
    head = now;
    headIsOurs = committed.commit !== undefined;
    await updateRef(plan.repoRoot, candidate.ref, head);
    emit({ type: 'candidate.committed', candidate: id, iteration, commit: head, changedFiles: committed.commit ? committed.changedFiles : 0 });
    return true;
  };
  // A worktree left by a killed run may hold what the agent wrote after its last commit.
  if (workspace.reused) await commitWork(`iteration ${iteration + 1} (interrupted; saved on resume)`);

  const provider = ctx.createProvider(candidate);
  const described = await provider.describe?.();
  if (described) emit({ type: 'candidate.provider', candidate: id, ...described });
  const reviewer = ctx.createReviewer?.();
  const breaker = new Breaker({
    sameFailureIterations: spec.breaker.same_failure_iterations,
    errorIterations: spec.breaker.error_iterations,
    noDiffIterations: spec.breaker.no_diff_iterations,
  });
  for (const past of history) breaker.record({ outcome: past.outcome ?? 'success', failedChecks: past.checks.filter((c) => !c.passed).map((c) => c.name), changed: past.commit !== undefined });
  const phases = new PhaseCursor(plan.phases, history);
  const channel = new ChannelReader(channelFile(plan.runDir, id), ctx.resume?.channelConsumed ?? 0);
  const pendingMessages: string[] = [];

  /** Every rule that keeps a new iteration from starting, in order of precedence. */
  const stopBeforeIteration = (): StopReason | undefined => {
    if (signal.aborted) return 'cancelled';
    for (const entry of channel.readNew()) {
      emit({ type: 'channel.received', candidate: id, kind: entry.kind, text: entry.text });
      if (entry.kind === 'stop') {
        message = 'stopped on request; its work so far is kept';
        return 'stopped_by_user';
      }
      pendingMessages.push(entry.text);
    }
    if (ctx.runDeadline !== undefined && Date.now() >= ctx.runDeadline) return 'run_duration';
    if (candidateDeadline !== undefined && Date.now() >= candidateDeadline) return 'candidate_duration';
    const capped = budget.blocked(id);
    if (capped) {
      message = capped === 'budget_total'
        ? `the run's budget (max_total_cost_usd = $${spec.budget.max_total_cost_usd}) is spent; no new work starts and what was done is kept`
        : `this candidate's budget (max_candidate_cost_usd = $${spec.budget.max_candidate_cost_usd}) is spent; what it did is kept`;
      return capped;
    }
    if (iteration >= plan.maxIterations) {
      if (plan.requestedIterations > HARD_ITERATION_LIMIT) {
        message = `stopped at the hard limit of ${HARD_ITERATION_LIMIT} iterations (the spec asked for ${plan.requestedIterations})`;
        return 'hard_limit';
      }
      return plan.maxIterations === 1 ? 'completed' : 'max_iterations';
    }
    if (phases.exhausted) return 'max_iterations';
    return undefined;
  };

  const timeLeft = (): number | undefined => {
    const deadlines = [candidateDeadline, ctx.runDeadline].filter((d): d is number => d !== undefined);
    return deadlines.length > 0 ? Math.min(...deadlines) - Date.now() : undefined;
  };

  while (!(reason = stopBeforeIteration())) {
    iteration += 1;
    const phase = phases.current;
    const artifactsDir = iterationDir(plan.runDir, id, iteration);
    await mkdir(artifactsDir, { recursive: true });
    emit({ type: 'candidate.status', candidate: id, status: 'running', iteration, ...(phase ? { phase: phase.name } : {}) });
    const prompt = buildIterationPrompt({
      task: plan.prompt,
      ...(plan.retryTemplate !== undefined ? { retryTemplate: plan.retryTemplate } : {}),
      ...(phase ? { phase: { name: phase.name, prompt: phase.prompt } } : {}),
      iteration,
      maxIterations: plan.maxIterations,
      ...(feedback ? { feedback } : {}),
      messages: pendingMessages.splice(0),
      ...(spec.prompt.output_file ? { outputFile: spec.prompt.output_file } : {}),
      ...(timeLeft() !== undefined ? { timeLeftMs: timeLeft() } : {}),
      ...(budget.left(id) !== undefined ? { budgetLeftUsd: budget.left(id) } : {}),
    });

    const call = await callProvider(ctx, candidate, provider, { prompt, iteration, artifactsDir, env, model: phase?.model ?? candidate.model, timeLeft });
    const result = call.result;
    lastOutcome = result.outcome;
    lastMessage = result.message;

    // Commit before anything else: a crash, a timeout or a cancel keeps what was written.
    const changed = await commitWork(`iteration ${iteration}`);

    if (result.outcome === 'cancelled' || signal.aborted) {
      reason = 'cancelled';
      break;
    }
    if (call.stop) {
      [reason, message] = [call.stop, result.message ?? call.stop];
      break;
    }

    emit({ type: 'candidate.status', candidate: id, status: 'checking', iteration, ...(phase ? { phase: phase.name } : {}) });
    const counted = spec.checks.items.filter((check) => check.from_iteration <= iteration);
    const scoring = await scoreCommit({
      worktree: candidate.worktree,
      baseCommit: plan.baseCommit,
      commit: head ?? plan.baseCommit,
      frozen: spec.checks.frozen,
      checks: counted,
      keepPaths: workspace.setupPaths,
      env: checkEnv(plan, candidate),
      logDir: join(artifactsDir, 'checks'),
      signal,
      onCheck: (check) => emit({ type: 'check.finished', candidate: id, iteration, check }),
    });
    if (scoring.interrupted && signal.aborted) {
      reason = 'cancelled';
      break;
    }
    if (scoring.tampered.length > 0) emit({ type: 'candidate.tampered', candidate: id, iteration, paths: scoring.tampered });

    let reviewPoints = 0;
    let refuseReason: string | undefined;
    let reviewNote: string | undefined;
    if (reviewer && plan.review && head) {
      emit({ type: 'candidate.status', candidate: id, status: 'reviewing', iteration, ...(phase ? { phase: phase.name } : {}) });
      const review = await runReview({
        provider: reviewer,
        model: plan.review.settings.model,
        promptFile: plan.review.promptFile,
        task: plan.prompt,
        diff: await diffText(plan.repoRoot, plan.baseCommit, head),
        worktree: candidate.worktree,
        commit: head,
        keepPaths: workspace.setupPaths,
        candidateId: id,
        iteration,
        timeoutMs: plan.review.timeoutMs,
        env: checkEnv(plan, candidate),
        artifactsDir,
        signal,
      });
      const warning = budget.record(id, review.costUsd);
      if (warning) emit({ type: 'run.warning', message: warning });
      const { verdict } = review;
      reviewPoints = verdict.verdict === 'lgtm' ? plan.review.score : 0;
      if (verdict.verdict === 'refuse') refuseReason = verdict.reason;
      reviewNote = verdict.verdict === 'lgtm' ? `LGTM (+${reviewPoints})` : verdict.verdict === 'refuse' ? `REFUSE: ${verdict.reason}` : `no verdict (${verdict.reason})`;
      emit({
        type: 'review.finished',
        candidate: id,
        iteration,
        verdict: verdict.verdict,
        ...(verdict.verdict === 'lgtm' ? {} : { reason: verdict.reason }),
        points: reviewPoints,
        attempts: review.attempts,
      });
    }

    const previousScore = lastScore;
    lastScore = scoring.score + reviewPoints;
    const maxScore = scoring.maxScore + (plan.review?.score ?? 0);
    const failedChecks = scoring.checks.filter((c) => !c.passed);
    if (changed && head && headIsOurs) {
      head = await rewordHead(candidate.worktree, `bestof: ${id} iteration ${iteration}, score ${lastScore}`);
      await updateRef(plan.repoRoot, candidate.ref, head);
    }
    emit({
      type: 'candidate.scored',
      candidate: id,
      iteration,
      score: lastScore,
      maxScore,
      failedChecks: failedChecks.map((c) => c.name),
      ...(plan.review ? { reviewPoints } : {}),
    });
    appendProgress(plan.runDir, id, {
      iteration,
      ...(phase ? { phase: phase.name } : {}),
      score: lastScore,
      maxScore,
      failedChecks: failedChecks.map((c) => c.name),
      outcome: result.outcome,
      costUsd: call.costUsd,
      totalCostUsd: budget.spentBy(id),
      ...(changed && head ? { commit: head } : {}),
      ...(reviewNote ? { review: reviewNote } : {}),
      tampered: scoring.tampered.map((t) => t.path),
    });
    feedback = {
      score: lastScore,
      maxScore,
      threshold: plan.scoreThreshold,
      failedChecks,
      outcome: result.outcome,
      ...(result.message && result.outcome !== 'success' ? { outcomeMessage: result.message } : {}),
      ...(refuseReason ? { refuseReason } : {}),
      tampered: scoring.tampered.map((t) => t.path),
    };

    // A refusal keeps the candidate going: the score alone does not finish it.
    if (maxScore > 0 && lastScore >= plan.scoreThreshold && !refuseReason) {
      reason = 'threshold_reached';
      break;
    }
    if (!spec.loop.allow_regression && iteration > 1 && lastScore < previousScore) {
      [reason, message] = ['regression', `the score dropped from ${previousScore} to ${lastScore} (allow_regression = false)`];
      break;
    }
    const tripped = breaker.record({ outcome: result.outcome, failedChecks: failedChecks.map((c) => c.name), changed });
    if (tripped) {
      message = breakerMessage(tripped, spec.breaker);
      reason = tripped;
      break;
    }
    phases.afterIteration(lastScore);
  }

  if (reason !== 'cancelled' && head) await finalScoring(ctx, candidate, { iteration, head, setupPaths: workspace.setupPaths, reviewPoints: 0 }, (score) => (lastScore = score));
  await finish();
}

interface ProviderCall {
  readonly result: ProviderResult;
  readonly costUsd: number;
  /** Set when the outcome ends the candidate (auth error, a limit it cannot wait out). */
  readonly stop?: StopReason;
}

/**
 * One agent call of an iteration. Rate limits are waited out with backoff and jitter and
 * retried without using up the iteration; a usage limit is waited out when its reset is known
 * and inside the time limits; an auth error ends the candidate at once.
 */
async function callProvider(
  ctx: CandidateContext,
  candidate: CandidatePlan,
  provider: Provider,
  call: { prompt: string; iteration: number; artifactsDir: string; env: Record<string, string | undefined>; model: string | undefined; timeLeft: () => number | undefined },
): Promise<ProviderCall> {
  const { emit, signal, budget, plan } = ctx;
  const id = candidate.id;
  let costUsd = 0;
  for (let waits = 0; ; ) {
    const left = call.timeLeft();
    const result = await ctx.limitProvider(candidate, () =>
      provider.run({
        prompt: call.prompt,
        cwd: candidate.worktree,
        model: call.model,
        iteration: call.iteration,
        candidateId: id,
        env: call.env,
        timeoutMs: left !== undefined ? Math.max(1000, Math.min(candidate.settings.timeout, left)) : candidate.settings.timeout,
        artifactsDir: call.artifactsDir,
        signal,
        onActivity: (text) => emit({ type: 'candidate.activity', candidate: id, iteration: call.iteration, text: text.slice(0, 500) }),
      }),
    );
    costUsd += result.costUsd;
    const warning = budget.record(id, result.costUsd);
    emit({
      type: 'provider.finished',
      candidate: id,
      iteration: call.iteration,
      outcome: result.outcome,
      ...(result.message === undefined ? {} : { message: result.message }),
      costUsd: result.costUsd,
      usage: result.usage,
      turns: result.turns,
      durationMs: Math.round(result.durationMs),
    });
    if (warning) emit({ type: 'run.warning', message: warning });
    if (signal.aborted) return { result, costUsd };

    if (result.outcome === 'timeout' && left !== undefined && call.timeLeft()! <= 0) {
      const stop = ctx.runDeadline !== undefined && Date.now() >= ctx.runDeadline ? 'run_duration' : 'candidate_duration';
      return { result: { ...result, message: `the ${stop === 'run_duration' ? 'run' : "candidate's"} time limit was reached; what it wrote is kept` }, costUsd, stop };
    }
    if (result.outcome === 'auth_error') return { result, costUsd, stop: 'auth_error' };
    if (result.outcome === 'rate_limited' || result.outcome === 'usage_limit') {
      waits += 1;
      const limited = result.outcome;
      const wait = limited === 'rate_limited' ? backoffDelay(plan.spec.loop.rate_limit_backoff, waits, result.retryAfterMs) : result.retryAfterMs;
      const remaining = call.timeLeft();
      const tooLong = wait === undefined || (remaining !== undefined && wait >= remaining);
      const tooMany = limited === 'rate_limited' && waits > plan.spec.loop.max_rate_limit_waits;
      if (tooLong || tooMany) {
        const why = tooMany
          ? `still rate-limited after ${waits - 1} waits`
          : wait === undefined
            ? 'the usage limit gives no reset time'
            : `waiting ${Math.round(wait / 1000)}s would pass the time limit`;
        return { result: { ...result, message: `${result.message ?? limited}; ${why}` }, costUsd, stop: limited };
      }
      emit({ type: 'candidate.waiting', candidate: id, iteration: call.iteration, reason: limited, waitMs: wait, attempt: waits });
      await sleep(wait, undefined, { signal }).catch(() => undefined);
      if (signal.aborted) return { result: { ...result, outcome: 'cancelled' }, costUsd };
      continue;
    }
    return { result, costUsd };
  }
}

/**
 * After the loop, every candidate is scored by the same, complete set of checks: a check
 * that counts only from a later iteration (curriculum) counts here too.
 */
async function finalScoring(
  ctx: CandidateContext,
  candidate: CandidatePlan,
  at: { iteration: number; head: string; setupPaths: readonly string[]; reviewPoints: number },
  setScore: (score: number) => void,
): Promise<void> {
  const { plan, emit, signal } = ctx;
  if (!plan.spec.checks.items.some((check) => check.from_iteration > at.iteration) || signal.aborted) return;
  const scoring = await scoreCommit({
    worktree: candidate.worktree,
    baseCommit: plan.baseCommit,
    commit: at.head,
    frozen: plan.spec.checks.frozen,
    checks: plan.spec.checks.items,
    keepPaths: at.setupPaths,
    env: checkEnv(plan, candidate),
    logDir: join(iterationDir(plan.runDir, candidate.id, at.iteration), 'final-checks'),
    signal,
    onCheck: (check) => emit({ type: 'check.finished', candidate: candidate.id, iteration: at.iteration, check }),
  });
  if (scoring.interrupted) return;
  setScore(scoring.score + at.reviewPoints);
  emit({
    type: 'candidate.scored',
    candidate: candidate.id,
    iteration: at.iteration,
    score: scoring.score + at.reviewPoints,
    maxScore: plan.maxScore,
    failedChecks: scoring.checks.filter((c) => !c.passed).map((c) => c.name),
    final: true,
  });
}

function breakerMessage(reason: StopReason, limits: { same_failure_iterations: number; error_iterations: number; no_diff_iterations: number }): string {
  switch (reason) {
    case 'breaker_same_failure':
      return `the same checks failed ${limits.same_failure_iterations} iterations in a row`;
    case 'breaker_errors':
      return `the agent failed ${limits.error_iterations} iterations in a row`;
    default:
      return `${limits.no_diff_iterations} iterations in a row changed nothing`;
  }
}

function feedbackFromHistory(last: IterationState, plan: RunPlan): IterationFeedback {
  return {
    score: last.score ?? 0,
    maxScore: plan.maxScore,
    threshold: plan.scoreThreshold,
    failedChecks: last.checks.filter((c) => !c.passed),
    outcome: last.outcome ?? 'success',
    ...(last.review?.verdict === 'refuse' && last.review.reason ? { refuseReason: last.review.reason } : {}),
    tampered: last.tampered.map((t) => t.path),
  };
}
