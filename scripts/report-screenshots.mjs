#!/usr/bin/env node
/**
 * The two screenshots of the HTML reports (README.md and docs/reports.md), made from real runs of the built binary:
 *
 *   npm run report:screenshots        (builds first; needs Chromium: apt-get install chromium)
 *
 * docs/images/report-run.png: report.html of the embedded demo (configs/demo.toml: three scripted
 * agents, one of which rewrites the tests), with the failing check of the hasty candidate opened.
 * docs/images/report-bench.png: bench.html of the example bench (configs/bench/bench.toml: the
 * demo's task by its three agents, twice each).
 *
 * Both run in a temp git repo holding a copy of configs/, so this checkout gets no branch and no
 * run folder. Chromium is Debian's (/usr/bin/chromium, or BESTOF_CHROMIUM), driven by
 * playwright-core, headless, with a fresh profile and no network features.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'bestof.js');
const OUT = join(ROOT, 'docs', 'images');
const CHROMIUM = process.env.BESTOF_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const work = mkdtempSync(join(tmpdir(), 'bestof-screenshots-'));
const repo = join(work, 'repo');
const env = { ...process.env, NO_COLOR: '1', BESTOF_WORKTREES_DIR: join(work, 'worktrees') };

function git(...args) {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
}

/** Runs the built bestof in the temp repo; its stdout. A non-zero exit stops the script. */
function bestof(...args) {
  return execFileSync(process.execPath, [BIN, ...args], { cwd: repo, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

async function shoot(file, target, prepare, clipHeight) {
  const profile = mkdtempSync(join(work, 'chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1280, height: 900 },
    deviceScaleFactor: 1,
  });
  try {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.goto(`file://${file}`);
    await prepare(page);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    await page.screenshot({ path: target, fullPage: true, clip: { x: 0, y: 0, width: 1280, height: Math.min(height, clipHeight) } });
    process.stdout.write(`written: ${target}\n`);
  } finally {
    await context.close();
  }
}

try {
  mkdirSync(repo);
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'bestof demo');
  git('config', 'user.email', 'demo@example.com');
  cpSync(join(ROOT, 'configs'), join(repo, 'configs'), { recursive: true });
  git('add', '-A');
  git('commit', '--quiet', '-m', 'the demo');
  mkdirSync(OUT, { recursive: true });

  bestof('run', 'configs/demo.toml', '--no-tui');
  const runHtml = bestof('show', 'latest', '--html', join(work, 'report.html')).trim();
  await shoot(
    runHtml,
    join(OUT, 'report-run.png'),
    async (page) => {
      // The hasty candidate's first failing check, opened, as a reader would.
      await page.locator('#check-matrix tr[data-candidate="c2"] button.cell').first().click();
      await page.locator('details.candidate[data-candidate="c1"] .d2h-file-wrapper').first().waitFor();
    },
    1700,
  );

  bestof('bench', 'configs/bench/bench.toml', '--out', join(work, 'bench'), '--html', '--no-tui');
  await shoot(join(work, 'bench', 'bench.html'), join(OUT, 'report-bench.png'), async () => {}, 1400);
} finally {
  rmSync(work, { recursive: true, force: true });
}
