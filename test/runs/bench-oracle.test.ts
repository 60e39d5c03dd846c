/**
 * The pick measured against an oracle, end to end: the real `bestof bench` runs a task whose
 * visible check passes for a subtly wrong candidate, three candidates a trial (`best_of = 3`, one
 * script agent whose steps read `$BESTOF_CANDIDATE`), and a hidden oracle (`kind = "oracle"`)
 * that tells them apart. The bench runs the oracle itself on every candidate's kept commit; the
 * trial's run never holds it: its spec and report.json name no oracle, and an agent that looks for
 * the oracle's folder finds nothing. A `bestof run` of the task's own spec ignores the oracle.
 *
 *   c1  writes f = a + b                      visible check passes, oracle passes
 *   c2  writes f = |a| + |b|                  visible check passes (f(2, 3) = 5), oracle fails (f(-1, -1))
 *   c3  a cheater: f = 0, and empties the      visible check fails, oracle fails: the bench puts base's
 *       oracle's cases (test/cases.js, frozen) frozen paths back before it runs the oracle
 *
 * Every candidate also records whether it could read the oracle's folder (`saw.txt`, committed).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BenchFile } from '../../src/bench/types.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

/** The task's run spec; `hidden` is the oracle's folder relative to it, `head` goes first (top-level keys). */
function taskSpec(hidden: string, head = ''): string {
  return [
    `${head}[prompt]\ntext = "Make f in src/f.js add its arguments."`,
    '[checks]\nfrozen = ["test/**"]',
    '[[checks.items]]\nname = "f"\ncommand = "node test/f.test.js"\nscore = 10\n',
    `[[checks.items]]\nname = "judge"\ncommand = "node test/oracle/f.oracle.js"\nkind = "oracle"\nhidden = "${hidden}"\ninto = "test/oracle"\n`,
  ].join('\n');
}

function writeOracleBench(dir: string): void {
  const folder = join(dir, 'tasks', 't');
  mkdirSync(join(folder, 'src'), { recursive: true });
  mkdirSync(join(folder, 'test'), { recursive: true });
  writeFileSync(join(folder, 'src', 'f.js'), 'module.exports = () => 0;\n');
  writeFileSync(join(folder, 'test', 'f.test.js'), "const f = require('../src/f.js');\nprocess.exit(f(2, 3) === 5 ? 0 : 1);\n");
  writeFileSync(join(folder, 'test', 'cases.js'), 'module.exports = [[2, 3], [-1, -1], [5, -2]];\n');
  mkdirSync(join(dir, 'tasks', 'oracle'), { recursive: true });
  writeFileSync(
    join(dir, 'tasks', 'oracle', 'f.oracle.js'),
    "const f = require('../../src/f.js');\nfor (const [a, b] of require('../cases.js')) if (f(a, b) !== a + b) { console.error(`f(${a}, ${b}) is ${f(a, b)}`); process.exit(1); }\n",
  );
  writeFileSync(join(dir, 'tasks', 't.toml'), taskSpec('oracle'));
  const oracleFolder = join(dir, 'tasks', 'oracle');
  writeFileSync(
    join(dir, 'agent.toml'),
    `[[steps]]\nrun = '''\nif cat '${oracleFolder}/f.oracle.js' >/dev/null 2>&1; then echo read > saw.txt; else echo unreadable > saw.txt; fi\ncase "$BESTOF_CANDIDATE" in\nc1) echo 'module.exports = (a, b) => a + b;' > src/f.js ;;\nc2) echo 'module.exports = (a, b) => Math.abs(a) + Math.abs(b);' > src/f.js ;;\nc3) echo 'module.exports = () => 0;' > src/f.js; echo 'module.exports = [];' > test/cases.js ;;\nesac\n'''\n`,
  );
  writeFileSync(
    join(dir, 'bench.toml'),
    'name = "picks"\ntrials = 1\nbest_of = 3\n[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\nfolder = "tasks/t"\n[[agents]]\nid = "s"\nkind = "script"\nscript = "agent.toml"\n',
  );
}

