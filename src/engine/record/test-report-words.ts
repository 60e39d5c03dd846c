/**
 * A check's test report (CheckReport, carried by its CheckOutcome into the record) in words, the
 * same for every place a user reads a run: the dashboard's details, the plain lines, report.md,
 * report.html. Here in the record's room because both the UI and the reports import the engine
 * and neither imports the other; it decides nothing (the judge did), it only says.
 */
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { CheckReport, JudgedTest } from '../../checks/test-report/types.js';
import { plural } from '../words.js';

/** The outcomes a test can have once judged against base. */
export type JudgedOutcome = JudgedTest['outcome'];

/**
 * A test that did not pass comes first in lists, the worst first: a failure, a crash, a test
 * that went missing, a skip. Passed is last.
 */
const OUTCOME_ORDER: Readonly<Record<JudgedOutcome, number>> = { failed: 0, errored: 1, missing: 2, skipped: 3, passed: 4 };

/** One mark per outcome, for tables and tight lines. */
export const TEST_MARK: Readonly<Record<JudgedOutcome, string>> = { passed: '✓', failed: '✗', errored: '!', missing: '?', skipped: '-' };

/** The words of base's role for a test that did not pass here: what base made of it. */
const ROLE_WORDS: Readonly<Record<JudgedTest['role'], string>> = {
  fail_to_pass: 'failed on base too',
  pass_to_pass: 'passed on base',
  skipped_on_base: 'skipped on base: not counted',
  new: 'new: not in base',
};

/** A test of base's that the check holds the candidate to (not a new one, nor one base skipped). */
export function counted(test: JudgedTest): boolean {
  return test.role === 'fail_to_pass' || test.role === 'pass_to_pass';
}

/** Whether this test costs the check something: a base test that did not pass, or a new test that failed or errored. */
function notPassed(test: JudgedTest): boolean {
  if (!counted(test)) return test.outcome === 'failed' || test.outcome === 'errored';
  return test.outcome !== 'passed';
}

/**
 * The tests a reader wants to see: base's tests that did not pass (failed, errored, missing,
 * skipped, in that order), then the new tests that failed; each group in the report's order.
 */
export function testsNotPassed(report: CheckReport): JudgedTest[] {
  const rank = (t: JudgedTest): number => (counted(t) ? 0 : 10) + OUTCOME_ORDER[t.outcome];
  return report.tests
    .map((test, index) => ({ test, index }))
    .filter(({ test }) => notPassed(test))
    .sort((a, b) => rank(a.test) - rank(b.test) || a.index - b.index)
    .map(({ test }) => test);
}

/** "48 of 50 passed, 2 failed, 0 missing; 1 new test": base's tests first, the new ones after. */
export function testCountsWords(report: CheckReport): string {
  const base = report.tests.filter(counted);
  const count = (outcome: JudgedOutcome): number => base.filter((t) => t.outcome === outcome).length;
  const parts = [`${report.passed} of ${report.expected} passed`, `${count('failed')} failed`];
  if (count('errored') > 0) parts.push(`${count('errored')} errored`);
  if (count('skipped') > 0) parts.push(`${count('skipped')} skipped`);
  parts.push(`${report.missing} missing`);
  const fresh = report.tests.filter((t) => t.role === 'new');
  const freshFailing = fresh.filter(notPassed).length;
  const freshWords = fresh.length > 0 ? `; ${plural(fresh.length, 'new test')}${freshFailing > 0 ? ` (${freshFailing} failing)` : ''}` : '';
  return `${parts.join(', ')}${freshWords}`;
}

/** "failed (passed on base)": a test's outcome and what base made of it, for a test that did not pass. */
export function testOutcomeWords(test: JudgedTest): string {
  return `${test.outcome} (${ROLE_WORDS[test.role]})`;
}

/** The first line of a test's failure message, cut to `max` characters; empty when it has none. */
export function testMessageHead(test: JudgedTest, max = 160): string {
  const first = (test.message ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
  const line = first.trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** How a check's process ended: "timed out", "exit 1", "did not run to its end". */
export function processEndWords(check: CheckOutcome): string {
  if (check.timedOut) return 'timed out';
  return check.exitCode === undefined ? 'did not run to its end' : `exit ${check.exitCode}`;
}

/**
 * Why a failed check failed, in the fewest words: its report's ("3 of 50 tests failed", "no test
 * report"), else how its process ended ("timed out", "exit 1").
 */
export function checkFailureWords(check: CheckOutcome): string {
  return check.report?.failure ?? processEndWords(check);
}
