/**
 * `bestof bench` end to end: the real binary runs a bench of 2 tasks x 3 `script` agents x 3
 * trials, each trial a real `bestof run` in a repo made from the task's folder, in three shards
 * at once; `bestof bench merge` joins them. The agents resolve or fail the trials the
 * hand-worked bench of test/bench/hand-worked-bench.ts says (one trial lost to its setup, an
 * infra failure), so the merged file's rates, Wilson intervals, pass@k and paired differences
 * must be the ones worked out by hand there (test/bench/summary.test.ts asserts those numbers).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { summarizeBench, type BenchSummary } from '../../src/bench/summary.js';
import type { BenchFile } from '../../src/bench/types.js';
import { runCli, signalAtExitEntry, startCli } from '../helpers/cli.js';
import { processesWithArg } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { handWorkedBench } from '../bench/hand-worked-bench.js';
import { benchFolders } from '../helpers/bench-fixture.js';

const { makeBench } = benchFolders();

const four = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 10_000) / 10_000);

/** The numbers of a summary that do not depend on costs or durations. */
function rates(s: BenchSummary) {
  return {
    agents: s.agents.map((a) => ({
      agent: a.agent,
      resolved: `${a.resolved}/${a.valid}`,
      infra: a.infra,
      rate: four(a.rate),
      interval: [four(a.interval?.low), four(a.interval?.high)],
      passAt1: four(a.passAt1),
      passAtK: a.passAtK.map((p) => [p.k, four(p.value)]),
    })),
    pairs: s.pairs.map((p) => ({ pair: `${p.a} - ${p.b}`, perTask: p.perTask.map((t) => four(t.difference)), mean: four(p.estimate?.mean) })),
    cells: s.cells.map((c) => `${c.task}/${c.agent}: ${c.verdict}`),
  };
}

