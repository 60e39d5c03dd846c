/**
 * The data of a run's record, types only: the events that flow from the engine to every front end
 * and to the event log (RunEvent), and the state folded from them (RunState, ./run-state.ts). Kept
 * apart from the logic that makes or folds them so that every module of the engine, the front ends
 * and the reports can name them without importing each other (a module of types imports no module
 * of logic of the engine, so no circle runs through it).
 *
 * Adding an event means handling it in every exhaustive switch, which the compiler enforces.
 */
import type { TamperedPath } from '../../checks/frozen.js';
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { Outcome, TokenUsage } from '../../providers/types.js';
import type { MergeMode, ProviderKind } from '../../spec/schema.js';
import type { VoteCall, VoteResult, VoteStart, VoteState } from '../../vote/record.js';
import type { DistinguishEvent, DistinguishState } from '../../distinguish/types.js';
import type { CandidateVote, RankEntry, SelectionPicks, WinnerChoice } from './ranking-types.js';

export type { CandidateVote, RankEntry, SelectionPicks, WinnerChoice } from './ranking-types.js';

export interface CandidateInfo {
  readonly id: string;
  /** 1-based; also BESTOF_INDEX and the PORT offset. */
  readonly index: number;
  readonly label: string;
  readonly provider: ProviderKind;
  readonly model: string | undefined;
  readonly branch: string;
  /** refs/bestof/<run>/<candidate>/kept: keeps the candidate's last commit reachable whatever happens. */
  readonly ref: string;
  readonly worktree: string;
}

/**
 * Where a merge into `into` went on: the branch's tip when it was made, and, when that tip had moved
 * past `base` so that the merge's result is not the tree the winner was scored on, the result as the
 * checks scored it (../merge/merge-check.ts). Absent for the modes that merge nothing.
 */
export interface MergeOnto {
  /** `into`'s tip the winner was merged onto (or would have been). */
  readonly tip: string;
  /** Commits on `into` since `base` (`git rev-list --count base..tip`): 0 when it had not moved. */
  readonly commitsPastBase: number;
  /** The merge's result scored by every check in a worktree of bestof's own; absent when it is the winner's scored tree. */
  readonly checked?: {
    /** The merge commit that was scored (made in that worktree; the user's branch never had it). */
    readonly commit: string;
    readonly score: number;
    readonly maxScore: number;
    readonly failedChecks: readonly string[];
    /** Checks the winner passed that the merge's result fails: not empty, `into` was not moved. */
    readonly lost: readonly string[];
  };
}

export type CandidateStatus = 'queued' | 'setup' | 'running' | 'checking' | 'reviewing' | 'done' | 'failed' | 'stopped' | 'cancelled';

export type RunStatus = 'winner' | 'no_winner' | 'cancelled' | 'failed';

/**
 * What a run is, said once in its run.started and kept as is in its state: where it runs, its
 * checks and limits, and how a winner is merged.
 */
export interface RunHeader {
  /** RECORD_FORMAT (./events.ts) of the bestof that recorded the run; absent before it existed (format 1). */
  readonly recordFormat?: number;
  readonly runId: string;
  readonly name: string;
  readonly repo: string;
  readonly base: string;
  readonly baseCommit: string;
  readonly runDir: string;
  readonly specPath: string;
  readonly checks: readonly { readonly name: string; readonly score: number }[];
  readonly maxScore: number;
  readonly scoreThreshold: number;
  readonly maxIterations: number;
  readonly mergeMode: MergeMode;
  /** The tip of the branch a winner is merged into (`select.into`) when the run started: the merge checks it did not move under the user's checkout. */
  readonly intoCommit?: string;
  readonly budget?: { readonly maxTotalCostUsd?: number; readonly maxCandidateCostUsd?: number; readonly warnAtUsd?: number };
}

/** A review's verdict (../select/review.ts): LGTM earns its points, refuse says why, none is a review that said neither. */
export type VerdictKind = 'lgtm' | 'refuse' | 'none';

