/**
 * RunEvent: the one stream that flows from the engine to every front end (the Ink UI,
 * the plain reporter, the event log). Every step of a run emits exactly one event; the
 * event log is the record of what happened, and state.json / report.json are folds of it
 * (./run-state.ts). Adding a variant means handling it in every exhaustive switch, which
 * the compiler enforces.
 */
import type { TamperedPath } from '../checks/frozen.js';
import type { CheckOutcome } from '../checks/run-checks.js';
import type { Outcome, TokenUsage } from '../providers/types.js';
import type { MergeMode, ProviderKind } from '../spec/schema.js';
import type { RankEntry } from './select.js';
import type { StopReason } from './stop-rules.js';
import type { VoteCall, VoteResult, VoteStart } from './vote-record.js';

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
 * The format of a run's record (events.jsonl, and state.json folded from it), said in its
 * run.started. Raise it when a change makes an older bestof misread a run (an event it would fold
 * wrongly, a field it would need and not find): that bestof then refuses to resume, send to, attach
 * to or clean the run, which it would act on without understanding it, and `ls` and `show` say whose
 * it is (src/cli/run-lookup.ts). A new event or field that an older bestof can ignore needs no new
 * format. Runs recorded before the number existed are format 1.
 */
export const RECORD_FORMAT = 1;

/**
 * Where a merge into `into` went on: the branch's tip when it was made, and, when that tip had moved
 * past `base` so that the merge's result is not the tree the winner was scored on, the result as the
 * checks scored it (./merge-check.ts). Absent for the modes that merge nothing.
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

interface Stamped {
  /** ISO time of the event. */
  readonly t: string;
}

export type RunEvent = Stamped &
  (
    | {
        readonly type: 'run.started';
        /** RECORD_FORMAT of the bestof that recorded the run; absent before it existed (format 1). */
        readonly recordFormat?: number;
        readonly runId: string;
        readonly name: string;
        readonly repo: string;
        readonly base: string;
        readonly baseCommit: string;
        readonly runDir: string;
        readonly specPath: string;
        readonly candidates: readonly CandidateInfo[];
        readonly checks: readonly { readonly name: string; readonly score: number }[];
        readonly maxScore: number;
        readonly scoreThreshold: number;
        readonly maxIterations: number;
        readonly mergeMode: MergeMode;
        /** The tip of the branch a winner is merged into (`select.into`) when the run started: the merge checks it did not move under the user's checkout. */
        readonly intoCommit?: string;
        readonly budget?: { readonly maxTotalCostUsd?: number; readonly maxCandidateCostUsd?: number; readonly warnAtUsd?: number };
      }
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
        /** What the candidate's setup is doing now (src/engine/setup-progress.ts): a step as it starts, and a running command every 10 s. */
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
        readonly verdict: 'lgtm' | 'refuse' | 'none';
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
        /** madeBinary: files that were text in base and are binary in its commit (../git/diff.ts). */
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
    | { readonly type: 'selection.finished'; readonly ranking: readonly RankEntry[]; readonly winner: string | undefined; readonly message: string }
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
