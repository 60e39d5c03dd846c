/**
 * What a test runner's machine report says, test by test (a check's `report` key): the shape every
 * parser of ./parse.ts returns and the engine judges against base's reference (./judge.ts).
 */
import type { TestReportKind } from '../../spec/schema-parts.js';

export type { TestReportKind };

/** A test's outcome as the report gives it; `errored` is a test that could not run or crashed (JUnit's `<error>`, TAP's bail out). */
export type TestOutcome = 'passed' | 'failed' | 'skipped' | 'errored';

export interface TestCaseResult {
  /**
   * The test's name, stable between runs of the same tests: JUnit `classname::name` (or `name`
   * when it has no classname), TAP the description (its number only when it has none), go-json
   * `package/Test/Subtest`. A name met twice gets ` #2`, ` #3`... in the order of the report.
   */
  readonly name: string;
  readonly outcome: TestOutcome;
  /** A failure's or error's first lines, bounded; none for a pass. */
  readonly message?: string;
}

/** What the check left to read: its stdout (TAP, go-json) and the files it wrote into `$BESTOF_REPORT_DIR` (JUnit). */
export interface ReportInput {
  readonly stdout: string;
  /** Every regular file of the report folder, by name relative to it, read as UTF-8. */
  readonly files: ReadonlyArray<{ readonly name: string; readonly text: string }>;
}

/** A report read, or why none could be: `missing` (nothing written), `unreadable` (written but not a report of that kind). */
export type ParsedReport =
  | { readonly ok: true; readonly tests: readonly TestCaseResult[] }
  | { readonly ok: false; readonly reason: 'missing' | 'unreadable'; readonly detail: string };

/**
 * A test as a candidate's report was judged against base's (./judge.ts): its role says what base
 * made of it. `fail_to_pass`: it failed or errored on base, a target of the task; `pass_to_pass`:
 * it passed on base and must still pass; `skipped_on_base`: base skipped it, so it says nothing of
 * the task (reported, not counted); `new`: base's report had no such test (reported, never counted).
 */
export type TestRole = 'fail_to_pass' | 'pass_to_pass' | 'skipped_on_base' | 'new';

/** A test of a candidate's report, or one of base's that the report lacks. */
export interface JudgedTest {
  readonly name: string;
  /** `missing`: base ran it and the candidate's report does not have it (never read as skipped). */
  readonly outcome: TestOutcome | 'missing';
  readonly role: TestRole;
  readonly message?: string;
}

/** What a check's report came to (carried by its CheckOutcome, so by check.finished, state.json and the reports). */
export interface CheckReport {
  readonly kind: TestReportKind;
  /** Every test of base's report, then the candidate's new ones; in report order. */
  readonly tests: readonly JudgedTest[];
  /** Base's tests: what partial credit divides by. */
  readonly expected: number;
  /** Of those, how many passed here. */
  readonly passed: number;
  /** Base's tests that this report does not have. */
  readonly missing: number;
  /**
   * Why the check failed by its report, in words for the UI, the reports and the retry prompt
   * ("no test report", "12 tests went missing", "3 of 50 tests failed"); none when it passed.
   */
  readonly failure?: string;
}
