/**
 * A failed check's test report in the dashboard's details: its counts, then the tests that did
 * not pass by name, in as many lines as the pane gives it. The names tell more than the end of
 * the output (a runner prints its summary there, not which tests failed), so they take its place
 * when there are any to name.
 */
import type { CheckReport } from '../../checks/test-report/types.js';
import { failingTestLines } from '../../engine/record/failing-part.js';
import { testCountsWords } from '../../engine/record/test-report-words.js';
import { oneLine } from './text.js';

export interface ReportLine {
  readonly text: string;
  readonly tone: 'counts' | 'test' | 'more';
}

/**
 * At most `max` lines: the counts, then one line per test that did not pass (its mark, its name,
 * its outcome, its message's first line), and "… and N more" in the last line when they do not all fit. Only the counts
 * when no test is to be named, or when every test went missing (no report, or one the runner cut
 * short: the end of the output says why, the names of the tests it lost do not); none when `max` is 0.
 */
export function checkReportLines(report: CheckReport, max: number): ReportLine[] {
  if (max <= 0) return [];
  const lines: ReportLine[] = [{ text: testCountsWords(report), tone: 'counts' }];
  for (const text of failingTestLines(report, max - 1)) lines.push({ text: oneLine(text), tone: text.startsWith('… and ') ? 'more' : 'test' });
  return lines;
}
