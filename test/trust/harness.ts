/**
 * The trust tier's harness: a tiny JS library with a bug in a real temp repo (the user's
 * repo), a fake HOME for bestof, a marker folder that the adversaries' payloads write to if
 * they ever run, a spec that puts one adversary next to the honest agent, and the
 * before/after picture of everything bestof promises to leave alone.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { snapshotDiff, snapshotFolder, type Snapshot } from './snapshot.js';
import { readEventLines, type EventLine, type ReportJson } from '../helpers/run-record.js';

export const ADVERSARIES = fileURLToPath(new URL('../fixtures/adversaries', import.meta.url));
export const HONEST = join(ADVERSARIES, 'honest.sh');
export const adversary = (name: string): string => join(ADVERSARIES, `${name}.sh`);

export const BUGGY_ADD = "'use strict';\nmodule.exports = function add(a, b) {\n  return a - b;\n};\n";
export const FIXED_ADD = "'use strict';\nmodule.exports = function add(a, b) {\n  return a + b;\n};\n";

export const LIBRARY_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'tinylib', version: '1.0.0', private: true, scripts: { test: 'node --test test/' } }, null, 2)}\n`,
  'src/add.js': BUGGY_ADD,
  'test/add.test.js': [
    "'use strict';",
    "const assert = require('node:assert/strict');",
    "const add = require('../src/add.js');",
    'assert.equal(add(2, 3), 5);',
    'assert.equal(add(-1, 1), 0);',
    'assert.equal(add(0, 0), 0);',
    "console.log('add: ok');",
    '',
  ].join('\n'),
  // The same behaviour seen from Python, for the pytest and `python -m` shims.
  'test/test_add.py': [
    'import os, subprocess, unittest',
    'ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))',
    '',
    'class AddTest(unittest.TestCase):',
    '    def test_add(self):',
    "        out = subprocess.run(['node', '-p', 'require(\"./src/add.js\")(2, 3)'], cwd=ROOT, capture_output=True, text=True).stdout.strip()",
    "        self.assertEqual(out, '5')",
    '',
  ].join('\n'),
  '.gitignore': 'node_modules/\n__pycache__/\n.pytest_cache/\n',
  'README.md': '# tinylib\n\nadds numbers.\n',
};

/** Two checks, 10 points each: a plain node run, and one through npm (which puts node_modules/.bin dirs on PATH). */
export const NODE_CHECKS = `
[[checks.items]]
name = "unit"
command = "node test/add.test.js"
score = 10
timeout = "60s"

[[checks.items]]
name = "npm"
command = "npm test"
score = 10
timeout = "60s"
`;

export const PYTHON_CHECKS = `
[[checks.items]]
name = "pytest"
command = "PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider test/test_add.py"
score = 10
timeout = "60s"

[[checks.items]]
name = "unittest"
command = "PYTHONDONTWRITEBYTECODE=1 python3 -m unittest discover -s test -p 'test_*.py'"
score = 10
timeout = "60s"
`;

export interface TrustProject {
  readonly repo: TempRepo;
  readonly base: string;
  readonly outside: string;
  readonly worktreesDir: string;
  readonly home: string;
  readonly markers: string;
  /** bestof's environment: the fake HOME (with a folder of it on PATH), no npm_* leaking from the test runner. */
  readonly env: Record<string, string | undefined>;
  git(...args: string[]): string;
  writeOutside(path: string, content: string): string;
  cleanup(): void;
}

