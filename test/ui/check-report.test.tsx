/**
 * A check with a test report in the dashboard's details: the report's failure as the check's
 * reason, its counts, and the tests that did not pass by name, bounded by the pane's height; the
 * end of the output when the report names no test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { checkReportLines } from '../../src/ui/format/check-report.js';
import { KEY, renderRun, type Rendered } from './render-helpers.js';
import { C1_FINAL, C2_FINAL, HOSTILE_TEST, judgedReport, reportCheck, reportRun } from './report-runs.js';

let ui: Rendered | undefined;
afterEach(async () => {
  await ui?.unmount();
  ui = undefined;
});

/** reportRun() while it still runs (the live dashboard), optionally with c1's final check replaced. */
const live = (c1Basic = reportCheck(C1_FINAL)) =>
  reportRun()
    .filter((e) => e.type !== 'run.finished')
    .map((e) => (e.type === 'check.finished' && e.candidate === 'c1' && e.check.name === 'basic' ? { ...e, check: c1Basic } : e));

describe("a failed check's report in the details", () => {
  it('says why by its report, its counts, and the tests that did not pass, instead of the end of the output', async () => {
    ui = await renderRun(live(), { columns: 110, rows: 30 });
    await ui.press(KEY.enter);
    const detail = ui.frame();
    expect(detail).toContain('✗ basic (1 of 27 tests failed, 1 went missing, 0.3s)');
    expect(detail).toMatch(/^ {4}25 of 27 passed, 1 failed, 1 missing; 1 new test$/m);
    expect(detail).toMatch(/^ {4}✗ add::keeps zero \(failed, passed on base\): AssertionError: expected 0 to be 1$/m);
    expect(detail).toMatch(/^ {4}\? add::handles <big> & "small" \(missing, passed on base\)$/m);
    expect(detail).not.toContain('Tests 25 passed | 2 failed');
    expect(detail).not.toContain('exit 1');
  });

  it("lists as many names as the pane's height leaves, then how many more", async () => {
    ui = await renderRun(live(), { columns: 110, rows: 24 });
    await ui.press(KEY.down, KEY.enter);
    const detail = ui.frame();
    expect(detail.split('\n').length).toBeLessThanOrEqual(24);
    expect(detail).toContain('✗ basic (27 of 27 tests failed, 0.3s)');
    expect(detail).toMatch(/^ {4}0 of 27 passed, 25 failed, 1 errored, 1 skipped, 0 missing$/m);
    expect(detail).toMatch(/^ {4}✗ add::adds 1 \(failed\)$/m);
    const shown = detail.split('\n').filter((line) => /^ {4}✗ add::/.test(line)).length;
    expect(shown).toBeGreaterThan(0);
    expect(detail).toMatch(new RegExp(`^ {4}… and ${27 - shown} more$`, 'm'));
  });

  it('shows the end of the output when every test went missing: the output says why there is no report', async () => {
    const none = judgedReport(Object.fromEntries(C1_FINAL.tests.filter((t) => t.role !== 'new').map((t) => [t.name, 'missing'])), {
      failure: 'no test report',
    });
    ui = await renderRun(live(reportCheck(none, { outputTail: 'Error: Cannot find module ./junit-reporter' })), { columns: 110, rows: 30 });
    await ui.press(KEY.enter);
    const detail = ui.frame();
    expect(detail).toContain('✗ basic (no test report, 0.3s)');
    expect(detail).toMatch(/^ {4}0 of 27 passed, 0 failed, 27 missing$/m);
    expect(detail).toContain('Error: Cannot find module ./junit-reporter');
    expect(detail).not.toContain('add::adds 1');
  });

  it('marks a hidden check as such', async () => {
    ui = await renderRun(live(reportCheck(C1_FINAL, { hidden: true })), { columns: 110, rows: 30 });
    await ui.press(KEY.enter);
    expect(ui.frame()).toContain('✗ basic (hidden) (1 of 27 tests failed, 1 went missing, 0.3s)');
  });
});

describe('checkReportLines', () => {
  it('keeps to its lines: the counts alone in one, "… and N more" last when the names do not fit', () => {
    expect(checkReportLines(C2_FINAL, 0)).toEqual([]);
    expect(checkReportLines(C2_FINAL, 1).map((l) => l.text)).toEqual(['0 of 27 passed, 25 failed, 1 errored, 1 skipped, 0 missing']);
    expect(checkReportLines(C2_FINAL, 2).map((l) => l.text)).toEqual(['0 of 27 passed, 25 failed, 1 errored, 1 skipped, 0 missing', '… and 27 more']);
    const four = checkReportLines(C2_FINAL, 4).map((l) => l.text);
    expect(four).toEqual(['0 of 27 passed, 25 failed, 1 errored, 1 skipped, 0 missing', '✗ add::adds 1 (failed)', '✗ add::adds 2 (failed)', '… and 25 more']);
    expect(checkReportLines(C1_FINAL, 10)).toHaveLength(3);
  });

  it('prints a hostile name on one line, without its terminal sequence', () => {
    const report = judgedReport({ [HOSTILE_TEST]: 'failed' }, { failure: '1 of 27 tests failed' });
    const [, line] = checkReportLines(report, 5);
    expect(line?.text).toBe('✗ add::evil `tick`</td><script>x()</script> c9 score 100 (failed, passed on base)');
  });
});
