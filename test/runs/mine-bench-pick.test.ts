/**
 * A mined bench runs as any bench: with best_of above 1 it reports the pick against the oracle
 * (the fix's own hidden tests), and its HTML report is written. The small history of
 * test/helpers/mined-history.ts: one task, the reference agent and a no-op agent, two candidates each.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { minedHistory } from '../helpers/mined-history.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

it('a mined bench with best_of = 2: the reference agent resolved and its pick passes the oracle; the no-op agent neither', async () => {
  const { repo } = minedHistory();
  cleanups.push(() => repo.cleanup());
  const out = join(makeTempDir('bestof-mined-'), 'bench');
  const mined = await runCli(['bench', 'mine', '--out', out, '--reference'], { cwd: repo.dir });
  expect(mined.code, mined.stderr).toBe(0);
  const spec = readFileSync(join(out, 'bench.toml'), 'utf8').replace('best_of = 1', 'best_of = 2');
  writeFileSync(join(out, 'bench.toml'), `${spec}\n[[agents]]\nid = "noop"\nkind = "command"\ncommand = "true"\n`);
  const results = join(out, 'results');
  const bench = await runCli(['bench', join(out, 'bench.toml'), '--out', results, '--no-tui', '--html'], { cwd: repo.dir });
  expect(bench.code, bench.stderr + bench.stdout).toBe(0);
  const json = JSON.parse(readFileSync(join(results, 'bench.json'), 'utf8')) as {
    records: Array<{ agent: string; resolved: boolean; oracle?: { candidates: Array<{ passed: boolean }>; picks: Array<{ passes: boolean }> } }>;
  };
  const reference = json.records.find((t) => t.agent === 'reference');
  const noop = json.records.find((t) => t.agent === 'noop');
  expect(reference?.resolved).toBe(true);
  expect(reference?.oracle?.candidates.map((c) => c.passed)).toEqual([true, true]);
  expect(reference?.oracle?.picks.map((p) => p.passes)).toEqual([true]);
  expect(noop?.resolved).toBe(false);
  expect(noop?.oracle?.candidates.map((c) => c.passed)).toEqual([false, false]);
  const md = readFileSync(join(results, 'bench.md'), 'utf8');
  expect(md).toContain('The pick against the oracle');
  expect(md).toMatch(/\| reference \| tie_break \|[^\n]*100\.0%/);
  expect(existsSync(join(results, 'bench.html'))).toBe(true);
});