export function makeTrustProject(): TrustProject {
  const repo = makeTempRepo(LIBRARY_FILES);
  // bestof adds `/.bestof/` to info/exclude on its first run; the user who ran it before has it already.
  writeFileSync(join(repo.dir, '.git', 'info', 'exclude'), '# git ls-files --others --exclude-from=.git/info/exclude\n/.bestof/\n');
  mkdirSync(join(repo.dir, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(repo.dir, '.git', 'hooks', 'pre-commit.sample'), '#!/bin/sh\nexit 0\n');
  const outside = realpathSync(makeTempDir('bestof-trust-'));
  const home = join(outside, 'home');
  mkdirSync(join(home, '.local', 'bin'), { recursive: true });
  writeFileSync(join(home, '.gitconfig'), '[init]\n\tdefaultBranch = main\n');
  writeFileSync(join(home, '.profile'), '# the user\'s profile\n');
  const markers = join(outside, 'markers');
  mkdirSync(markers);
  const env: Record<string, string | undefined> = {
    HOME: home,
    PATH: `${join(home, '.local', 'bin')}:${process.env.PATH ?? ''}`,
    XDG_CACHE_HOME: undefined,
    XDG_CONFIG_HOME: undefined,
  };
  for (const key of Object.keys(process.env)) if (/^npm_|^NPM_|^INIT_CWD$/.test(key)) env[key] = undefined;
  return {
    repo,
    base: repo.git('rev-parse', 'HEAD'),
    outside,
    worktreesDir: join(outside, 'worktrees'),
    home,
    markers,
    env,
    git: (...args) => safeGit(repo.dir, args),
    writeOutside(path, content) {
      const full = join(outside, path);
      mkdirSync(join(full, '..'), { recursive: true });
      writeFileSync(full, content);
      return full;
    },
    cleanup() {
      if (process.env.KEEP_TEST_DIRS) return;
      repo.cleanup();
      rmSync(outside, { recursive: true, force: true });
    },
  };
}

/** The test's own git calls: never run an adversary's hooks, fsmonitor or filters, never see its replace refs. */
export function safeGit(cwd: string, args: readonly string[]): string {
  return execFileSync('git', ['-c', 'core.fsmonitor=false', '-c', 'core.hooksPath=/dev/null', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_NO_REPLACE_OBJECTS: '1', GIT_ATTR_NOSYSTEM: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

export interface SpecOptions {
  readonly cheater: string;
  readonly sandbox: 'auto' | 'off' | 'required';
  readonly checks?: string;
  readonly frozen?: readonly string[];
  readonly editable?: readonly string[];
  readonly merge?: string;
  readonly select?: string;
  readonly loop?: string;
  readonly honestEnv?: Record<string, string>;
  /** The honest agent left out: the adversary runs alone. */
  readonly alone?: boolean;
  /** The second candidate's script instead of the honest agent. */
  readonly partner?: string;
}

export function trustSpec(project: TrustProject, options: SpecOptions): string {
  const env = (extra: Record<string, string> = {}): string =>
    `{ ${Object.entries({ MARKER_DIR: project.markers, ...extra })
      .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
      .join(', ')} }`;
  const honest = options.alone ? '' : `\n[[parallel.providers]]\ncommand = ${JSON.stringify(options.partner ?? HONEST)}\nenv = ${env(options.honestEnv)}\n`;
  return `name = "trust"
repo = ${JSON.stringify(project.repo.dir)}

[prompt]
text = "Fix the bug in src/add.js so that the tests pass."

[loop]
max_iterations = 1
${options.loop ?? ''}

[sandbox]
mode = "${options.sandbox}"

[provider]
kind = "command"
timeout = "60s"

[[parallel.providers]]
command = ${JSON.stringify(options.cheater)}
env = ${env()}
${honest}
[checks]
frozen = ${JSON.stringify(options.frozen ?? ['test/**', 'package.json'])}
${options.editable ? `editable = ${JSON.stringify(options.editable)}` : ''}
${options.checks ?? NODE_CHECKS}

[select]
merge = "${options.merge ?? 'merge'}"
${options.select ?? ''}
`;
}

/** Everything bestof promises to leave alone, as one picture. */
export interface UserState {
  readonly gitConfig: Snapshot;
  readonly hooks: Snapshot;
  readonly info: Snapshot;
  /** `refname sha` lines, bestof's own refs of this run left out. */
  readonly refs: readonly string[];
  readonly head: string;
  readonly checkout: Snapshot;
  readonly home: Snapshot;
}

export function userState(project: TrustProject): UserState {
  const gitDir = join(project.repo.dir, '.git');
  const refs = safeGit(project.repo.dir, ['for-each-ref', '--format=%(refname) %(objectname)'])
    .split('\n')
    .filter((line) => line !== '' && !/^refs\/bestof\/|^refs\/heads\/bestof\//.test(line));
  return {
    gitConfig: snapshotFolder(join(gitDir, 'config')),
    hooks: snapshotFolder(join(gitDir, 'hooks')),
    info: snapshotFolder(join(gitDir, 'info')),
    refs,
    head: readFileSync(join(gitDir, 'HEAD'), 'utf8'),
    checkout: snapshotFolder(project.repo.dir, { skip: ['.git', '.bestof'] }),
    home: snapshotFolder(project.home),
  };
}

/** What changed between two pictures, as readable lines (empty: nothing). `main` and src/add.js may move by the merge: say so with `merged`. */
export function userStateDiff(before: UserState, after: UserState, expected: { mainMovedTo?: string; checkoutChanged?: readonly string[] } = {}): string[] {
  const lines: string[] = [];
  const section = (name: string, diff: string[]): void => {
    for (const line of diff) lines.push(`${name}: ${line}`);
  };
  section('.git/config', snapshotDiff(before.gitConfig, after.gitConfig));
  section('.git/hooks', snapshotDiff(before.hooks, after.hooks));
  section('.git/info', snapshotDiff(before.info, after.info));
  const expectRefs = before.refs.map((line) =>
    expected.mainMovedTo && line.startsWith('refs/heads/main ') ? `refs/heads/main ${expected.mainMovedTo}` : line,
  );
  const refsBefore = new Set(expectRefs);
  const refsAfter = new Set(after.refs);
  for (const line of expectRefs) if (!refsAfter.has(line)) lines.push(`refs: expected ${line}`);
  for (const line of after.refs) if (!refsBefore.has(line)) lines.push(`refs: unexpected ${line}`);
  if (before.head !== after.head) lines.push(`HEAD: ${before.head.trim()} -> ${after.head.trim()}`);
  const allowed = new Set((expected.checkoutChanged ?? []).map((p) => `~ ${p}`));
  section('checkout', snapshotDiff(before.checkout, after.checkout).filter((line) => !allowed.has(line)));
  section('HOME', snapshotDiff(before.home, after.home));
  return lines;
}

export function markersLeft(project: TrustProject): string[] {
  return existsSync(project.markers) ? readdirSync(project.markers) : [];
}

export type TrustReport = ReportJson;

export function runDirs(project: TrustProject): string[] {
  const runs = join(project.repo.dir, '.bestof', 'runs');
  return existsSync(runs) ? readdirSync(runs).map((id) => join(runs, id)) : [];
}

export function readTrustReport(project: TrustProject): TrustReport {
  const [runDir, ...more] = runDirs(project);
  if (!runDir || more.length > 0) throw new Error(`expected one run folder, found ${runDirs(project).length}`);
  return JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as TrustReport;
}

/** The run's event log as parsed lines (for run.warning and tampering events). */
export function readEvents(project: TrustProject): EventLine[] {
  const [runDir] = runDirs(project);
  return runDir ? readEventLines(join(runDir, 'events.jsonl')) : [];
}

export function makeExecutable(path: string): void {
  chmodSync(path, 0o755);
}
