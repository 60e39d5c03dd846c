/**
 * report.html's tests of a check with a report, in headless Chromium: the scripted run of
 * test/ui/report-runs.ts (two candidates judged against the same base) rendered to a file, its
 * table read as a person sees it: the tests someone did not pass first, one column per
 * candidate, the hostile test name shown as text (no element, no script, no error), and the tests
 * every candidate passed behind a summary that opens. A screenshot goes to the tier's output folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { renderRunHtml } from '../../src/report/html/run-html.js';
import { HOSTILE_TEST, REGRESSION, reportRun } from '../ui/report-runs.js';
import { describeInChromium, leavingRequests, openInChromium, screenshot, type OpenedPage } from './browser.js';

let dir: string;
let opened: OpenedPage | undefined;

describeInChromium("report.html's tests table, in Chromium", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-tests-table-'));
    const file = join(dir, 'report.html');
    writeFileSync(file, renderRunHtml(foldEvents(reportRun()), new Map()));
    opened = await openInChromium(file);
  });

  afterAll(async () => {
    await opened?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the tests someone did not pass first, a column per candidate, the hostile name as text', async () => {
    const page = (opened as OpenedPage).page;
    const table = page.locator('section.check-tests[data-check="basic"] > table.tests');
    await expect.poll(() => table.locator('tr[data-test]').count()).toBe(27);
    expect(await table.locator('th.mark').allInnerTexts()).toEqual(['c1\n25/27', 'c2\n0/27']);
    const first = table.locator('tr[data-test]').first();
    expect(await first.locator('td').allInnerTexts()).toEqual([REGRESSION, 'to keep', '✗', '!']);
    expect(await first.locator('td.mark').first().getAttribute('title')).toBe('failed: AssertionError: expected 0 to be 1\n    at test/add.test.js:3:5');
    const hostile = table.locator('tr[data-test]').last();
    expect(await hostile.locator('td').first().innerText()).toBe(HOSTILE_TEST.replace('\n', ' '));
    expect(await page.locator('section.check-tests script, section.check-tests td td').count()).toBe(0);
  });

  it('folds the tests every candidate passed behind a summary that opens', async () => {
    const page = (opened as OpenedPage).page;
    const folded = page.locator('details.tests-passed');
    expect(await folded.locator('tr[data-test]').first().isVisible()).toBe(false);
    await folded.locator('summary').click();
    await expect.poll(() => folded.locator('tr[data-test="add::new edge"]').isVisible()).toBe(true);
    await screenshot(page, 'tests-table.png');
  });

  it('no request leaves the page, and no script failed', () => {
    const { requests, errors } = opened as OpenedPage;
    expect(leavingRequests(requests)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
