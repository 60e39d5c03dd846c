/**
 * What every phase of a run shares: the plan, the cancel signal, `emit` (which stamps an
 * event, folds it into the run's state and hands it to every listener), the state so far,
 * the budget, the concurrency queues, and how each candidate's loop ended.
 */
import PQueue from 'p-queue';
import { BudgetLedger } from './budget.js';
import type { CandidateEnd } from './candidate.js';
import type { RunEvent, RunEventListener, UnstampedEvent } from './events.js';
import type { CandidatePlan, RunPlan } from './plan.js';
import { initialRunState, reduceRunState, type RunState } from './run-state.js';

export interface RunContext {
  readonly plan: RunPlan;
  readonly signal: AbortSignal;
  /** The state the run was resumed from, when it was. */
  readonly resume: RunState | undefined;
  /** performance.now() at the start of this process's part of the run. */
  readonly startedAt: number;
  emit(event: UnstampedEvent): void;
  /** The fold of every event emitted so far (and, on resume, of the log before). */
  state(): RunState;
  readonly budget: BudgetLedger;
  /** Date.now() past which the run starts no new work (`loop.run_duration`). */
  readonly runDeadline: number | undefined;
  /** `[parallel] max_concurrency`: candidates, and the final scoring, run under it. */
  readonly queue: PQueue;
  /** Runs an agent call under `[providers.<kind>] max_concurrency`, when the spec sets one. */
  limitProvider<T>(candidate: CandidatePlan, call: () => Promise<T>): Promise<T>;
  /** How the loop of each candidate that ran in this process ended. */
  readonly ends: Map<string, CandidateEnd>;
}

export interface RunContextOptions {
  readonly signal: AbortSignal;
  readonly listeners: readonly RunEventListener[];
  readonly resume: RunState | undefined;
}

export function createRunContext(plan: RunPlan, options: RunContextOptions): RunContext {
  const { spec } = plan;
  let state = options.resume ?? initialRunState();
  const emit = (partial: UnstampedEvent): void => {
    const event = { t: new Date().toISOString(), ...partial } as RunEvent;
    state = reduceRunState(state, event);
    for (const listener of options.listeners) listener(event);
  };
  // Money already spent (before a resume) counts against the caps.
  const budget = new BudgetLedger(
    { maxTotalCostUsd: spec.budget.max_total_cost_usd, maxCandidateCostUsd: spec.budget.max_candidate_cost_usd, warnAtUsd: spec.budget.warn_at_usd },
    Object.fromEntries(Object.values(state.candidates).map((c) => [c.id, c.costUsd])),
  );
  const providerQueues = new Map<string, PQueue>();
  return {
    plan,
    signal: options.signal,
    resume: options.resume,
    startedAt: performance.now(),
    emit,
    state: () => state,
    budget,
    runDeadline: spec.loop.run_duration !== undefined ? Date.now() + spec.loop.run_duration : undefined,
    queue: new PQueue({ concurrency: spec.parallel.max_concurrency }),
    limitProvider: <T>(candidate: CandidatePlan, call: () => Promise<T>): Promise<T> => {
      const kind = candidate.settings.kind;
      const limit = spec.providers[kind]?.max_concurrency;
      if (!limit) return call();
      let kindQueue = providerQueues.get(kind);
      if (!kindQueue) providerQueues.set(kind, (kindQueue = new PQueue({ concurrency: limit })));
      return kindQueue.add(call) as Promise<T>;
    },
    ends: new Map(),
  };
}
