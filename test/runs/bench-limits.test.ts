/**
 * `bestof bench` limits and best-of-N, with the real binary: a trial is the best of `best_of`
 * candidates of its agent; once `max_total_cost_usd` is spent, or `time_limit` has passed, no
 * trial starts and the cells left are recorded "not run" (infra: out of the rates), so that the
 * file still covers its whole slice.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchFile } from '../../src/bench/types.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const dirs: string[] = [];
afterEach(() => {
  if (!process.env.KEEP_TEST_DIRS) for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** One task (make f add), one script agent whose steps are `steps`; `extra` goes into bench.toml. */
function bench(steps: string, extra: string): string {
  const dir = makeTempDir('bestof-bench-limits-');
  dirs.push(dir);
  mkdirSync(join(dir, 'task', 'src'), { recursive: true });
  writeFileSync(join(dir, 'task', 'src', 'f.js'), 'module.exports = () => 0;\n');
  writeFileSync(join(dir, 'task', 'check.js'), "if (require('./src/f.js')(2, 3) !== 5) process.exit(1);\n");
  writeFileSync(
    join(dir, 'task.toml'),
    '[prompt]\ntext = "make f add"\n[checks]\nfrozen = ["check.js"]\n[[checks.items]]\nname = "adds"\ncommand = "node check.js"\nkind = "fail_to_pass"\n',
  );
  writeFileSync(join(dir, 'agent.toml'), steps);
  writeFileSync(
    join(dir, 'bench.toml'),
    `name = "limits"\n${extra}\n[[tasks]]\nid = "t"\nspec = "task.toml"\nfolder = "task"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "agent.toml"\n`,
  );
  return dir;
}

async function runBench(dir: string): Promise<{ code: number | null; file: BenchFile; stdout: string }> {
  const result = await runCli(['bench', 'bench.toml', '--out', 'out'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
  return { code: result.code, stdout: result.stdout, file: JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile };
}

const FIX = '[[steps]]\nwrite = "src/f.js"\ncontent = "module.exports = (a, b) => a + b;\\n"\n';

describe('bestof bench limits', () => {
  it('once max_total_cost_usd is spent, no trial starts: the rest are recorded "not run", out of the rates', async () => {
    const dir = bench(`[[steps]]\nusage = { input = 10, output = 10 }\ncost_usd = 0.05\n${FIX}`, 'trials = 3\nmax_concurrency = 1\nmax_total_cost_usd = 0.01');
    const { code, file, stdout } = await runBench(dir);
    expect(code).toBe(0);
    expect(file.records.map((r) => [r.trial, r.infra, r.infraReason])).toEqual([
      [1, false, null],
      [2, true, 'not run: max_total_cost_usd reached ($0.05 of $0.01); a bench with a higher cap is a new spec and starts anew'],
      [3, true, 'not run: max_total_cost_usd reached ($0.05 of $0.01); a bench with a higher cap is a new spec and starts anew'],
    ]);
    expect(file.records[0]).toMatchObject({ resolved: true, costUsd: 0.05 });
    expect(stdout).toContain('[3/3] t/a#3: infra failure, left out of the rates: not run: max_total_cost_usd reached');
  });

  it('past time_limit no trial starts', async () => {
    // A limit of 0 is a spec error, so the limit is the shortest there is. Trial 1 may or may not
    // start (the millisecond may not have passed when it is dequeued); trial 2 waits for it
    // (max_concurrency = 1), and a trial takes far longer than 1ms, so it never starts.
    const dir = bench(FIX, 'trials = 2\nmax_concurrency = 1\ntime_limit = "1ms"');
    const { code, file } = await runBench(dir);
    expect(code).toBe(0);
    const second = file.records.find((r) => r.trial === 2);
    expect(second?.infraReason).toMatch(/^not run: time_limit reached\b/);
    expect(second?.runId).toBe('');
  });

  it('best_of = 2: each trial is a run of two candidates of the agent, and the trial is the better one', async () => {
    // The first candidate fixes f, the second breaks it: the trial is resolved by the first.
    const steps =
      '[[steps]]\nrun = \'if [ "$BESTOF_INDEX" = 1 ]; then printf "module.exports = (a, b) => a + b;\\\\n" > src/f.js; else printf "module.exports = () => 1;\\\\n" > src/f.js; fi\'\n';
    const dir = bench(steps, 'trials = 1\nbest_of = 2');
    const { code, file } = await runBench(dir);
    expect(code).toBe(0);
    expect(file.records).toHaveLength(1);
    expect(file.records[0]).toMatchObject({ resolved: true, score: 1, infra: false });
    const report = JSON.parse(readFileSync(join(dir, 'out', 'repos', 't', '.bestof', 'runs', file.records[0]!.runId, 'report.json'), 'utf8')) as {
      candidates: { id: string; score: number }[];
      winner: string;
    };
    expect(report.candidates.map((c) => [c.id, c.score])).toEqual([
      ['c1', 1],
      ['c2', 0],
    ]);
    expect(report.winner).toBe('c1');
  });

  it('an agent whose CLI cannot start is an infra failure, with the reason bestof run gave, out of the rates', async () => {
    const dir = bench(FIX, 'trials = 1');
    writeFileSync(
      join(dir, 'bench.toml'),
      readFileSync(join(dir, 'bench.toml'), 'utf8').replace(
        '[[agents]]\nid = "a"\nkind = "script"\nscript = "agent.toml"',
        '[[agents]]\nid = "a"\nkind = "command"\ncommand = "/nonexistent/agent-cli"',
      ),
    );
    const { code, file } = await runBench(dir);
    expect(code).toBe(0);
    expect(file.records[0]).toMatchObject({ infra: true, resolved: false, outcome: { status: 'failed', reason: 'refused' } });
    expect(file.records[0]?.infraReason).toContain('/nonexistent/agent-cli');
  });

  it('a command agent reports no cost: its trials say so, and bench.md shows its cost as unknown, not $0', async () => {
    const dir = bench(FIX, 'trials = 2\nmax_concurrency = 1');
    const agent = join(dir, 'agent.sh');
    writeFileSync(agent, "#!/bin/sh\nprintf 'module.exports = (a, b) => a + b;\\n' > src/f.js\n", { mode: 0o755 });
    writeFileSync(
      join(dir, 'bench.toml'),
      readFileSync(join(dir, 'bench.toml'), 'utf8').replace('kind = "script"\nscript = "agent.toml"', `kind = "command"\ncommand = ${JSON.stringify(agent)}`),
    );
    const { code, file } = await runBench(dir);
    expect(code).toBe(0);
    expect(file.records.map((r) => [r.trial, r.resolved, r.costKnown])).toEqual([
      [1, true, false],
      [2, true, false],
    ]);
    const md = readFileSync(join(dir, 'out', 'bench.md'), 'utf8');
    expect(md).toContain('a reported no cost in any trial (a command agent reports none): its cost is unknown, not $0');
    expect(md).toMatch(/\| a \| command \| 100\.0% \(2\/2\) \|.*\| – \| – \| – \|/);
  });
});
