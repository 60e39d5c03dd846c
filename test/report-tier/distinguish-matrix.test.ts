/**
 * report.html's distinguishing tests in a real browser: the page of a run whose step decided
 * (test/ui/distinguish-runs.ts, a hostile tail in c1's failure) opened in headless Chromium. The
 * winner's row is marked, the dropped tests are greyed, clicking a failing cell shows the end of
 * its output as text, no script of the tail runs, and nothing leaves the page. A screenshot goes
 * to the tier's output folder.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { renderRunHtml } from '../../src/report/html/run-html.js';
import { ok } from '../../src/result.js';
import { distinguishRun } from '../ui/distinguish-runs.js';
import { describeInChromium, leavingRequests, openInChromium, screenshot, type OpenedPage } from './browser.js';

const HOSTILE = '</pre></div><script>window.pwned = 1; document.title = \'pwned\'</script><img src=x onerror="window.pwned = 2">';

let dir: string;
let file: string;
let opened: OpenedPage | undefined;

describeInChromium("report.html's distinguishing tests, in Chromium", () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'bestof-distinguish-html-'));
    file = join(dir, 'report.html');
    const state = foldEvents(distinguishRun({ c1Tail: `AssertionError: accents\n${HOSTILE}` }));
    writeFileSync(file, renderRunHtml(state, new Map(state.order.map((id) => [id, ok('')]))));
    opened = await openInChromium(file);
  });

  afterAll(async () => {
    await opened?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('marks the winner, greys the dropped tests, and a failing cell opens the end of its output as text, which runs nothing', async () => {
    const page = (opened as OpenedPage).page;
    const matrix = page.locator('#distinguish-matrix');
    await expect.poll(() => page.locator('p.decided').innerText()).toBe('c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1');
    expect(await matrix.locator('tr.winner').getAttribute('data-target')).toBe('c2');
    expect(await matrix.locator('tr[data-target="c2"] td.pass').count()).toBe(2);
    const dropped = matrix.locator('th[data-test="t3"]');
    expect(
      Number(await dropped.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { opacity: string } }).getComputedStyle(el).opacity)),
    ).toBeLessThan(1);
    expect(await dropped.getAttribute('title')).toBe('test_slow.py — dropped: it timed out');
    const cell = matrix.locator('tr[data-target="c1"] td[data-outcome="failed"] button.cell').first();
    const panel = page.locator(`#${await cell.getAttribute('data-output')}`);
    expect(await panel.isVisible()).toBe(false);
    await cell.click();
    await expect.poll(() => panel.isVisible()).toBe(true);
    expect(await panel.innerText()).toContain(`t1 (test_accents.py) on c1 · FAIL\nAssertionError: accents\n${HOSTILE}`);
    expect(await panel.locator('script, img').count()).toBe(0);
    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    const { requests, errors } = opened as OpenedPage;
    expect(leavingRequests(requests)).toEqual([]);
    expect(errors).toEqual([]);
    await screenshot(page, 'distinguish-matrix.png');
  });
});
