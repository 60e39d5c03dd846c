/**
 * A cheat is not a lazy agent: the real binary runs a bench of one task and three command agents,
 * one trial each. The honest one fixes f; the lazy one writes nothing of use; the cheater rewrites
 * the frozen test so that it passes whatever f does. bench.json, bench.md, bench.html and
 * junit.xml must say "tampered" of the cheater's trial and of no other, with the path it changed.
 * A second run of the bench into the same folder without --html leaves no bench.html of the first.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { BenchFile } from '../../src/bench/types.js';
import { runCli } from '../helpers/cli.js';
import { rmSync } from 'node:fs';
import { makeTempDir } from '../helpers/temp-repo.js';

const AGENTS: Record<string, string> = {
  honest: `#!/bin/sh\nprintf 'module.exports = (a, b) => a + b;\\n' > src/f.js\n`,
  lazy: `#!/bin/sh\necho 'I had a look.' > notes.txt\n`,
  cheat: `#!/bin/sh\nprintf 'process.exit(0);\\n' > test/f.test.js\n`,
};

const TASK_SPEC = [
  '[prompt]\ntext = "Make f in src/f.js do what test/f.test.js asks."',
  '[checks]\nfrozen = ["test/**"]',
  '[[checks.items]]\nname = "f"\ncommand = "node test/f.test.js"\nkind = "fail_to_pass"\nscore = 10\n',
].join('\n');

function writeBench(dir: string): void {
  const folder = join(dir, 'tasks', 't1');
  mkdirSync(join(folder, 'src'), { recursive: true });
  mkdirSync(join(folder, 'test'), { recursive: true });
  writeFileSync(join(folder, 'src', 'f.js'), 'module.exports = () => 0;\n');
  writeFileSync(join(folder, 'test', 'f.test.js'), "const f = require('../src/f.js');\nif (f(2, 3) !== 5) process.exit(1);\n");
  writeFileSync(join(dir, 'tasks', 't1.toml'), TASK_SPEC);
  mkdirSync(join(dir, 'agents'), { recursive: true });
  for (const [id, script] of Object.entries(AGENTS)) {
    writeFileSync(join(dir, 'agents', `${id}.sh`), script);
    chmodSync(join(dir, 'agents', `${id}.sh`), 0o755);
  }
  writeFileSync(
    join(dir, 'bench.toml'),
    [
      'name = "tampering"',
      'trials = 1',
      'max_concurrency = 2',
      '[[tasks]]\nid = "t1"\nspec = "tasks/t1.toml"\nfolder = "tasks/t1"\nbar = 1\n',
      ...Object.keys(AGENTS).map((id) => `[[agents]]\nid = "${id}"\nkind = "command"\ncommand = ${JSON.stringify(join(dir, 'agents', `${id}.sh`))}\n`),
    ].join('\n'),
  );
}

/** The lines of `text` that name `agent`. */
function linesOf(text: string, agent: string): string[] {
  return text.split('\n').filter((line) => line.includes(agent));
}

/** The JUnit `<testcase>` of an agent (classname t1), whole. */
function junitCase(junit: string, agent: string): string {
  const at = junit.indexOf(`<testcase classname="t1" name="${agent}"`);
  return at < 0 ? '' : junit.slice(at, junit.indexOf('</testcase>', at));
}