describe('bestof bench with an oracle', () => {
  it("runs the oracle on every candidate's commit after the run, which never sees it, and scores the tie-break's pick", async () => {
    // In /var/tmp: outside /tmp and HOME, which every sandbox hides anyway, so the oracle's folder is
    // hidden only because the trial says so (`[sandbox] hide`).
    const dir = mkdtempSync(join('/var/tmp', 'bestof-bench-picks-'));
    if (!process.env.KEEP_TEST_DIRS) onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeOracleBench(dir);
    const result = await runCli(['bench', 'bench.toml', '--out', 'out'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.code, result.stderr).toBe(0);
    // The trial's line says what the oracle found and whether the pick was right, and that c3 cheated.
    expect(result.stdout).toMatch(
      /t\/s#1: resolved, tampered: 1 frozen path, first test\/cases\.js .*; oracle: 1 of 3 candidates pass; tie_break picked c[12] [✓✗]/,
    );
    const file = JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile;
    expect(file.matrix.selections).toEqual([{ name: 'tie_break', policy: 'tie_break' }]);
    const [record] = file.records;
    // Resolved by the task's own checks: the oracle is not one of them.
    expect(record?.resolved).toBe(true);
    // Resolved by c1 or c2, and the trial still says that c3 changed a frozen path.
    expect(record?.tampered).toEqual(['test/cases.js']);
    expect(record?.oracle?.candidates.map((c) => [c.candidate, c.passed])).toEqual([
      ['c1', true],
      ['c2', false],
      ['c3', false],
    ]);
    expect(record?.oracle?.candidates.find((c) => c.candidate === 'c2')?.why).toMatch(/oracle check judge exited with 1: f\(-1, -1\) is 2/);
    // The cheater's emptied cases were put back as base has them: its f is judged on every case.
    expect(record?.oracle?.candidates.find((c) => c.candidate === 'c3')?.why).toMatch(/f\(2, 3\) is 0/);

    // The run's own report: no oracle check anywhere, and the pick is its winner.
    const runDir = join(dir, 'out', 'repos', 't', '.bestof', 'runs', record?.runId ?? '');
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as {
      winner: string | null;
      candidates: { id: string; ref: string; finalChecks: { checks: { name: string }[] } }[];
    };
    expect(JSON.stringify(report)).not.toMatch(/judge|oracle/);
    expect(report.candidates.flatMap((c) => c.finalChecks.checks.map((k) => k.name))).toEqual(['f', 'f', 'f']);
    // The trial's spec holds no oracle check, only the oracle's folder among those its sandbox hides.
    const trialSpec = readFileSync(join(dir, 'out', 'trials', 't', 's', 'trial-1.toml'), 'utf8');
    expect(trialSpec).not.toMatch(/judge|kind = "oracle"/);
    expect(trialSpec).toContain(`hide = [ "${join(dir, 'tasks', 'oracle')}" ]`);
    const winner = report.winner;
    expect(['c1', 'c2']).toContain(winner);
    expect(record?.oracle?.picks).toEqual([{ selection: 'tie_break', policy: 'tie_break', candidate: winner, passes: winner === 'c1', fellBack: false }]);

    // No agent could read the oracle's folder: each committed what it found.
    const repo = join(dir, 'out', 'repos', 't');
    for (const c of report.candidates) {
      expect(execFileSync('git', ['show', `${c.ref}:saw.txt`], { cwd: repo, encoding: 'utf8' }).trim(), c.id).toBe('unreadable');
    }

    // The figures: 1 of 3 candidates right (random 33.3%), one trial solvable (oracle 100%).
    const markdown = readFileSync(join(dir, 'out', 'bench.md'), 'utf8');
    expect(markdown).toContain('## The pick against the oracle');
    expect(markdown).toMatch(/\| s \| tie_break \| 1 \| 33\.3% \(1\/3 candidates\) \| .* \| 100\.0% \(1\/1\) \|/);
    expect(readFileSync(join(dir, 'out', 'junit.xml'), 'utf8')).toMatch(/<testcase classname="pick\.tie_break" name="s"/);
  });

  it('a bestof run of the task spec itself ignores the oracle: not run, not scored', async () => {
    const dir = makeTempDir('bestof-run-picks-');
    writeOracleBench(dir);
    const repo = join(dir, 'tasks', 't');
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '--quiet', '--initial-branch=main');
    git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'add', '-A');
    git('-c', 'user.name=T', '-c', 'user.email=t@example.com', 'commit', '--quiet', '-m', 'task');
    writeFileSync(join(dir, 'run.toml'), taskSpec('tasks/oracle', 'repo = "tasks/t"\n[provider]\nkind = "script"\nscript = "agent.toml"\n'));
    const result = await runCli(['run', 'run.toml', '--json', '--no-tui'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.stderr).not.toMatch(/judge/);
    const report = JSON.parse(result.stdout) as { candidates: { maxScore: number; finalChecks: { checks: { name: string }[] } }[] };
    expect(report.candidates[0]?.finalChecks.checks.map((k) => k.name)).toEqual(['f']);
    // The oracle's point (its default score of 1) is not in the maximum.
    expect(report.candidates[0]?.maxScore).toBe(10);
  });
});