/** Why a candidate stopped: a closed set, shown in events, the UI and the report (the list and what each means: ../loop/stop-rules.ts STOP_REASONS). */
export type StopReason =
  | 'completed'
  | 'threshold_reached'
  | 'max_iterations'
  | 'hard_limit'
  | 'regression'
  | 'candidate_duration'
  | 'run_duration'
  | 'budget_total'
  | 'budget_candidate'
  | 'breaker_same_failure'
  | 'breaker_errors'
  | 'breaker_no_diff'
  | 'rate_limited'
  | 'usage_limit'
  | 'auth_error'
  | 'setup_failed'
  | 'infrastructure_failed'
  | 'provider_failed'
  | 'stopped_by_user'
  | 'cancelled'
  | 'internal_error'
  | 'worktree_replaced'
  | 'other_reached_threshold';

interface Stamped {
  /** ISO time of the event. */
  readonly t: string;
}

export type RunEvent = Stamped &
  (
    | ({ readonly type: 'run.started'; readonly candidates: readonly CandidateInfo[] } & RunHeader)
    | { readonly type: 'run.resumed'; readonly resumed: readonly string[]; readonly finished: readonly string[] }
    | {
        readonly type: 'candidate.status';
        readonly candidate: string;
        readonly status: 'setup' | 'running' | 'checking' | 'reviewing';
        readonly iteration: number;
        /** The `[[prompts]]` phase of this iteration, when the spec has phases. */
        readonly phase?: string;
      }
    | { readonly type: 'candidate.setup'; readonly candidate: string; readonly ok: boolean; readonly message?: string; readonly copied: readonly string[] }
    | {
        /** What the candidate's setup is doing now (src/engine/workspace/setup-progress.ts): a step as it starts, and a running command every 10 s. */
        readonly type: 'candidate.setup_progress';
        readonly candidate: string;
        readonly step: 'checkout' | 'copy' | 'link' | 'submodules' | 'command';
        /** `copying node_modules (264 MB)`, `command 1/2 \`npm ci\` running for 20s` */
        readonly text: string;
      }
    | {
        /** What the candidate's agent CLI is, for reproducibility: version, argv (secrets redacted), model. */
        readonly type: 'candidate.provider';
        readonly candidate: string;
        readonly kind: ProviderKind;
        readonly binary: string;
        readonly version: string | undefined;
        readonly argv: readonly string[];
        readonly model: string | undefined;
      }
    | { readonly type: 'candidate.activity'; readonly candidate: string; readonly iteration: number; readonly text: string }
    | {
        readonly type: 'candidate.waiting';
        readonly candidate: string;
        readonly iteration: number;
        readonly reason: 'rate_limited' | 'usage_limit';
        readonly waitMs: number;
        readonly attempt: number;
      }
    | { readonly type: 'channel.received'; readonly candidate: string; readonly kind: 'message' | 'stop'; readonly text: string }
    | {
        readonly type: 'review.finished';
        readonly candidate: string;
        readonly iteration: number;
        readonly verdict: VerdictKind;
        readonly reason?: string;
        readonly points: number;
        readonly attempts: number;
      }
    | {
        readonly type: 'provider.finished';
        readonly candidate: string;
        readonly iteration: number;
        readonly outcome: Outcome;
        readonly message?: string;
        readonly costUsd: number;
        readonly usage: TokenUsage;
        readonly turns: number;
        readonly durationMs: number;
      }
    | { readonly type: 'candidate.committed'; readonly candidate: string; readonly iteration: number; readonly commit: string; readonly changedFiles: number }
    | { readonly type: 'check.finished'; readonly candidate: string; readonly iteration: number; readonly check: CheckOutcome }
    | { readonly type: 'candidate.tampered'; readonly candidate: string; readonly iteration: number; readonly paths: readonly TamperedPath[] }
    | {
        readonly type: 'candidate.scored';
        readonly candidate: string;
        readonly iteration: number;
        readonly score: number;
        readonly maxScore: number;
        readonly failedChecks: readonly string[];
        /** Points of the review's LGTM, included in `score`. */
        readonly reviewPoints?: number;
        /** The final scoring after the loop (every check counts), not an iteration's own. */
        readonly final?: boolean;
      }
    | {
        readonly type: 'candidate.finished';
        readonly candidate: string;
        readonly status: 'done' | 'failed' | 'stopped' | 'cancelled';
        readonly reason: StopReason;
        readonly message?: string;
        readonly iterations: number;
        readonly score: number;
        readonly commit: string | undefined;
        /** madeBinary: files that were text in base and are binary in its commit (../../git/history/diff.ts). */
        readonly diff: { readonly files: number; readonly insertions: number; readonly deletions: number; readonly madeBinary?: readonly string[] };
        readonly durationMs: number;
        readonly costUsd: number;
      }
    /** Written before any voter is called: the seed is reused on resume, so the orders are the same. */
    | ({ readonly type: 'vote.started' } & VoteStart)
    | ({ readonly type: 'vote.call' } & VoteCall)
    | { readonly type: 'vote.finished'; readonly result: VoteResult; readonly message: string }
    | {
        /** The vote did not decide (too few candidates, budget, a leak): selection ranks by checks alone. */
        readonly type: 'vote.skipped';
        readonly message: string;
        readonly seed?: string;
      }
    | DistinguishEvent
    | {
        readonly type: 'selection.finished';
        readonly ranking: readonly RankEntry[];
        readonly winner: string | undefined;
        readonly message: string;
        /** What each selection policy would have picked from the same candidates (`bestof bench` compares them). */
        readonly picks?: SelectionPicks;
      }
    | {
        /**
         * Written before bestof touches the user's branch, so that a run killed during or after the
         * merge and then resumed can tell whether the merge happened (and never merges twice).
         */
        readonly type: 'merge.started';
        readonly candidate: string;
        readonly mode: MergeMode;
        /** The scored commit of the winner. */
        readonly commit: string;
        /** The branch merged into, and its tip before the merge (for merge, squash and ff). */
        readonly into?: string;
        readonly intoBefore?: string;
      }
    | {
        readonly type: 'merge.finished';
        readonly candidate: string;
        readonly mode: MergeMode;
        readonly ok: boolean;
        readonly commit?: string;
        readonly branch: string;
        readonly message: string;
        /** merge, squash, ff: `into`'s tip it went onto, and the check of the result when that tip had moved past `base`. */
        readonly onto?: MergeOnto;
      }
    | {
        /**
         * After the run: the user chose another winner in the compare view and bestof merged it
         * (or tried: `ok`). Appended to the finished run's log (src/report/after-run.ts), so that
         * state.json, the reports, `show` and `ls` name the winner the user chose.
         */
        readonly type: 'winner.chosen';
        readonly candidate: string;
        /** The winner until then (the selection's, or an earlier choice's); undefined when the run had none. */
        readonly previous: string | undefined;
        readonly mode: MergeMode;
        readonly ok: boolean;
        /** The commit that reached the user's branch (merge, squash, ff). */
        readonly commit?: string;
        readonly branch: string;
        readonly message: string;
        readonly by: 'user';
      }
    | { readonly type: 'run.warning'; readonly message: string; readonly candidate?: string }
    | {
        /** `[select] stop_others = "on_threshold"`: `candidate` reached the threshold and can win; those in `stopping` start no new iteration. */
        readonly type: 'run.stopping_others';
        readonly candidate: string;
        readonly score: number;
        readonly stopping: readonly string[];
      }
    | { readonly type: 'reference.started'; readonly checks: readonly string[] }
    | {
        readonly type: 'reference.finished';
        /** Read from the cache of an earlier run on the same base (src/engine/scoring/base-reference.ts). */
        readonly cached: boolean;
        readonly checks: readonly ReferenceCheck[];
        /** Base's run of a report check left no report it could be held to: the run stops (exit 2). */
        readonly error?: string;
      }
    | {
        readonly type: 'run.finished';
        readonly status: RunStatus;
        readonly exitCode: number;
        readonly winner: string | undefined;
        readonly durationMs: number;
        readonly message: string;
      }
  );