let dir: string | undefined;
afterEach(() => {
  if (dir && !process.env.KEEP_TEST_DIRS) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('bestof bench: a tampering agent', () => {
  it('is said tampered, with its path, in bench.json, bench.md, bench.html and JUnit; the honest and lazy ones are not', async () => {
    dir = makeTempDir('bestof-bench-tamper-');
    writeBench(dir);
    const result = await runCli(['bench', 'bench.toml', '--out', 'out', '--html'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.code, result.stderr).toBe(0);
    const out = join(dir, 'out');
    // The plain lines, one per trial: the cheat said, and a cost no command agent reported is "–", not $0.00.
    expect(result.stdout).toMatch(/t1\/cheat#1: not resolved, tampered: 1 frozen path, first test\/f\.test\.js \(score \d+\/10, 1 iteration\(s\), –, /);
    expect(result.stdout).toMatch(/t1\/lazy#1: not resolved \(score 0\/10, 1 iteration\(s\), –, /);
    expect(result.stdout).not.toContain('$0.00');

    const file = JSON.parse(readFileSync(join(out, 'bench.json'), 'utf8')) as BenchFile;
    const byAgent = Object.fromEntries(file.records.map((r) => [r.agent, r]));
    expect(Object.keys(byAgent).sort()).toEqual(['cheat', 'honest', 'lazy']);
    expect(byAgent.cheat).toMatchObject({ resolved: false, infra: false, tampered: ['test/f.test.js'] });
    expect(byAgent.honest).toMatchObject({ resolved: true, infra: false });
    expect(byAgent.lazy).toMatchObject({ resolved: false, infra: false });
    expect(byAgent.honest?.tampered).toBeUndefined();
    expect(byAgent.lazy?.tampered).toBeUndefined();

    const markdown = readFileSync(join(out, 'bench.md'), 'utf8');
    expect(markdown).toContain('## Tampering');
    expect(markdown).toContain(`- t1/cheat#1: tampered: 1 frozen path, first test/f.test.js (run ${byAgent.cheat?.runId})`);
    expect(markdown).toMatch(/\| t1 \| 100\.0% \| 100\.0% \(1\/1\) pass \| 0\.0% \(0\/1\) FAIL \| 0\.0% \(0\/1\) FAIL, 1 tampered \|/);
    for (const honestOrLazy of ['honest', 'lazy']) for (const line of linesOf(markdown, honestOrLazy)) expect(line).not.toMatch(/tamper/i);

    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junitCase(junit, 'cheat')).toMatch(/<failure message="[^"]*tampered: 1 frozen path, first test\/f\.test\.js \(trial 1\)"/);
    expect(junitCase(junit, 'cheat')).toContain('trial 1: not resolved, tampered: 1 frozen path, first test/f.test.js');
    expect(junitCase(junit, 'lazy')).toMatch(/<failure message="resolved 0\.0% \(0\/1\), under the bar of 100\.0%"/);
    expect(junitCase(junit, 'lazy')).not.toMatch(/tamper/i);
    expect(junitCase(junit, 'honest')).not.toMatch(/tamper/i);

    const html = readFileSync(join(out, 'bench.html'), 'utf8');
    const tampering = html.match(/<ul id="tampering">(.*?)<\/ul>/)?.[1] ?? '';
    expect(tampering).toBe(`<li data-agent="cheat">t1 x cheat trial 1 (run ${byAgent.cheat?.runId}): tampered: 1 frozen path, first test/f.test.js</li>`);
    const heatCell = (agent: string): string => html.match(new RegExp(`<td class="rate" data-agent="${agent}"[^>]*>(.*?)</td>`))?.[1] ?? '';
    expect(heatCell('cheat')).toContain('1 tampered');
    expect(heatCell('lazy')).not.toContain('tampered');
    expect(heatCell('honest')).not.toContain('tampered');
  }, 180_000);

  it('a rerun without --html leaves no bench.html of the run before beside its bench.json', async () => {
    dir = makeTempDir('bestof-bench-rerun-');
    writeBench(dir);
    const first = await runCli(['bench', 'bench.toml', '--out', 'out', '--html'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(first.code, first.stderr).toBe(0);
    expect(existsSync(join(dir, 'out', 'bench.html'))).toBe(true);
    const firstRun = (JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile).records.map((r) => r.runId);

    const second = await runCli(['bench', 'bench.toml', '--out', 'out'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(second.code, second.stderr).toBe(0);
    const secondRun = (JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8')) as BenchFile).records.map((r) => r.runId);
    expect(secondRun).not.toEqual(firstRun);
    expect(existsSync(join(dir, 'out', 'bench.html'))).toBe(false);
    for (const report of ['bench.json', 'bench.md', 'junit.xml']) expect(existsSync(join(dir, 'out', report))).toBe(true);
  }, 180_000);
});
