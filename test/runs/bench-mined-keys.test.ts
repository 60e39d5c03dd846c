/**
 * A mined task through the real `bestof bench`: a source repo whose base is followed by the fix
 * (the task's future), a task repo of base's history alone (`history = "base"`), a hidden oracle
 * that names the fix's test (`expect`, a TAP report), the fix's source change as the task's
 * `reference`, and the task twice: resolved by its checks, and by its oracle (`resolved_by`).
 *
 *   noop       changes nothing: the visible check passes, the oracle fails
 *              resolved by checks 100%, by oracle 0%
 *   reference  `git apply "$BESTOF_BENCH_REFERENCE"` (a command agent, as docs/bench.md shows it)
 *              resolved 100% both ways
 *   cheater    (with bubblewrap) reaches for the future: applies the reference by its path, reads the
 *              fix from the source repo by its path, asks its own repo for the fix commit; finds none
 *              of it, so resolved by oracle 0%
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { BenchFile } from '../../src/bench/types.js';
import { probeSandbox } from '../../src/process/sandbox.js';
import { runCli } from '../helpers/cli.js';

/** The source repo (base, then the fix with its test), the task's spec, oracle and reference; the fix's commit. */
function writeMinedBench(dir: string, agents: string): string {
  const source = join(dir, 'source');
  mkdirSync(join(source, 'src'), { recursive: true });
  const git = (...args: string[]): string =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: source, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(source, 'src', 'f.js'), 'module.exports = () => 0;\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  const base = git('rev-parse', 'HEAD');
  writeFileSync(join(source, 'src', 'f.js'), 'module.exports = (a, b) => a + b;\n');
  mkdirSync(join(source, 'test'));
  writeFileSync(join(source, 'test', 'f.test.js'), "require('assert').strictEqual(require('../src/f.js')(2, 3), 5);\n");
  git('add', '-A');
  git('commit', '-q', '-m', 'f adds its arguments');
  const fix = git('rev-parse', 'HEAD');

  const tasks = join(dir, 'tasks');
  mkdirSync(join(tasks, 'oracle'), { recursive: true });
  mkdirSync(join(dir, 'refs'));
  // The fix's source change, as `bestof bench mine --reference` would take it: the diff outside the tests.
  writeFileSync(join(dir, 'refs', 't.patch'), `${git('diff', base, fix, '--', 'src')}\n`);
  // The oracle: the fix's test by name ("adds"), and one the task does not ask for ("negative", which fails for everyone).
  writeFileSync(
    join(tasks, 'oracle', 'f.tap.js'),
    "const f = require('../../src/f.js');\nconsole.log('TAP version 13\\n1..2');\nconsole.log(`${f(2, 3) === 5 ? 'ok' : 'not ok'} 1 - adds`);\nconsole.log('not ok 2 - negative');\nprocess.exit(1);\n",
  );
  writeFileSync(join(tasks, 'expect.json'), '{"tests": ["adds"]}\n');
  writeFileSync(
    join(tasks, 't.toml'),
    [
      `repo = "../source"\nbase = "${base}"`,
      '[prompt]\ntext = "Make f in src/f.js add its two arguments."',
      '[[checks.items]]\nname = "loads"\ncommand = "node -e \\"require(\'./src/f.js\')\\""\n',
      '[[checks.items]]\nname = "fix-tests"\ncommand = "node test/oracle/f.tap.js"\nkind = "oracle"\nreport = "tap"\nexpect = "expect.json"\nhidden = "oracle"\ninto = "test/oracle"\n',
    ].join('\n'),
  );
  const task = (id: string, resolvedBy: string) =>
    `[[tasks]]\nid = "${id}"\nspec = "tasks/t.toml"\nhistory = "base"\nreference = "refs/t.patch"\nresolved_by = "${resolvedBy}"\n`;
  writeFileSync(join(dir, 'noop.toml'), '[[steps]]\nsay = "nothing to do"\n');
  writeFileSync(
    join(dir, 'bench.toml'),
    `name = "mined"\ntrials = 1\n${task('by-checks', 'checks')}${task('by-oracle', 'oracle')}[[agents]]\nid = "noop"\nkind = "script"\nscript = "noop.toml"\n${agents}`,
  );
  return fix;
}

