/**
 * What the distinguish step leaves in the record (`distinguish.*` events; run-state.ts folds them
 * into `RunState.distinguish`). The step (src/engine/run/stages/distinguish.ts) asks a tester
 * agent for test files that tell the finalists apart, runs every file on every finalist's scored
 * tree and on base, and ranks the finalists by dual execution agreement (./rank.ts). Everything
 * here is de-anonymised: the labels the tester saw are in `labels`, so that a reader can hold the
 * tester's prompt against the candidates.
 */

export type DistinguishWhen = 'tie' | 'always';

/** Where base's outcomes are filed in the matrix, beside the finalists' ids. */
export const BASE_TARGET = 'base';

/** One generated test file, as kept in the run folder (`distinguish/tests/<file>`). */
export interface GeneratedTest {
  /** `t1`, `t2`…, in the order of the files' names. */
  readonly id: string;
  /** Its path inside the tests folder, `/`-separated. */
  readonly file: string;
  /** sha256 of its bytes: a resumed step runs the very file it recorded. */
  readonly digest: string;
  readonly bytes: number;
  /**
   * `cross_tests`: the finalist whose commit added this test file (ids `x1`, `x2`…). It never runs
   * on its author's code, and counts as passed there (the author wrote it for its code).
   */
  readonly author?: string;
  /** `cross_tests`: its path in the author's commit. */
  readonly path?: string;
}

/** What distinguish.started records, before the tester is called. */
export interface DistinguishStart {
  /** The seed of the labels' shuffle: recorded, and reused on resume. */
  readonly seed: string;
  readonly when: DistinguishWhen;
  /** The finalists, in the ranking's order before the step (score, then `tie_break`). */
  readonly finalists: readonly string[];
  /** The scored commit of each finalist: a resumed step reuses nothing about another commit. */
  readonly commits: Readonly<Record<string, string>>;
  /** Which neutral label stood for which finalist in the tester's prompt. */
  readonly labels: readonly { readonly candidate: string; readonly label: string }[];
  readonly tester: { readonly kind: string; readonly model?: string };
  /** The command that runs one test file, `{file}` as given (relative to the repo root). */
  readonly command: string;
  /** `cross_tests`: each finalist's own new test files also run on the others. */
  readonly crossTests?: boolean;
  /** The folder, relative to the repo root, where the tester writes and where the files are laid for each run. */
  readonly folder: string;
}

/** The tester's call: the files it wrote (kept ones), what it cost, why it wrote none. */
export interface TesterCall {
  readonly tests: readonly GeneratedTest[];
  readonly costUsd: number;
  /** Files it wrote that are not kept (a link, too large, past the count), and why. */
  readonly refused?: readonly { readonly file: string; readonly reason: string }[];
  readonly error?: string;
  /** Taken from the interrupted step's record on resume, not asked again (its cost is counted once). */
  readonly reused?: true;
}

export type TestRunOutcome = 'passed' | 'failed' | 'timed_out';

/** One test file run on one target (a finalist, or `base`). */
export interface TestRun {
  readonly test: string;
  readonly target: string;
  readonly outcome: TestRunOutcome;
  /** The last lines of its output when it did not pass. */
  readonly tail?: string;
  /** Taken from the interrupted step's record on resume. */
  readonly reused?: true;
}

export interface DroppedTest {
  readonly test: string;
  readonly reason: string;
}

/** Finalists whose pass/fail vectors over the kept tests are identical. */
export interface AgreementGroup {
  /** In the ranking's order before the step. */
  readonly members: readonly string[];
  /** Kept tests each member passes. */
  readonly passed: number;
  /** members × passed: CodeT's dual execution agreement. */
  readonly score: number;
}

export interface DistinguishResult {
  /** Test ids that count, in id order. */
  readonly kept: readonly string[];
  readonly dropped: readonly DroppedTest[];
  /** Best first. */
  readonly groups: readonly AgreementGroup[];
  /** The finalists, best first: by group, then inside a group by the ranking before the step. */
  readonly order: readonly string[];
  /** Kept tests passed, per finalist. */
  readonly passed: Readonly<Record<string, number>>;
  /** One sentence: which rule decided. */
  readonly decided: string;
}

export interface DistinguishState {
  /** Absent when the step was skipped before it started (fewer than two finalists, the budget). */
  readonly start?: DistinguishStart;
  readonly call?: TesterCall;
  /** `cross_tests`: the finalists' own new test files. */
  readonly cross?: readonly GeneratedTest[];
  readonly runs: readonly TestRun[];
  readonly result?: DistinguishResult;
  /** Set when the step did not decide: why (selection falls back to `tie_break`). */
  readonly skipped?: string;
}

/** The step's events (src/engine/record/run-types.ts puts them into RunEvent's union). */
export type DistinguishEvent =
  /** Written before the tester is called: the seed and labels are reused on resume. */
  | ({ readonly type: 'distinguish.started' } & DistinguishStart)
  | ({ readonly type: 'distinguish.tester' } & TesterCall)
  /** `cross_tests`: the finalists' own new test files, each to run on the other finalists. */
  | { readonly type: 'distinguish.cross'; readonly tests: readonly GeneratedTest[] }
  | ({ readonly type: 'distinguish.run' } & TestRun)
  | { readonly type: 'distinguish.finished'; readonly result: DistinguishResult; readonly message: string }
  /** The step did not decide (fewer than two finalists, the budget, the tester wrote nothing): selection uses `tie_break`. */
  | { readonly type: 'distinguish.skipped'; readonly message: string };