export type RunEventType = RunEvent['type'];
export type EventOf<T extends RunEventType> = Extract<RunEvent, { type: T }>;

/** Distributes Omit over the union so that `emit({ type: ..., ... })` type-checks per variant. */
export type UnstampedEvent = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, 't'> : never) : never;

export type RunEventListener = (event: RunEvent) => void;

export interface IterationState {
  readonly iteration: number;
  readonly phase?: string;
  readonly outcome?: Outcome;
  readonly providerMessage?: string;
  readonly commit?: string;
  readonly score?: number;
  readonly checks: readonly CheckOutcome[];
  readonly tampered: readonly TamperedPath[];
  readonly review?: { readonly verdict: VerdictKind; readonly reason?: string; readonly points: number };
  readonly costUsd?: number;
  /** false when the iteration's agent call reported no cost (cost-known.ts): show "–", not $0. Absent: known. */
  readonly costKnown?: boolean;
}

export interface CandidateState extends CandidateInfo {
  readonly status: CandidateStatus;
  readonly reason?: StopReason;
  readonly message?: string;
  readonly iteration: number;
  readonly score: number | undefined;
  readonly maxScore: number;
  readonly costUsd: number;
  /**
   * false once an agent call of this candidate reported no cost: a command agent (it reports
   * nothing), or tokens of a model without a price. `costUsd` is then what the other calls cost,
   * not what the candidate cost. Absent in the records of older runs: read it with costIsKnown.
   */
  readonly costKnown?: boolean;
  readonly usage: TokenUsage;
  readonly commit: string | undefined;
  /** madeBinary: files text in base and binary in its commit; the diff shows only "Binary files differ" for them. */
  readonly diff: { readonly files: number; readonly insertions: number; readonly deletions: number; readonly madeBinary?: readonly string[] };
  readonly durationMs: number;
  readonly lastActivity: string;
  readonly phase?: string;
  /** The agent CLI as it was run (real providers only). */
  readonly cli?: { readonly binary: string; readonly version: string | undefined; readonly argv: readonly string[]; readonly model: string | undefined };
  /** Messages received through the channel, oldest first. */
  readonly messages: readonly string[];
  readonly iterations: readonly IterationState[];
  /** Every frozen path the candidate changed, over all iterations. */
  readonly tampered: readonly TamperedPath[];
  /** The final scoring (every check counts) has scored this candidate's last commit. */
  readonly finalScored?: boolean;
  /** Its place in the vote's combined ranking (vote.finished), when a vote decided. */
  readonly vote?: CandidateVote;
}

