/**
 * The plain data of a bench: the matrix it runs and the record of each trial, as bench.json
 * holds them. Everything is JSON-ready, so that the file the engine writes, the shards a CI
 * matrix uploads and the merged file are the same shape, and every report (Markdown, JUnit,
 * a baseline comparison) is computed from the records alone, never from a summary of them.
 *
 * A bench is a matrix of cells: task x agent x trial (trials numbered 1..n). A task's `bar` is
 * the resolved rate its task x agent pair must reach for its JUnit case to pass.
 *
 * Infra failures (a setup that failed, a CLI that could not start) are records too, with
 * `infra: true`: they say nothing about the agent, so every rate leaves them out and the
 * reports list them apart. Their cost and duration are left out of the per-agent statistics
 * for the same reason (a trial that never started has no meaningful cost).
 */
import type { RunStatus } from '../engine/record/events.js';

/** The bench.json format this code reads and writes; a file of another format is refused. */
export const BENCH_FORMAT_VERSION = 1;

/** An agent of the matrix: an id the reports name it by (`claude-sonnet`), its provider kind and model. */
export interface BenchAgent {
  readonly id: string;
  readonly kind: string;
  /** `null` for kinds that have none (`script`, `command`). */
  readonly model: string | null;
}

export interface BenchTask {
  readonly id: string;
  /** The resolved rate in [0, 1] a task x agent pair must reach for its JUnit test case to pass. */
  readonly bar: number;
}

/** The selection policies a bench can measure against an oracle: the run's `picks` (report.json) name each one's pick. */
export const SELECTION_POLICIES = ['tie_break', 'vote', 'distinguish'] as const;
export type SelectionPolicy = (typeof SELECTION_POLICIES)[number];

/** A `[[selections]]` entry: a policy, and the name the reports give it (the policy's, by default). */
export interface BenchSelection {
  readonly name: string;
  readonly policy: SelectionPolicy;
}

/** What a bench runs: every task with every agent, `trials` times. */
export interface BenchMatrix {
  readonly tasks: readonly BenchTask[];
  readonly agents: readonly BenchAgent[];
  /** Trials per cell (task x agent), at least 1. */
  readonly trials: number;
  /** The selections every trial is scored by; present only when some task has an oracle check. */
  readonly selections?: readonly BenchSelection[];
}

/** One trial of the matrix. `trial` is 1-based. */
export interface Cell {
  readonly task: string;
  readonly agent: string;
  readonly trial: number;
}

/** `--shard i/n`: the i-th (1-based) of n slices of the matrix. */
export interface Shard {
  readonly index: number;
  readonly count: number;
}

/** The status a run ended with, listed at run time so that bench.json can be checked. */
export const RUN_STATUSES = ['winner', 'no_winner', 'cancelled', 'failed'] as const satisfies readonly RunStatus[];
// The list must hold every RunStatus: adding one to the engine without adding it here fails to compile.
type AssertNever<T extends never> = T;
export type UnlistedRunStatus = AssertNever<Exclude<RunStatus, (typeof RUN_STATUSES)[number]>>;

/** How the trial's bestof run ended: its status and the run's one-line message. */
export interface TrialOutcome {
  readonly status: RunStatus;
  readonly reason: string;
}

/** One candidate of a trial against the task's oracle checks (src/bench/oracle.ts). */
export interface OracleVerdict {
  readonly candidate: string;
  /** Every oracle check passed on the candidate's final commit. */
  readonly passed: boolean;
  /** Why it failed (the check that failed and how, or "no commit"); empty when it passed. */
  readonly why: string;
}

/** One selection's pick in a trial, and whether the oracle passes it. */
export interface PolicyPick {
  /** The `[[selections]]` entry's name. */
  readonly selection: string;
  readonly policy: SelectionPolicy;
  /** `null`: the run picked no candidate (none eligible), which counts as a wrong pick. */
  readonly candidate: string | null;
  readonly passes: boolean;
  /** The policy did not decide this trial (no vote, no tie to tell apart), so its pick is the tie-break's. */
  readonly fellBack: boolean;
}

/** A trial of a task with an oracle: every candidate's verdict, and every selection's pick. */
export interface TrialOracle {
  readonly candidates: readonly OracleVerdict[];
  readonly picks: readonly PolicyPick[];
}

/** One trial: a bestof run of one task by one agent. */
export interface TrialRecord {
  readonly task: string;
  readonly agent: string;
  readonly kind: string;
  readonly model: string | null;
  /** The agent CLI's version as it reported it; `null` when it could not be asked (it did not start). */
  readonly cliVersion: string | null;
  readonly trial: number;
  readonly outcome: TrialOutcome;
  /** The task's resolved rule held (its fail-to-pass checks pass, its pass-to-pass checks still pass). */
  readonly resolved: boolean;
  readonly score: number;
  readonly maxScore: number;
  readonly iterations: number;
  readonly costUsd: number;
  /** Some call of the trial reported no cost (a command agent reports none): `costUsd` is then a lower bound, left out of the cost figures. Absent: known. */
  readonly costKnown?: false;
  readonly tokens: { readonly input: number; readonly output: number };
  readonly durationMs: number;
  /** An infrastructure failure: shown apart, left out of every rate and statistic. */
  readonly infra: boolean;
  /** Why, when `infra`; `null` otherwise. */
  readonly infraReason: string | null;
  /** The bestof run id of the trial, to open its run folder. */
  readonly runId: string;
  /** When the task has oracle checks and the trial is not an infra failure. */
  readonly oracle?: TrialOracle;
  /**
   * The frozen paths a candidate of the trial changed (a test it edited, a check script it
   * rewrote), sorted: the trial tampered. That candidate is never the resolved one, and the reports
   * say so apart from the lazy trials. Absent when no candidate did.
   */
  readonly tampered?: readonly string[];
}

/** What ran the bench, so that a result can be traced to the code that produced it. */
export interface BenchHarness {
  readonly bestofVersion: string;
  /** The git commit of bestof itself, when it runs from a checkout; `null` from a package. */
  readonly gitCommit: string | null;
}

/** bench.json: one run of a bench, or one shard of it, or the merge of its shards. */
export interface BenchFile {
  readonly format: typeof BENCH_FORMAT_VERSION;
  readonly bench: string;
  /** A hash of the bench spec: shards of different specs are never merged. */
  readonly specHash: string;
  readonly matrix: BenchMatrix;
  /** `null` for the whole matrix (an unsharded run, or merged shards). */
  readonly shard: Shard | null;
  /** ISO 8601 times. */
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly harness: BenchHarness;
  /** In matrix order (see `allCells`), one per cell that ran. */
  readonly records: readonly TrialRecord[];
}
