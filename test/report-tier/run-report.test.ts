/**
 * report.html of a real run, in a real browser: the built binary runs two script agents (c1
 * gets add() wrong and rewrites the frozen test, with hostile text in a file it adds; c2 fixes
 * add()), writes report.html at the end of the run, and `bestof show --html` writes it again to
 * a file of our choosing. Opened in headless Chromium: the verdict, the ranking, the check
 * matrix (a failing cell opens its output), every candidate's diff drawn by diff2html with
 * highlighting in both layouts, no script of the candidate's run, and no request that leaves
 * the page. A screenshot goes to the tier's output folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { describeInChromium, leavingRequests, openInChromium, screenshot, type OpenedPage } from './browser.js';

const HOSTILE = "</script><script>window.pwned = 1; document.title = 'pwned'</script>";

const GAMER = `
[[steps]]
write = "src/add.mjs"
content = "export const add = (a, b) => a * b + 1;\\n"
[[steps]]
write = "test/add.test.mjs"
content = "import { test } from 'node:test';\\ntest('ok', () => {});\\n"
[[steps]]
write = "notes.md"
content = ${JSON.stringify(`${HOSTILE}\n`)}
`;

let project: Project;
let runId: string;
let runDir: string;
let shownFile: string;
let opened: OpenedPage | undefined;

describeInChromium('report.html of a real run, in Chromium', () => {
  beforeAll(async () => {
    project = makeProject();
    const gamer = project.writeOutside('gamer.toml', GAMER);
    const honest = project.writeOutside('honest.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'run.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(gamer)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(honest)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
    );
    const run = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(run.code, run.stderr).toBe(0);
    runId = (JSON.parse(run.stdout) as { runId: string }).runId;
    runDir = join(project.repo.dir, '.bestof', 'runs', runId);
    shownFile = join(project.outside, 'shown.html');
    const show = await runCli(['show', runId, '--html', shownFile], { cwd: project.repo.dir });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toBe(`${shownFile}\n`);
    opened = await openInChromium(shownFile);
  });

  afterAll(async () => {
    await opened?.close();
    project?.cleanup();
  });

  it('the run wrote report.html itself, the same page `show --html` writes', () => {
    expect(existsSync(join(runDir, 'report.html'))).toBe(true);
    expect(readFileSync(join(runDir, 'report.html'), 'utf8')).toBe(readFileSync(shownFile, 'utf8'));
  });

  it('opens with the verdict first, naming the rule and the flagged candidate, then the ranking', async () => {
    const page = (opened as OpenedPage).page;
    await expect.poll(() => page.locator('#verdict .who').innerText()).toContain('Winner: c2');
    expect(await page.locator('#verdict .why').innerText()).toBe(
      'c2 won as the only candidate that could win (score 10 of 10); c1 flagged for editing test/add.test.mjs.',
    );
    const rows = await page.locator('#ranking tr[data-candidate]').all();
    expect(await Promise.all(rows.map((r) => r.getAttribute('data-candidate')))).toEqual(['c2', 'c1']);
    expect(await page.locator('#findings').innerText()).toContain('c1 modified test/add.test.mjs');
  });

  it("the check matrix: clicking c1's failing check shows the end of its output", async () => {
    const page = (opened as OpenedPage).page;
    expect(await page.locator('#check-matrix tr[data-candidate="c2"] td.pass').count()).toBe(1);
    const cell = page.locator('#check-matrix tr[data-candidate="c1"] button.cell');
    await expect.poll(() => cell.innerText()).toBe('FAIL');
    const panel = page.locator(`#${await cell.getAttribute('data-output')}`);
    expect(await panel.isVisible()).toBe(false);
    await cell.click();
    await expect.poll(() => panel.isVisible()).toBe(true);
    const output = await panel.innerText();
    expect(output).toContain('c1 · tests · exit 1');
    expect(output).toMatch(/fail 1|not ok/);
  });

  it("every candidate's diff, drawn by diff2html with highlighting, in both layouts", async () => {
    const page = (opened as OpenedPage).page;
    for (const id of ['c2', 'c1']) {
      const section = page.locator(`details.candidate[data-candidate="${id}"]`);
      if ((await section.getAttribute('open')) === null) await section.locator('summary').click();
      await expect.poll(() => section.locator('.d2h-file-wrapper').count()).toBeGreaterThan(0);
      expect(await section.locator('.d2h-file-name').allInnerTexts()).toEqual(expect.arrayContaining(['src/add.mjs']));
    }
    const c1 = page.locator('details.candidate[data-candidate="c1"]');
    expect(await c1.locator('.d2h-file-name').allInnerTexts()).toEqual(expect.arrayContaining(['notes.md', 'test/add.test.mjs']));
    expect(await page.locator('details.candidate[data-candidate="c2"] .d2h-code-line-ctn.hljs').count()).toBeGreaterThan(0);
    await page.locator('.toolbar button[data-format="side-by-side"]').click();
    await expect.poll(() => page.locator('details.candidate[data-candidate="c2"] .d2h-file-side-diff').count()).toBeGreaterThan(0);
    // The hostile text the candidate wrote is shown, as text.
    const c1Text = await c1.innerText();
    expect(c1Text).toContain(HOSTILE);
    expect(await c1.locator('script, img, iframe').count()).toBe(0);
    expect(await page.evaluate('typeof window.pwned')).toBe('undefined');
    expect(await page.title()).toBe(`bestof ${runId} — t`);
    await screenshot(page, 'run-report.png');
  });

  it('no request leaves the page, and no script failed', () => {
    const { requests, errors } = opened as OpenedPage;
    expect(requests[0]).toBe(`file://${shownFile}`);
    expect(leavingRequests(requests)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
