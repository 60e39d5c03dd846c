/**
 * What every stage of a run shares: the plan, the cancel signal, `emit` (which stamps an
 * event, redacts it, folds it into the run's state and hands it to every listener), the state
 * so far, the run's secrets, the budget, the concurrency queues, and how each candidate's loop
 * ended.
 *
 * `emit` is the one choke point of the record: every string of every event goes through the
 * run's redactor there, so events.jsonl, state.json, the reports, the plain output and the
 * dashboard never hold a secret value, whoever emitted the event.
 */
import type { Env } from '../../env.js';
import PQueue from 'p-queue';
import { BudgetLedger, DISTINGUISH_PAYER, VOTE_PAYER } from '../loop/budget.js';
import type { CandidateEnd } from '../loop/candidate.js';
import type { RunEvent, RunEventListener, UnstampedEvent } from '../record/events.js';
import type { CandidatePlan, RunPlan } from '../plan/plan.js';
import { initialRunState, reduceRunState, type RunState } from '../record/run-state.js';
import { readGitConfigSecrets } from '../sandbox/git-config-secrets.js';
import { runBaseReference, type BaseTests } from '../scoring/base-reference.js';
import { collectSecrets, type FoundSecret, type SecretSet } from '../sandbox/secrets.js';

export interface RunContext {
  readonly plan: RunPlan;
  /** Aborted by the caller's cancel (Ctrl-C, SIGTERM, the dashboard) or by stopRun. */
  readonly signal: AbortSignal;
  /**
   * Stops the run from inside, as a cancel does (every candidate commits what it has and stops),
   * for what no candidate can go on through: a full disk. The first reason is kept.
   */
  stopRun(reason: string): void;
  /** Why stopRun stopped the run, when it did: the run then ends incomplete, to be resumed. */
  stoppedBecause(): string | undefined;
  /** The state the run was resumed from, when it was. */
  readonly resume: RunState | undefined;
  /** performance.now() at the start of this process's part of the run. */
  readonly startedAt: number;
  /** Stamps the event, redacts every string in it, folds it into the state and hands it to the listeners. */
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
  /** What each candidate's loop in this process left the later steps beside the state (CandidateEnds). */
  readonly ends: CandidateEnds;
  /**
   * The run's secret values (bestof's secret-looking environment, the agents' spec `env`, the
   * passwords and tokens of the repository's git config): what is written or committed outside
   * `emit` (raw logs, commits) is kept clear of them with it.
   */
  readonly secrets: SecretSet;
  /**
   * Base's tests for the checks that read a test report (../scoring/base-reference.ts): run once,
   * from the first call (the candidates stage makes it as it starts, beside the agents); every
   * scoring awaits it. Undefined when base's run left nothing to hold candidates to: the run is then
   * stopped, and finish ends it with exit 2 (state.reference.error says why).
   */
  baseTests(): Promise<BaseTests | undefined>;
}

/**
 * The one channel between the steps of a run besides the state: what a candidate's loop in this
 * process leaves the final scoring and finish that the state cannot hold, the live watch over what
 * setup made (a SetupGuard), and setup's paths without reading setup-paths.json again. Only the
 * candidates step records an end, once per candidate, as its loop returns. A candidate that finished
 * before a resume, or whose loop ended in an error, has none: its readers fall back to the run folder
 * (readSetupPaths) and go without the watch. Everything else of a candidate's end (its head, its
 * reason) is in the state, from candidate.finished.
 */
export interface CandidateEnds {
  record(candidate: string, end: CandidateEnd): void;
  of(candidate: string): Pick<CandidateEnd, 'setupPaths' | 'setupGuard'> | undefined;
}

function candidateEnds(): CandidateEnds {
  const ends = new Map<string, CandidateEnd>();
  return {
    record: (candidate, end) => void ends.set(candidate, end),
    of: (candidate) => ends.get(candidate),
  };
}

export interface RunContextOptions {
  readonly signal: AbortSignal;
  readonly listeners: readonly RunEventListener[];
  readonly resume: RunState | undefined;
  /** The run's secrets: readRunSecrets (no default: a set built from the environment alone would miss the git config's). */
  readonly secrets: SecretSet;
}

/**
 * The secrets of a run: bestof's environment, which every agent inherits, every agent's spec `env`
 * (the reviewer's too), and what readRunSecrets found in the repository's git config.
 */
export function runSecrets(plan: RunPlan, environment: Env = process.env, gitConfig: readonly FoundSecret[] = []): SecretSet {
  const agentEnvs = [...plan.candidates.map((candidate) => candidate.settings.env), ...(plan.review ? [plan.review.settings.env] : [])];
  return collectSecrets({ environment, agentEnvs, gitConfig });
}

/**
 * runSecrets with the passwords and tokens of the git config that the user's repository reads (and
 * of its `store` credential helper's file): read as the run starts, before any agent of this
 * process runs. One `git config` call.
 */
export async function readRunSecrets(plan: RunPlan, options: { readonly signal?: AbortSignal } = {}): Promise<SecretSet> {
  return runSecrets(plan, process.env, await readGitConfigSecrets(plan.repoRoot, options));
}

export function createRunContext(plan: RunPlan, options: RunContextOptions): RunContext {
  const { spec } = plan;
  let state = options.resume ?? initialRunState();
  const { secrets } = options;
  const emit = (partial: UnstampedEvent): void => {
    // Only strings are touched, and an event with no secret comes back as the same object.
    const event = secrets.redactDeep({ t: new Date().toISOString(), ...partial } as RunEvent);
    state = reduceRunState(state, event);
    for (const listener of options.listeners) listener(event);
  };
  // Money already spent (before a resume) counts against the caps.
  const budget = new BudgetLedger(
    { maxTotalCostUsd: spec.budget.max_total_cost_usd, maxCandidateCostUsd: spec.budget.max_candidate_cost_usd, warnAtUsd: spec.budget.warn_at_usd },
    {
      ...Object.fromEntries(Object.values(state.candidates).map((c) => [c.id, c.costUsd])),
      [VOTE_PAYER]: state.voteCostUsd,
      [DISTINGUISH_PAYER]: state.distinguishCostUsd ?? 0,
    },
  );
  const providerQueues = new Map<string, PQueue>();
  const stopper = new AbortController();
  let stopReason: string | undefined;
  const stopRun = (reason: string): void => {
    if (stopReason !== undefined || options.signal.aborted) return;
    stopReason = reason;
    stopper.abort(new Error(reason));
  };
  const signal = AbortSignal.any([options.signal, stopper.signal]);
  let baseTests: Promise<BaseTests | undefined> | undefined;
  return {
    plan,
    signal,
    stopRun,
    stoppedBecause: () => stopReason,
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
    ends: candidateEnds(),
    secrets,
    baseTests: () => {
      baseTests ??= runBaseReference({ plan, secrets, signal, emit }).then((result) => {
        if (result.ok) return result.value;
        stopRun("base's run of a report check left nothing to hold the candidates to");
        return undefined;
      });
      return baseTests;
    },
  };
}
