/**
 * A failed check's test report in the dashboard's details: its counts, then the tests that did
 * not pass by name, in as many lines as the pane gives it. The names tell more than the end of
 * the output (a runner prints its summary there, not which tests failed), so they take its place
 * when there are any to name.
 */
import type { CheckReport } from '../../checks/test-report/types.js';
import { TEST_MARK, testCountsWords, testsNotPassed } from '../../engine/record/test-report-words.js';
import { oneLine } from './text.js';

export interface ReportLine {
  readonly text: string;
  readonly tone: 'counts' | 'test' | 'more';
}

/**
 * At most `max` lines: the counts, then one line per test that did not pass (its mark, its name,
 * its outcome), and "… and N more" in the last line when they do not all fit. Only the counts
 * when no test is to be named, or when every test went missing (no report, or one the runner cut
 * short: the end of the output says why, the names of the tests it lost do not); none when `max` is 0.
 */
export function checkReportLines(report: CheckReport, max: number): ReportLine[] {
  if (max <= 0) return [];
  const lines: ReportLine[] = [{ text: testCountsWords(report), tone: 'counts' }];
  const allMissing = report.expected > 0 && report.missing >= report.expected;
  const tests = allMissing ? [] : testsNotPassed(report);
  const room = max - 1;
  const shown = tests.length > room ? Math.max(0, room - 1) : tests.length;
  for (const test of tests.slice(0, shown)) {
    const role = test.role === 'pass_to_pass' ? ', passed on base' : test.role === 'new' ? ', new' : '';
    lines.push({ text: `${TEST_MARK[test.outcome]} ${oneLine(test.name)} (${test.outcome}${role})`, tone: 'test' });
  }
  if (tests.length > shown && room > 0) lines.push({ text: `… and ${tests.length - shown} more`, tone: 'more' });
  return lines;
}
