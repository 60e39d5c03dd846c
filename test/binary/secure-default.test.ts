/**
 * Secure by default, on the case found on a real library (qs: its code in lib/, `npm test` =
 * `nyc tape test/*.js`): an agent that touched no test and no code added `.nyc-hook.js` and an
 * `.nycrc` whose `require` loads it, and the hook turns the exit code into 0: 100/100, the winner,
 * with a spec that lists no `protected` paths. Through the real binary, with small fake `nyc` and
 * `tape` on PATH (no network): the `nyc` honours `.nycrc`'s `require` as the real one does (it loads
 * each module named there before it runs the command), the `tape` runs the test files and exits 1
 * on a failed assertion.
 *
 * - `bestof init` writes `editable = ["lib/**"]` for this layout (package.json's `main`), and with
 *   the checks it wrote the honest fix wins, and the hook does not reach main;
 * - a spec written by hand, with neither `protected` nor `editable`: the `.nycrc` is kept as in base
 *   all the same (src/checks/runner-defaults.ts), so the hook scores nothing, cannot win, and does
 *   not reach main; and `run` says, once, what a spec without `editable` risks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NO_EDITABLE_WARNING } from '../../src/engine/plan/plan.js';
import { loadSpec } from '../../src/spec/load.js';
import { runCli } from '../helpers/cli.js';
import type { ReportJson } from '../helpers/run-record.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** qs's layout, with the bug: the values are not decoded. */
const QS_REPO: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'qs', version: '6.0.0', main: 'lib/index.js', scripts: { test: 'nyc tape test/*.js' } }, null, 2)}\n`,
  'lib/index.js': "exports.parse = (s) => Object.fromEntries(s.split('&').map((pair) => pair.split('=')));\n",
  'lib/utils.js': 'exports.decode = (s) => decodeURIComponent(s);\n',
  'test/parse.js':
    "const { parse } = require('../lib/index.js');\n\ntest('parse decodes values', (t) => {\n  t.equal(parse('a=b%20c').a, 'b c');\n  t.end();\n});\n",
  '.gitignore': 'node_modules\n.nyc_output\n',
};

/** A tiny nyc: loads each module `.nycrc`'s `require` names (as nyc does), then runs the command and exits with its code. */
const FAKE_NYC = `#!/usr/bin/env node
const { spawnSync } = require('node:child_process');
const { existsSync, readFileSync } = require('node:fs');
const { resolve } = require('node:path');
const config = existsSync('.nycrc') ? JSON.parse(readFileSync('.nycrc', 'utf8')) : {};
for (const name of [].concat(config.require || [])) require(resolve(name));
const [command, ...args] = process.argv.slice(2);
const ran = spawnSync(command, args, { stdio: 'inherit' });
process.exitCode = ran.status === null ? 1 : ran.status;
`;

/** A tiny tape: runs each test file with a global \`test\`, exits 1 on a failed assertion. */
const FAKE_TAPE = `#!/usr/bin/env node
const { resolve } = require('node:path');
let failed = 0;
globalThis.test = (name, body) => {
  body({
    equal(actual, expected) {
      if (actual === expected) console.log('ok - ' + name);
      else { failed += 1; console.log('not ok - ' + name + ': ' + JSON.stringify(actual) + ' !== ' + JSON.stringify(expected)); }
    },
    end() {},
  });
};
for (const file of process.argv.slice(2)) require(resolve(file));
process.exitCode = failed > 0 ? 1 : 0;
`;

/** The agent that touches no test and no code: a hook that makes the process exit 0, loaded by an added .nycrc. */
const CHEAT = `cat > .nyc-hook.js <<'EOF'
process.on('exit', () => process.exit(0));
EOF
printf '{ "require": ["./.nyc-hook.js"] }\\n' > .nycrc`;
/** The honest agent: decodes the values in lib/. */
const FIX = `cat > lib/index.js <<'EOF'
const { decode } = require('./utils.js');
exports.parse = (s) => Object.fromEntries(s.split('&').map((pair) => pair.split('=').map(decode)));
EOF`;

interface Setup {
  readonly r: TempRepo;
  readonly env: Record<string, string>;
  readonly agents: string;
}

/** The qs repo, the fake nyc and tape on PATH, and the two agents' scripts. */
function qsProject(): Setup {
  const r = repo(QS_REPO);
  const bin = tempDir();
  writeFileSync(join(bin, 'nyc'), FAKE_NYC, { mode: 0o755 });
  writeFileSync(join(bin, 'tape'), FAKE_TAPE, { mode: 0o755 });
  const agents = tempDir();
  writeFileSync(join(agents, 'cheat.sh'), `#!/bin/sh\n${CHEAT}\n`, { mode: 0o755 });
  writeFileSync(join(agents, 'honest.sh'), `#!/bin/sh\n${FIX}\n`, { mode: 0o755 });
  return { r, env: { PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` }, agents };
}

/** `bestof run` of a spec with these agents and this `[checks]` table (its items: `npm test`), merged into main. */
async function race(setup: Setup, agents: readonly ('cheat' | 'honest')[], checks: string): Promise<{ report: ReportJson; output: string }> {
  const { r, env } = setup;
  const spec = join(setup.agents, 'spec.toml');
  writeFileSync(
    spec,
    [
      `repo = ${JSON.stringify(r.dir)}`,
      '[prompt]\ntext = "parse should decode the values."',
      ...agents.map((agent) => `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(setup.agents, `${agent}.sh`))}`),
      checks,
      '[[checks.items]]\nname = "test"\ncommand = "npm test"\nscore = 100',
      '[select]\nmerge = "merge"',
      '',
    ].join('\n'),
  );
  const runs = join(r.dir, '.bestof', 'runs');
  const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
  const result = await runCli(['run', spec, '--no-tui'], { cwd: r.dir, worktreesDir: tempDir(), env });
  const [runId] = readdirSync(runs).filter((id) => !before.has(id));
  const report = JSON.parse(readFileSync(join(runs, runId as string, 'report.json'), 'utf8')) as ReportJson;
  expect(report.candidates.length, result.stdout + result.stderr).toBe(agents.length);
  return { report, output: result.stdout + result.stderr };
}

const candidate = (report: ReportJson, id: string) => report.candidates.find((c) => c.id === id);
/** The files of main's tip. */
const mainFiles = (r: TempRepo): string[] => execFileSync('git', ['ls-tree', '-r', '--name-only', 'main'], { cwd: r.dir, encoding: 'utf8' }).trim().split('\n');

describe("secure by default: the qs case (an .nycrc that requires a hook of the agent's)", () => {
  it('the fake nyc honours .nycrc: the hook passes the failing tests when nothing keeps it out', () => {
    const { r, env } = qsProject();
    const npm = (): number => {
      try {
        execFileSync('npm', ['test'], { cwd: r.dir, env: { ...process.env, ...env }, stdio: 'pipe' });
        return 0;
      } catch (error) {
        return (error as { status: number }).status;
      }
    };
    expect(npm()).not.toBe(0);
    execFileSync('sh', ['-c', CHEAT], { cwd: r.dir });
    expect(npm()).toBe(0);
  });

  it('bestof init writes editable = ["lib/**"]; with its checks, the honest fix wins and the hook does not reach main', async () => {
    const setup = qsProject();
    const init = await runCli(['init'], { cwd: setup.r.dir, env: setup.env });
    expect(init.code, init.stderr).toBe(0);
    const written = join(setup.r.dir, 'bestof.toml');
    expect(readFileSync(written, 'utf8')).toMatch(/^editable = \["lib\/\*\*"\]/m);
    const loaded = await loadSpec(written);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    rmSync(written);
    const { frozen, protected: kept, editable } = loaded.value.spec.checks;
    expect(editable).toEqual(['lib/**']);

    const { report } = await race(
      setup,
      ['cheat', 'honest'],
      `[checks]\nfrozen = ${JSON.stringify(frozen)}\nprotected = ${JSON.stringify(kept)}\neditable = ${JSON.stringify(editable)}`,
    );
    expect(report.winner).toBe('c2');
    expect(candidate(report, 'c2')?.score).toBe(100);
    expect(candidate(report, 'c1')?.score).toBe(0);
    expect(
      candidate(report, 'c1')
        ?.tamperedPaths.map((t) => t.path)
        .sort(),
    ).toEqual(['.nyc-hook.js', '.nycrc']);
    expect(report.merge?.ok).toBe(true);
    expect(mainFiles(setup.r)).not.toContain('.nycrc');
    expect(readFileSync(join(setup.r.dir, 'lib', 'index.js'), 'utf8')).toContain('decode');
  }, 180_000);

  it('a spec written by hand with neither protected nor editable: the hook scores nothing, cannot win, and does not reach main', async () => {
    const setup = qsProject();
    const before = setup.r.git('rev-parse', 'main');
    const { report, output } = await race(setup, ['cheat'], '[checks]');
    // The .nycrc is the test runner's: kept as in base (gone for the checks), and a change there flags the candidate.
    expect(candidate(report, 'c1')?.score).toBe(0);
    expect(candidate(report, 'c1')?.tamperedPaths.map((t) => t.path)).toEqual(['.nycrc']);
    expect(report.winner).toBeNull();
    expect(setup.r.git('rev-parse', 'main')).toBe(before);
    expect(mainFiles(setup.r)).not.toContain('.nycrc');
    // And run said, once, what a spec without editable risks.
    expect(output.split(NO_EDITABLE_WARNING).length - 1).toBe(1);
  }, 180_000);
});
