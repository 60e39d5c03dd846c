/**
 * report.html's layout and its unknown costs, in Chromium: the built binary runs a command agent
 * (which reports no cost) beside a script agent, on a check worth 100 points. Every place a cost
 * shows says "–" for the command agent, never "$0.0000" (report.html's ranking and iterations,
 * report.md, `bestof show`); each line number of the unified and side-by-side diffs sits on its
 * own code row (same box top), with no border drawn across a row; a score ("100 / 100") stays on one line in a narrow window.
 */
import { chmodSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { IDLE_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { describeInChromium, openInChromium, screenshot, type OpenedPage } from './browser.js';

// A fix over several lines, and a file of many lines: a diff with hunks, deletions and additions.
const AGENT = `#!/bin/sh
printf 'export const add = (a, b) => {\\n  const sum = a + b;\\n  return sum;\\n};\\n' > src/add.mjs
i=1; while [ $i -le 40 ]; do echo "line $i of the notes"; i=$((i+1)); done > notes.txt
printf '# project\\n\\nAdds numbers.\\n' > README.md
`;

const CHECKS = `
[checks]
frozen = ["test/**", "scripts/check.sh"]

[[checks.items]]
name = "tests"
command = "scripts/check.sh"
score = 100
timeout = "60s"
`;

let project: Project;
let runDir: string;
let shown: string;
let opened: OpenedPage | undefined;

// The page-side measures, as source the page runs (the tests' TypeScript has no DOM types).
const MISALIGNED_ROWS = `(section) => {
  const off = [];
  for (const row of document.querySelectorAll(section + ' .d2h-diff-tbody tr')) {
    const number = row.querySelector('.d2h-code-linenumber, .d2h-code-side-linenumber');
    const code = row.querySelector('.d2h-code-line, .d2h-code-side-line');
    if (!number || !code) continue;
    const a = number.getBoundingClientRect();
    const b = code.getBoundingClientRect();
    if (Math.abs(a.top - b.top) > 0.5) off.push(number.textContent.trim() + ': ' + a.top + ' vs ' + b.top);
    // A border across a code row draws a stray line through the diff.
    const cell = getComputedStyle(code.closest('td'));
    if (cell.borderTopWidth !== '0px' || cell.borderBottomWidth !== '0px') off.push(number.textContent.trim() + ': a border across the row');
  }
  return off;
}`;
const LINES_OF = `(selector) => Array.from(document.querySelectorAll(selector), (cell) => {
  const range = document.createRange();
  range.selectNodeContents(cell);
  return new Set(Array.from(range.getClientRects(), (r) => Math.round(r.top))).size;
})`;

/** Each diff row whose line number's box top is not its code row's top ("number: top vs top"), or with a line across it. */
async function misalignedRows(page: Page, section: string): Promise<string[]> {
  return (await page.evaluate(`(${MISALIGNED_ROWS})(${JSON.stringify(section)})`)) as string[];
}

/** How many lines of text each matching element's content takes (the distinct tops of its line boxes). */
async function linesOf(page: Page, selector: string): Promise<number[]> {
  return (await page.evaluate(`(${LINES_OF})(${JSON.stringify(selector)})`)) as number[];
}

describeInChromium('report.html: unknown costs, diff rows and scores, in Chromium', () => {
  beforeAll(async () => {
    project = makeProject();
    const agent = project.writeOutside('agent.sh', AGENT);
    chmodSync(agent, 0o755);
    const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
    const spec = project.writeOutside(
      'run.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(agent)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n${CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
    );
    const run = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(run.code, run.stderr).toBe(0);
    const runId = (JSON.parse(run.stdout) as { runId: string }).runId;
    runDir = join(project.repo.dir, '.bestof', 'runs', runId);
    const show = await runCli(['show', runId], { cwd: project.repo.dir });
    expect(show.code, show.stderr).toBe(0);
    shown = show.stdout;
    opened = await openInChromium(join(runDir, 'report.html'));
    await opened.page.setViewportSize({ width: 820, height: 900 });
  });

  afterAll(async () => {
    await opened?.close();
    project?.cleanup();
  });

  it('shows "–" for the command agent\'s unknown cost in the ranking and in every iteration, never $0', async () => {
    const page = (opened as OpenedPage).page;
    const ranking = page.locator('#ranking tr[data-candidate="c1"]');
    expect(await ranking.innerText()).toContain('100 / 100');
    const costColumn = await page.locator('#ranking tr th').allInnerTexts();
    expect((await ranking.locator('td').allInnerTexts())[costColumn.indexOf('cost')]).toBe('–');
    const iterations = page.locator('details.candidate[data-candidate="c1"] table.iterations');
    const heads = await iterations.locator('tr th').allInnerTexts();
    const at = heads.indexOf('cost') + 1;
    const costs = await iterations.locator(`tr:not(:first-child) td:nth-child(${at})`).allInnerTexts();
    expect(costs.length).toBeGreaterThan(0);
    expect(
      costs.every((c) => c === '–'),
      costs.join(', '),
    ).toBe(true);
    expect(await page.locator('details.candidate[data-candidate="c1"]').innerText()).not.toContain('$0');
  });

  it('report.md and `bestof show` show the same "–", never $0', () => {
    for (const text of [readFileSync(join(runDir, 'report.md'), 'utf8'), shown]) {
      const row = text.split('\n').find((l) => l.startsWith('| 1 | c1 '));
      expect(row, text).toBeDefined();
      expect(row?.split('|').map((c) => c.trim())).toContain('–');
      expect(row).not.toContain('$0');
    }
  });

  it('puts each line number of the unified diff on its own code row', async () => {
    const page = (opened as OpenedPage).page;
    const section = 'details.candidate[data-candidate="c1"]';
    await expect.poll(() => page.locator(`${section} .d2h-code-linenumber`).count()).toBeGreaterThan(40);
    await screenshot(page, 'report-layout-unified.png');
    expect(await misalignedRows(page, section)).toEqual([]);
  });

  it('puts each line number of the side-by-side diff on its own code row', async () => {
    const page = (opened as OpenedPage).page;
    const section = 'details.candidate[data-candidate="c1"]';
    await page.locator('.toolbar button[data-format="side-by-side"]').click();
    await expect.poll(() => page.locator(`${section} .d2h-code-side-linenumber`).count()).toBeGreaterThan(40);
    expect(await misalignedRows(page, section)).toEqual([]);
    await page.locator('.toolbar button[data-format="line-by-line"]').click();
  });

  it('keeps a score ("100 / 100") on one line in a narrow window', async () => {
    const page = (opened as OpenedPage).page;
    const heads = await page.locator('#ranking tr th').allInnerTexts();
    const column = heads.indexOf('score') + 1;
    const lines = await linesOf(page, `#ranking tr[data-candidate] td:nth-child(${column})`);
    expect(lines.length).toBe(2);
    expect(lines).toEqual([1, 1]);
  });
});