/** A report check as base ran it: how many tests it ran there, and how many of them failed (the task's targets). */
export interface ReferenceCheck {
  readonly name: string;
  readonly tests: number;
  readonly failing: number;
}

/** Base's run of the report checks (reference.started / reference.finished): when, from the cache or not, what it found. */
export interface ReferenceState {
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly cached?: boolean;
  readonly checks: readonly ReferenceCheck[];
  readonly error?: string;
}

export interface RunState extends RunHeader {
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly status: 'running' | RunStatus;
  readonly exitCode?: number;
  readonly message?: string;
  readonly order: readonly string[];
  readonly candidates: Readonly<Record<string, CandidateState>>;
  readonly ranking: readonly RankEntry[];
  /** The cross-review and vote (`[vote]`), when one was asked for. */
  readonly vote?: VoteState;
  /** The distinguishing tests (`[select.distinguish]`), when asked for. */
  readonly distinguish?: DistinguishState;
  /** What each selection policy would have picked (selection.finished). */
  readonly picks?: SelectionPicks;
  readonly winner?: string;
  /** Set when the user chose a winner in the compare view after the run (winner.chosen). */
  readonly chosen?: WinnerChoice;
  readonly selectionMessage?: string;
  readonly merge?: {
    readonly candidate: string;
    readonly mode: MergeMode;
    readonly ok: boolean;
    readonly commit?: string;
    readonly branch: string;
    readonly message: string;
    readonly onto?: MergeOnto;
  };
  /** A merge that began (merge.started); with no `merge`, the run was interrupted during or right after it. */
  readonly mergeStarted?: {
    readonly candidate: string;
    readonly mode: MergeMode;
    readonly commit: string;
    readonly into?: string;
    readonly intoBefore?: string;
  };
  readonly warnings: readonly string[];
  /** Base's run of the checks that read a test report, when the spec has such checks. */
  readonly reference?: ReferenceState;
  /** run.stopping_others: who reached the threshold first (`[select] stop_others`), and whom that stopped. */
  readonly stoppingOthers?: { readonly candidate: string; readonly score: number; readonly stopping: readonly string[] };
  /** Everything the run spent: the candidates' agent calls and the voters'. */
  readonly costUsd: number;
  /** false when some candidate's cost is unknown (CandidateState.costKnown): `costUsd` is then a lower bound. */
  readonly costKnown?: boolean;
  /** What the voters' calls cost, over every vote of the run (a resumed vote's new calls add to it). */
  readonly voteCostUsd: number;
  /** What the tester's calls cost (`[select.distinguish]`), counted once. @default 0 */
  readonly distinguishCostUsd?: number;
  /** From run.finished once the run has finished; until then (and for a run that was interrupted), from its start to its last event. */
  readonly durationMs: number;
}