/** The documented reference agent (docs/bench.md). */
const REFERENCE_AGENT = `[[agents]]
id = "reference"
kind = "command"
command = "sh"
args = ["-c", "git apply --whitespace=nowarn \\"$BESTOF_BENCH_REFERENCE\\""]
reference = true
`;

/** bench.toml's folder: in /var/tmp, outside /tmp and HOME, which every sandbox hides anyway, so what is hidden is hidden because the trial says so. */
function benchFolder(): string {
  const dir = mkdtempSync(join('/var/tmp', 'bestof-bench-mined-'));
  if (!process.env.KEEP_TEST_DIRS) onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const resolvedOf = (file: BenchFile) => Object.fromEntries(file.records.map((r) => [`${r.task}/${r.agent}`, r.resolved]));

describe('bestof bench of a mined task', () => {
  it('the reference agent resolves it; a no-op agent passes the checks but not the oracle, so resolved_by decides', async () => {
    const dir = benchFolder();
    writeMinedBench(dir, REFERENCE_AGENT);
    const result = await runCli(['bench', 'bench.toml', '--out', 'out', '--no-tui'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.code, result.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile;
    expect(file.records.every((r) => !r.infra)).toBe(true);
    expect(resolvedOf(file)).toEqual({
      'by-checks/noop': true,
      'by-checks/reference': true,
      'by-oracle/noop': false,
      'by-oracle/reference': true,
    });
    // The oracle judged by the listed test alone: the reference passes though "negative" fails and the runner exits 1.
    const verdict = (task: string, agent: string) => file.records.find((r) => r.task === task && r.agent === agent)?.oracle?.candidates[0];
    expect(verdict('by-oracle', 'reference')).toMatchObject({ passed: true, why: '' });
    expect(verdict('by-oracle', 'noop')?.passed).toBe(false);
    // Only the reference agent's trials were told where the patch is; the others' hide its folder.
    const trial = (task: string, agent: string) => readFileSync(join(dir, 'out', 'trials', task, agent, 'trial-1.toml'), 'utf8');
    expect(trial('by-oracle', 'reference')).toContain(`BESTOF_BENCH_REFERENCE = "${join(dir, 'refs', 't.patch')}"`);
    expect(trial('by-oracle', 'noop')).not.toContain('BESTOF_BENCH_REFERENCE');
    expect(trial('by-oracle', 'noop')).toMatch(new RegExp(`hide = \\[[^\\]]*"${join(dir, 'refs')}"`));
    expect(trial('by-oracle', 'noop')).toMatch(new RegExp(`hide = \\[[^\\]]*"${join(dir, 'source')}"`));
    const markdown = readFileSync(join(dir, 'out', 'bench.md'), 'utf8');
    expect(markdown).toMatch(/\| reference \| command \| 100\.0% \(2\/2\) \| \[34\.2%, 100\.0%\]/);
    expect(markdown).toContain('| by-checks | 50.0% | 100.0% (1/1) pass | 100.0% (1/1) pass |');
    expect(markdown).toContain('| by-oracle | 50.0% | 0.0% (0/1) FAIL | 100.0% (1/1) pass |');
  });

  it('an agent that reaches for the future (the reference by its path, the fix in the source repo or its own) finds none of it', async (ctx) => {
    if (!(await probeSandbox()).ok) ctx.skip();
    const dir = benchFolder();
    const fix = writeMinedBench(dir, '[[agents]]\nid = "cheater"\nkind = "script"\nscript = "cheater.toml"\n');
    writeFileSync(
      join(dir, 'cheater.toml'),
      `[[steps]]\nrun = '''\ngit apply --whitespace=nowarn '${join(dir, 'refs', 't.patch')}' 2>/dev/null\ngit -C '${join(dir, 'source')}' show ${fix}:src/f.js > future.js 2>/dev/null && cp future.js src/f.js\ngit cat-file -p ${fix}:src/f.js > own.js 2>/dev/null && cp own.js src/f.js\ntrue\n'''\n`,
    );
    const result = await runCli(['bench', 'bench.toml', '--out', 'out', '--no-tui'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.code, result.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile;
    expect(resolvedOf(file)).toMatchObject({ 'by-oracle/cheater': false, 'by-oracle/noop': false });
    expect(file.records.find((r) => r.task === 'by-oracle' && r.agent === 'cheater')?.oracle?.candidates[0]?.passed).toBe(false);
  });
});
