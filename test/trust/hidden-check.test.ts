/**
 * Hidden checks through the real binary (issue 45, item 4). A cheater that special-cases the
 * visible test's inputs (test/fixtures/adversaries/hardcode-visible.sh) next to the honest agent,
 * with a hidden check (a folder outside the repo, laid into the scoring tree as `test/hidden` for
 * that check alone) whose tests use other inputs: the cheater passes the visible check, fails the
 * hidden one, and loses. Then every file an agent, the reviewer and the voters received is read,
 * and no byte of the hidden files (a marker string in them) is found; nor in the candidates'
 * commits, refs, worktrees or what was merged.
 *
 * Also: the plan refuses a hidden folder inside the repo (exit 2, naming the key), and without the
 * sandbox `validate` says once that an agent could read the hidden folder.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, relative } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { adversary, makeExecutable, makeTrustProject, readTrustReport, runDirs, safeGit, trustSpec, type TrustProject } from './harness.js';

const MARKER = 'HIDDEN-TEST-MARKER-7d3e91';

/** Node tests with other inputs than the visible test's: the special-cased add() fails both. */
const HIDDEN_TEST = `'use strict';
// ${MARKER}: this file must never reach an agent, a voter or the reviewer.
const { test } = require('node:test');
const assert = require('node:assert/strict');
const add = require('../../src/add.js');
test('adds other numbers', () => assert.equal(add(40, 2), 42));
test('adds negatives', () => assert.equal(add(-7, 3), -4));
`;

const CHECKS = (hidden: string) => `
[[checks.items]]
name = "unit"
command = "node test/add.test.js"
score = 10
timeout = "60s"

[[checks.items]]
name = "acceptance"
command = "node --test --test-reporter=junit --test-reporter-destination=$BESTOF_REPORT_DIR/junit.xml test/hidden/"
report = "junit"
hidden = ${JSON.stringify(hidden)}
into = "test/hidden"
score = 10
timeout = "60s"
`;

/** The reviewer and the voters: scripted, each answering as the vote and the review ask. */
function judges(p: TrustProject): string {
  const reviewer = p.writeOutside('judges/reviewer.sh', '#!/bin/sh\necho "VERDICT: LGTM"\n');
  const voter = p.writeOutside('judges/voter.sh', '#!/bin/sh\nprintf "I ranked them.\\n\\nFINAL RANKING:\\nA\\nB\\n"\n');
  for (const file of [reviewer, voter]) makeExecutable(file);
  return `
[review]
kind = "command"
command = ${JSON.stringify(reviewer)}
score = 0

[vote]
enabled = true
cross_review = false
weight = 0.1
voters = [{ kind = "command", command = ${JSON.stringify(voter)} }, { kind = "command", command = ${JSON.stringify(voter)} }]
`;
}

let project: TrustProject | undefined;
const folders: string[] = [];
afterEach(() => {
  project?.cleanup();
  project = undefined;
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/**
 * A folder that a sandboxed agent would see but for the hidden check: outside /tmp (each sandboxed
 * process has a private one) and outside the HOME bestof runs with (the harness's fake one, which
 * the sandbox hides), as a folder next to a spec in a real project is.
 */
function visibleFolder(): string {
  const parent = existsSync('/var/tmp') ? '/var/tmp' : homedir();
  const folder = realpathSync(mkdtempSync(join(parent, 'bestof-hidden-tests-')));
  folders.push(folder);
  return folder;
}

/** Every file under `dir`, with its path relative to `root`. */
function filesUnder(dir: string, root = dir): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, root) : [relative(root, path)];
  });
}

