/**
 * A failed check's failing part as lines, the same for every place a user or an agent reads it:
 * the dashboard's details, `bestof show` and report.md, report.html, the retry prompt. The excerpt
 * itself is cut when the check ends (src/checks/failure-excerpt.ts), from the whole output; here
 * only the fallback for records written before it and the tests of a report by name.
 */
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { CheckReport } from '../../checks/test-report/types.js';
import { TEST_MARK, testMessageHead, testsNotPassed } from './test-report-words.js';

/** Non-blank lines, and characters, of a check's output end shown when a record has no excerpt. */
const OLD_RECORD_TAIL_LINES = 8;
const OLD_RECORD_TAIL_CHARS = 2000;

/** The failing part of a check's output: its excerpt, else (an older record) the last lines of its output's end. */
export function failingOutput(check: Pick<CheckOutcome, 'outputTail' | 'excerpt'>): string {
  if (check.excerpt !== undefined) return check.excerpt;
  const tail = check.outputTail
    .split('\n')
    .filter((line) => line.trim() !== '')
    .slice(-OLD_RECORD_TAIL_LINES)
    .join('\n');
  return tail.length > OLD_RECORD_TAIL_CHARS ? `…${tail.slice(-OLD_RECORD_TAIL_CHARS)}` : tail;
}

/**
 * The tests of a check's report that did not pass, by name with the first line of their message
 * (`✗ adds two numbers (failed): expected 3, got 4`), at most `max` lines with a last "… and N
 * more". Empty when the report names none (no report written, or every test passed).
 */
export function failingTestLines(report: CheckReport | undefined, max: number): string[] {
  if (!report || max <= 0) return [];
  const allMissing = report.expected > 0 && report.missing >= report.expected;
  const tests = allMissing ? [] : testsNotPassed(report);
  const shown = tests.length > max ? Math.max(0, max - 1) : tests.length;
  const lines = tests.slice(0, shown).map((test) => {
    const role = test.role === 'pass_to_pass' ? ', passed on base' : test.role === 'new' ? ', new' : '';
    const message = testMessageHead(test);
    return `${TEST_MARK[test.outcome]} ${test.name.replace(/\s+/g, ' ')} (${test.outcome}${role})${message ? `: ${message}` : ''}`;
  });
  if (tests.length > shown) lines.push(`… and ${tests.length - shown} more`);
  return lines;
}
