/**
 * LoopState: everything a candidate's loop knows between two steps, as one immutable value.
 * A step returns a new state; nothing else of the loop is mutable (the run's budget ledger
 * is shared by every candidate and stays outside). The stop rules (./stop-rules.ts) are pure
 * functions of it, and a resumed candidate starts from the state its history folds into.
 */
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { Outcome } from '../../providers/types.js';
import { NO_STREAKS, recordIteration, type BreakerCounts } from './breaker.js';
import type { ChannelEntry } from './channel.js';
import { advancePhase, currentPhase, FIRST_PHASE, type PhasePosition } from './prompt-phases.js';
import type { PhasePlan, RunPlan } from '../plan/plan.js';
import type { IterationFeedback } from './prompts.js';
import type { IterationState } from '../record/run-types.js';

export interface LoopState {
  /** Iterations started so far (the one running, while it runs). */
  readonly iteration: number;
  /** The candidate's last commit; undefined until it changed something. */
  readonly head: string | undefined;
  /** HEAD is a commit bestof made, so its message may be reworded with the score. */
  readonly headIsOurs: boolean;
  /** Score of the last scored iteration (0 before the first). */
  readonly lastScore: number;
  /** Score of the iteration before that (for allow_regression = false). */
  readonly previousScore: number;
  /** How the last agent call ended, and its one-line message. */
  readonly lastOutcome: Outcome | undefined;
  readonly lastMessage: string | undefined;
  /** What the next prompt is told about the last scored iteration; undefined before the first. */
  readonly feedback: IterationFeedback | undefined;
  /** Channel messages for the next prompt. */
  readonly pendingMessages: readonly string[];
  /** A stop came through the channel. */
  readonly stopRequested: boolean;
  /** Channel lines read so far. */
  readonly channelConsumed: number;
  readonly breaker: BreakerCounts;
  readonly phase: PhasePosition;
  /** Date.now() at which the candidate started (earlier on resume, by the time it already ran). */
  readonly startedAt: number;
  /** Date.now() past which this candidate starts nothing new (`loop.duration`). */
  readonly candidateDeadline: number | undefined;
  /** Date.now() past which the run starts nothing new (`loop.run_duration`). */
  readonly runDeadline: number | undefined;
}

export interface LoopStart {
  readonly now: number;
  /** `loop.duration`. */
  readonly candidateDurationMs: number | undefined;
  readonly runDeadline: number | undefined;
  /** On resume: the iterations of the event log, the last commit, the channel lines seen, the time already run. */
  readonly history?: readonly IterationState[];
  readonly head?: string | undefined;
  readonly channelConsumed?: number;
  readonly elapsedMs?: number;
}

/** The state of a new candidate, or the fold of a resumed candidate's scored iterations. */
export function initialLoopState(plan: Pick<RunPlan, 'maxScore' | 'scoreThreshold' | 'phases'>, start: LoopStart): LoopState {
  const startedAt = start.now - (start.elapsedMs ?? 0);
  const history = (start.history ?? []).filter((it) => it.score !== undefined);
  const last = history.at(-1);
  let breaker = NO_STREAKS;
  let phase = FIRST_PHASE;
  for (const past of history) {
    breaker = recordIteration(breaker, {
      outcome: past.outcome ?? 'success',
      failedChecks: past.checks.filter((c) => !c.passed).map((c) => c.name),
      changed: past.commit !== undefined,
    });
    phase = advancePhase(plan.phases, phase, past.score ?? 0);
  }
  return {
    iteration: last?.iteration ?? 0,
    head: start.head,
    headIsOurs: false,
    lastScore: last?.score ?? 0,
    previousScore: history.at(-2)?.score ?? 0,
    lastOutcome: last?.outcome,
    lastMessage: last?.providerMessage,
    feedback: last ? feedbackFromHistory(last, plan) : undefined,
    pendingMessages: [],
    stopRequested: false,
    channelConsumed: start.channelConsumed ?? 0,
    breaker,
    phase,
    startedAt,
    candidateDeadline: start.candidateDurationMs !== undefined ? startedAt + start.candidateDurationMs : undefined,
    runDeadline: start.runDeadline,
  };
}

function feedbackFromHistory(last: IterationState, plan: Pick<RunPlan, 'maxScore' | 'scoreThreshold'>): IterationFeedback {
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

/**
 * Channel entries read at a boundary: messages wait for the next prompt; a stop ends the
 * loop there, and what came after it in the same read is not looked at.
 */
export function withChannelEntries(state: LoopState, entries: readonly ChannelEntry[], consumed: number): { state: LoopState; seen: readonly ChannelEntry[] } {
  const stopAt = entries.findIndex((entry) => entry.kind === 'stop');
  const seen = stopAt === -1 ? entries : entries.slice(0, stopAt + 1);
  return {
    state: {
      ...state,
      channelConsumed: consumed,
      stopRequested: state.stopRequested || stopAt !== -1,
      pendingMessages: [...state.pendingMessages, ...seen.filter((e) => e.kind === 'message').map((e) => e.text)],
    },
    seen,
  };
}

/** Milliseconds to the nearest deadline; undefined when there is none. */
export function timeLeft(state: Pick<LoopState, 'candidateDeadline' | 'runDeadline'>, now: number): number | undefined {
  const deadlines = [state.candidateDeadline, state.runDeadline].filter((d): d is number => d !== undefined);
  return deadlines.length > 0 ? Math.min(...deadlines) - now : undefined;
}

/** The phase of the next iteration. */
export function phaseOf(state: LoopState, phases: readonly PhasePlan[]): PhasePlan | undefined {
  return currentPhase(phases, state.phase);
}

export interface IterationScore {
  /** Points of the checks plus the review's. */
  readonly score: number;
  readonly maxScore: number;
  readonly failedChecks: readonly CheckOutcome[];
  readonly refuseReason?: string;
  /** Frozen paths the candidate changed (ignored when scoring). */
  readonly tampered: readonly string[];
  /** Files its commit left out (`path why`): the checks never saw them. @default none */
  readonly leftOut?: readonly string[];
  /** The iteration changed the candidate's files. */
  readonly changed: boolean;
}

/**
 * The state once the iteration `state.iteration` is scored: its score, what the next prompt
 * is told, the breaker's streaks and the phase of the next iteration.
 */
export function withScore(state: LoopState, scored: IterationScore, plan: Pick<RunPlan, 'scoreThreshold' | 'phases'>): LoopState {
  const outcome = state.lastOutcome ?? 'success';
  return {
    ...state,
    previousScore: state.lastScore,
    lastScore: scored.score,
    feedback: {
      score: scored.score,
      maxScore: scored.maxScore,
      threshold: plan.scoreThreshold,
      failedChecks: scored.failedChecks,
      outcome,
      ...(state.lastMessage && outcome !== 'success' ? { outcomeMessage: state.lastMessage } : {}),
      ...(scored.refuseReason ? { refuseReason: scored.refuseReason } : {}),
      tampered: scored.tampered,
      ...(scored.leftOut && scored.leftOut.length > 0 ? { leftOut: scored.leftOut } : {}),
    },
    breaker: recordIteration(state.breaker, { outcome, failedChecks: scored.failedChecks.map((c) => c.name), changed: scored.changed }),
    phase: advancePhase(plan.phases, state.phase, scored.score),
  };
}