describe('bestof bench', () => {
  it('three shards run at once and merged give the hand-worked rates, intervals, pass@k and paired differences', async () => {
    const dir = makeBench();
    const shards = await Promise.all(
      [1, 2, 3].map((i) => runCli(['bench', 'bench.toml', '--shard', `${i}/3`, '--out', `out/${i}`], { cwd: dir, worktreesDir: join(dir, 'worktrees') })),
    );
    for (const [i, shard] of shards.entries()) expect(shard.code, `shard ${i + 1}: ${shard.stderr}`).toBe(0);
    // One line per finished trial, and the infra failure is said to be left out.
    expect(shards.map((s) => s.stdout).join('')).toMatch(/t1\/gemini-flash#2: infra failure, left out of the rates: setup_failed/);

    const merged = await runCli(['bench', 'merge', 'out/1/bench.json', 'out/2/bench.json', 'out/3/bench.json', '--out', 'merged'], { cwd: dir });
    expect(merged.code, merged.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'merged', 'bench.json'), 'utf8')) as BenchFile;
    expect(file.records.map((r) => `${r.task}/${r.agent}#${r.trial} ${r.infra ? 'I' : r.resolved ? 'R' : 'U'}`)).toEqual(
      handWorkedBench().records.map((r) => `${r.task}/${r.agent}#${r.trial} ${r.infra ? 'I' : r.resolved ? 'R' : 'U'}`),
    );
    // Resolved means the fail-to-pass and pass-to-pass checks passed: the unresolved trials still scored the others.
    expect(file.records.find((r) => r.task === 't1' && r.agent === 'codex-mini' && r.trial === 1)).toMatchObject({
      resolved: false,
      score: 3,
      maxScore: 11,
      infra: false,
    });
    expect(file.records.find((r) => r.task === 't1' && r.agent === 'claude-sonnet' && r.trial === 1)).toMatchObject({
      resolved: true,
      score: 11,
      kind: 'script',
    });
    expect(rates(summarizeBench(file))).toEqual(rates(summarizeBench(handWorkedBench())));

    // The reports: Markdown with the hand-worked rate line, and JUnit with one case per task x agent.
    const markdown = readFileSync(join(dir, 'merged', 'bench.md'), 'utf8');
    expect(markdown).toContain('83.3%');
    expect(markdown).toContain('setup_failed');
    const junit = readFileSync(join(dir, 'merged', 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase /g)).toHaveLength(6);
    const failing = summarizeBench(handWorkedBench()).cells.filter((c) => c.verdict === 'failed').length;
    expect(junit.match(/<failure /g) ?? []).toHaveLength(failing);

    // A missing shard is refused, named, and nothing is written.
    const missing = await runCli(['bench', 'merge', 'out/1/bench.json', 'out/3/bench.json', '--out', 'partial'], { cwd: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/2\/3/);
    expect(existsSync(join(dir, 'partial', 'bench.json'))).toBe(false);

    // Against a baseline where codex-mini resolved every trial, its drop is a regression: exit 1, said in bench.md.
    const baseline: BenchFile = { ...file, records: file.records.map((r) => (r.agent === 'codex-mini' ? { ...r, resolved: true } : r)) };
    writeFileSync(join(dir, 'baseline.json'), JSON.stringify(baseline));
    const compared = await runCli(
      [
        'bench',
        'merge',
        'out/1/bench.json',
        'out/2/bench.json',
        'out/3/bench.json',
        '--out',
        'compared',
        '--baseline',
        'baseline.json',
        '--spec',
        'bench.toml',
      ],
      { cwd: dir },
    );
    expect(compared.code, compared.stderr).toBe(1);
    expect(compared.stdout).toMatch(/regression: .*codex-mini/);
    expect(readFileSync(join(dir, 'compared', 'bench.md'), 'utf8')).toMatch(/codex-mini/);
    // 18 trials, each a real bestof run: minutes on a loaded 2-core machine.
  }, 240_000);

  it('runs the whole matrix without shards, prints bench.json with --json, and keeps its trials out of the task folder', async () => {
    const dir = makeBench({ tasks: ['t2'], agents: ['claude-sonnet'], trials: 2 });
    const result = await runCli(['bench', 'bench.toml', '--json', '--out', 'out'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.code, result.stderr).toBe(0);
    const file = JSON.parse(result.stdout) as BenchFile;
    expect(file.shard).toBeNull();
    expect(file.records.map((r) => [r.trial, r.resolved])).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(file.records.every((r) => r.runId !== '' && r.cliVersion === null)).toBe(true);
    // Each trial is a run of its own, in the bench's repo of the task, never in the task's folder.
    expect(existsSync(join(dir, 'tasks', 't2', '.git'))).toBe(false);
    expect(existsSync(join(dir, 'out', 'repos', 't2', '.bestof', 'runs', file.records[0]!.runId, 'report.json'))).toBe(true);
    expect(readFileSync(join(dir, 'out', 'trials', 't2', 'claude-sonnet', 'trial-1.toml'), 'utf8')).toContain('merge = "none"');
  });

  it("a SIGTERM in the instant before Node exits, after the bench has written its results, ends bestof with the bench's own exit code, not 143", async () => {
    const dir = makeBench({ tasks: ['t2'], agents: ['claude-sonnet'], trials: 1 });
    const marker = join(dir, 'signalled');
    const result = await runCli(['bench', 'bench.toml', '--out', 'out'], {
      cwd: dir,
      worktreesDir: join(dir, 'worktrees'),
      entry: signalAtExitEntry(dir, 'SIGTERM', marker),
    });
    // Sent by bestof (the trials run in its process): once.
    expect(readFileSync(marker, 'utf8').trim().split('\n'), 'the signal was sent').toHaveLength(1);
    expect(result.signal).toBeNull();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(existsSync(join(dir, 'out', 'bench.json'))).toBe(true);
  });

  it('a bench cancelled halfway (SIGTERM) goes on with --resume: the trials it recorded are kept, the cancelled and the unstarted ones run', async () => {
    const dir = makeBench({ tasks: ['t1'], agents: ['claude-sonnet'] });
    // Trial 2 hangs while HOLD_TRIAL is set (the first run), and runs as planned on resume.
    const script = join(dir, 'agents', 'claude-sonnet.toml');
    writeFileSync(
      script,
      `[[steps]]\nrun = 'if [ "$BESTOF_BENCH_TRIAL" = 2 ] && [ -n "\${HOLD_TRIAL:-}" ]; then sleep 607; fi'\n${readFileSync(script, 'utf8')}`,
    );
    writeFileSync(join(dir, 'bench.toml'), readFileSync(join(dir, 'bench.toml'), 'utf8').replace('max_concurrency = 2', 'max_concurrency = 1'));
    const { child, done } = startCli(['bench', 'bench.toml', '--out', 'out'], { cwd: dir, worktreesDir: join(dir, 'worktrees'), env: { HOLD_TRIAL: '1' } });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    const journal = join(dir, 'out', 'records.jsonl');
    // Trial 1 is recorded, and trial 2's agent is asleep.
    await waitUntil(
      () => readFileSync(journal, 'utf8').trim().split('\n').length === 2 && processesWithArg('sleep\u0000607').length > 0,
      'trial 1 recorded and trial 2 holding',
      { ended: () => ended },
    );
    child.kill('SIGTERM');
    const first = await done;
    expect(first.code).toBe(130);
    expect(first.stdout).toContain('bench cancelled after');
    const before = (JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile).records;
    expect(before.map((r) => [r.trial, r.outcome.status, r.outcome.reason])).toEqual([
      [1, 'winner', 'threshold_reached'],
      [2, 'cancelled', expect.any(String)],
      [3, 'cancelled', 'not_run'],
    ]);

    const resumed = await runCli(['bench', 'bench.toml', '--out', 'out', '--resume'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain('1 recorded before, kept');
    const after = (JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile).records;
    expect(after.map((r) => [r.trial, r.resolved])).toEqual([
      [1, true],
      [2, true],
      [3, true],
    ]);
    // Trial 1 is the very record of the first run; 2 and 3 are new runs.
    expect(after[0]?.runId).toBe(before[0]?.runId);
    expect(after[1]?.runId).not.toBe(before[1]?.runId);
    expect(new Set(after.map((r) => r.runId)).size).toBe(3);
    // Another shard's journal is not this one's.
    const wrong = await runCli(['bench', 'bench.toml', '--out', 'out', '--resume', '--shard', '1/2'], { cwd: dir });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/is of the whole bench, not of shard 1\/2/);
  }, 180_000);

  it('a wrong bench spec says where and why, exits 2, and creates nothing', async () => {
    const dir = makeBench({ tasks: ['t1'], agents: ['claude-sonnet'] });
    writeFileSync(
      join(dir, 'bad.toml'),
      'name = "b"\ntrials = 0\n[[tasks]]\nid = "t1"\nspec = "tasks/nope.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscirpt = "agents/claude-sonnet.toml"\n',
    );
    const result = await runCli(['bench', 'bad.toml', '--out', 'out'], { cwd: dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bad\.toml:2:\d+.*trials/s);
    expect(result.stderr).toMatch(/unknown key "scirpt" in \[\[agents\]\] — did you mean "script"\?/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
    const missingTask = await runCli(['bench', 'bench.toml', '--out', 'out'], { cwd: join(dir, 'tasks') });
    expect(missingTask.code).toBe(2);
    expect(existsSync(join(dir, 'tasks', 'out'))).toBe(false);
  });
});