/** The commits (of every ref) that hold `text` in a file; git grep exits 1 when none does. */
function grepEveryCommit(p: TrustProject, text: string): string[] {
  const commits = safeGit(p.repo.dir, ['rev-list', '--all']).split('\n');
  try {
    return safeGit(p.repo.dir, ['grep', '-l', '-F', text, ...commits, '--']).split('\n');
  } catch (error) {
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

describe('a hidden check against a cheater that special-cases the visible test', () => {
  it('the cheater passes the visible check, fails the hidden one and loses; no agent, reviewer or voter received a byte of the hidden files [sandbox auto]', async () => {
    const p = makeTrustProject();
    project = p;
    const hidden = visibleFolder();
    writeFileSync(join(hidden, 'add.hidden.test.js'), HIDDEN_TEST);
    const spec = trustSpec(p, {
      cheater: adversary('hardcode-visible'),
      sandbox: 'auto',
      checks: CHECKS(hidden),
      extra: judges(p),
    }).replace('max_iterations = 1', 'max_iterations = 2');
    // The spec names the hidden folder relative to its own folder; the cheater is told where (as one that read the spec).
    const specPath = p.writeOutside(
      'spec.toml',
      spec.replace(`MARKER_DIR = ${JSON.stringify(p.markers)} }`, `MARKER_DIR = ${JSON.stringify(p.markers)}, HIDDEN_DIR = ${JSON.stringify(hidden)} }`),
    );
    const result = await runCli(['run', specPath], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env });
    expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(0);

    const report = readTrustReport(p);
    const cheater = report.candidates.find((c) => c.id === 'c1')!;
    const honest = report.candidates.find((c) => c.id === 'c2')!;
    expect(report.winner).toBe('c2');
    expect(honest.score).toBe(20);
    expect(cheater.score).toBe(10);

    const [runDir] = runDirs(p);
    // What the cheater was told in its second iteration: the count, not the tests.
    const retry = readFileSync(join(runDir!, 'candidates', 'c1', 'iteration-2', 'prompt.md'), 'utf8');
    expect(retry).toContain('- hidden check `acceptance` failed: 2 of 2 tests');
    expect(retry).not.toContain('adds other numbers');

    // Every prompt an agent, the reviewer or a voter received, as the run folder records them.
    const received = filesUnder(runDir!).filter((path) => /prompt/.test(path) || path.startsWith('vote/') || /review/.test(path));
    expect(received.filter((path) => path.startsWith('vote/')).length).toBeGreaterThan(0);
    expect(received.some((path) => /iteration-2\/prompt\.md$/.test(path))).toBe(true);
    for (const path of received) expect(readFileSync(join(runDir!, path), 'utf8'), path).not.toContain(MARKER);

    // What the cheater found: nothing of the hidden folder (the sandbox hides it), no test/hidden in its worktree.
    const found = safeGit(p.repo.dir, ['show', `${cheater.commit}:src/found.txt`]);
    expect(found).not.toContain(MARKER);
    expect(found).not.toContain('./test/hidden/');
    expect(found).toContain(`cat: '${hidden}/*': No such file or directory`);
    // No commit, ref or merge holds the files: every object reachable from any ref.
    const objects = safeGit(p.repo.dir, ['rev-list', '--objects', '--all']);
    expect(objects).not.toContain('test/hidden');
    expect(grepEveryCommit(p, MARKER)).toEqual([]);
    expect(existsSync(join(p.repo.dir, 'test', 'hidden'))).toBe(false);
  }, 180_000);
});

describe('the plan of a hidden check, through the binary', () => {
  it('refuses a hidden folder inside the repo: exit 2, naming the key', async () => {
    const p = makeTrustProject();
    project = p;
    mkdirSync(join(p.repo.dir, 'hidden-tests'));
    writeFileSync(join(p.repo.dir, 'hidden-tests', 'add.hidden.test.js'), HIDDEN_TEST);
    const spec = trustSpec(p, { cheater: adversary('hardcode-visible'), sandbox: 'auto', checks: CHECKS(join(p.repo.dir, 'hidden-tests')) });
    const result = await runCli(['validate', p.writeOutside('spec.toml', spec)], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('checks.items[1].hidden: ');
    expect(result.stderr).toContain('is inside the repo');
  });

  it('without the sandbox, validate says once that an agent could read the hidden folder; with it, nothing', async () => {
    const p = makeTrustProject();
    project = p;
    mkdirSync(join(p.outside, 'hidden-tests'));
    writeFileSync(join(p.outside, 'hidden-tests', 'add.hidden.test.js'), HIDDEN_TEST);
    const options = { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env };
    const off = await runCli(
      ['validate', p.writeOutside('off.toml', trustSpec(p, { cheater: adversary('hardcode-visible'), sandbox: 'off', checks: CHECKS('hidden-tests') }))],
      options,
    );
    expect(off.code, off.stderr).toBe(0);
    expect(off.stderr.split('an agent could read the hidden checks').length - 1).toBe(1);
    const auto = await runCli(
      ['validate', p.writeOutside('auto.toml', trustSpec(p, { cheater: adversary('hardcode-visible'), sandbox: 'auto', checks: CHECKS('hidden-tests') }))],
      options,
    );
    expect(auto.code, auto.stderr).toBe(0);
    expect(auto.stderr).not.toContain('an agent could read the hidden checks');
  });
});
