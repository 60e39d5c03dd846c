/**
 * bench.html of a real bench, in a real browser: the built binary runs the small bench of
 * test/helpers/bench-fixture.ts (2 tasks x 3 script agents x 2 trials, one trial lost to its
 * setup) in two shards, the first with --html, and `bestof bench merge --html` joins them.
 * The merged bench.html, opened in headless Chromium, has the heat map of every task x agent,
 * the rate chart with each agent's interval, and the cost scatter; nothing leaves the page.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { summarizeBench } from '../../src/bench/summary.js';
import type { BenchFile } from '../../src/bench/types.js';
import { writeBench } from '../helpers/bench-fixture.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { rmSync } from 'node:fs';
import { describeInChromium, leavingRequests, openInChromium, screenshot, type OpenedPage } from './browser.js';

let dir: string;
let opened: OpenedPage | undefined;

describeInChromium('bench.html of a real bench, in Chromium', () => {
  beforeAll(async () => {
    dir = makeTempDir('bestof-bench-html-');
    writeBench(dir, { trials: 2 });
    const shards = await Promise.all(
      [1, 2].map((i) =>
        runCli(['bench', 'bench.toml', '--shard', `${i}/2`, '--out', `out/${i}`, ...(i === 1 ? ['--html'] : [])], {
          cwd: dir,
          worktreesDir: join(dir, 'worktrees'),
        }),
      ),
    );
    for (const [i, shard] of shards.entries()) expect(shard.code, `shard ${i + 1}: ${shard.stderr}`).toBe(0);
    expect(shards[0]?.stdout).toContain(`written: ${join(dir, 'out', '1', 'bench.json')}, bench.md, junit.xml, bench.html\n`);
    const merged = await runCli(['bench', 'merge', 'out/1/bench.json', 'out/2/bench.json', '--out', 'merged', '--html'], { cwd: dir });
    expect(merged.code, merged.stderr).toBe(0);
    opened = await openInChromium(join(dir, 'merged', 'bench.html'));
  });

  afterAll(async () => {
    await opened?.close();
    if (dir && !process.env.KEEP_TEST_DIRS) rmSync(dir, { recursive: true, force: true });
  });

  it('--html writes bench.html beside bench.json; without it, none', () => {
    expect(existsSync(join(dir, 'out', '1', 'bench.html'))).toBe(true);
    expect(existsSync(join(dir, 'out', '2', 'bench.html'))).toBe(false);
  });

  it('the heat map has every task x agent with its resolved rate', async () => {
    const page = (opened as OpenedPage).page;
    const summary = summarizeBench(JSON.parse(readFileSync(join(dir, 'merged', 'bench.json'), 'utf8')) as BenchFile);
    expect(await page.locator('h1').innerText()).toBe('bestof bench — nightly');
    for (const c of summary.cells) {
      const cell = page.locator(`#heat-map tr[data-task="${c.task}"] td[data-agent="${c.agent}"]`);
      expect(await cell.getAttribute('data-verdict')).toBe(c.verdict);
      expect(await cell.innerText()).toBe(c.rate === null ? `skipped (1 infra failure)` : `${(c.rate * 100).toFixed(1)}% (${c.resolved}/${c.valid})`);
    }
  });

  it('the rate chart shows each agent with its 95% interval, and the cost scatter each agent', async () => {
    const page = (opened as OpenedPage).page;
    const summary = summarizeBench(JSON.parse(readFileSync(join(dir, 'merged', 'bench.json'), 'utf8')) as BenchFile);
    const chart = await page.locator('svg.rate-chart').innerHTML();
    for (const a of summary.agents) {
      expect(chart).toContain(`>${a.agent}</text>`);
      if (a.interval) expect(chart).toContain(`[${(a.interval.low * 100).toFixed(1)}%, ${(a.interval.high * 100).toFixed(1)}%]`);
    }
    expect(await page.locator('svg.cost-scatter circle').count()).toBe(summary.agents.filter((a) => a.rate !== null).length);
    expect(await page.locator('svg.rate-chart').isVisible()).toBe(true);
    await screenshot(page, 'bench-report.png');
  });

  it('no request leaves the page, and no script failed', () => {
    const { requests, errors } = opened as OpenedPage;
    expect(leavingRequests(requests)).toEqual([]);
    expect(requests.length).toBeGreaterThan(0);
    expect(errors).toEqual([]);
  });
});
