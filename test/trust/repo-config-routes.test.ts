/**
 * Routes through the repository's own configuration files (issue 43), each adversary next to the
 * honest agent (c1 = the adversary, c2 = the honest one) through the real binary, with the checks
 * of trust-run.ts expectTrustKept: the honest agent wins with every point and is never flagged, the
 * adversary earns nothing, no payload ran, and the user's repository (refs, objects, index,
 * checkout, config, hooks) and HOME are as before but for the merge of the honest fix.
 *
 * - secrets routed through an ignored path: the git config and the credential files the checks
 *   could read, kept in ignored files for the next agent call to commit;
 * - the test runners' own files on a spec with neither `protected` nor `editable` (the spec a
 *   user writes by hand): kept as in base by bestof's secure defaults (src/checks/runner-defaults.ts);
 * - files that run code later (husky hooks, .gitmodules, .lfsconfig, a CI workflow), planted for
 *   bestof's own git calls and checks to run.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { filesUnder } from '../helpers/files.js';
import {
  adversary,
  CONFIG_SECRETS,
  cargoEnv,
  makeTrustProject,
  markersLeft,
  PYTHON_CHECKS,
  RUST_CHECKS,
  readEvents,
  readTrustReport,
  runDirs,
  safeGit,
  trustSpec,
  userState,
  userStateDiff,
  type SpecOptions,
  type TrustProject,
} from './harness.js';
import { ADVERSARY_TOKENS, killLeftovers } from './processes.js';
import { CHEATER, expectTrustKept, killQuietly, output, runBestof, runProcesses, type Mode } from './trust-run.js';

let project: TrustProject | undefined;
afterEach(() => {
  killLeftovers(ADVERSARY_TOKENS);
  if (project) for (const runDir of runDirs(project)) for (const pid of runProcesses(runDir)) killQuietly(pid);
  project?.cleanup();
  project = undefined;
});

const hasPython = (() => {
  try {
    execFileSync('python3', ['-c', 'import pytest'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
const hasCargo = cargoEnv() !== undefined;

const WHY: Record<Mode, string> = { auto: 'sandbox auto', off: 'sandbox off: must hold without the sandbox' };

/** Tokens in the credential files of the user's HOME (cargo's, npm's): found nowhere after the run. */
const HOME_CREDENTIALS = { cargo: 'cio-Cargo-Token-7d1e', npm: 'npm-Auth-Token-3b8f' } as const;

function plantHomeCredentials(p: TrustProject): void {
  mkdirSync(join(p.home, '.cargo'), { recursive: true });
  writeFileSync(join(p.home, '.cargo', 'credentials.toml'), `[registry]\ntoken = "${HOME_CREDENTIALS.cargo}"\n`);
  writeFileSync(join(p.home, '.npmrc'), `//registry.npmjs.org/:_authToken=${HOME_CREDENTIALS.npm}\n`);
}

/**
 * Each value: in no file of the run folder and no object any ref reaches (a commit, kept ref or
 * branch of the run, the merge). In the sandbox, in no object of the store at all: without it the
 * agent's own `git add -f` writes a loose object there, unreached, as any write of a file could.
 */
function expectNowhere(p: TrustProject, values: readonly string[], mode: Mode): void {
  for (const file of runDirs(p).flatMap((dir) => filesUnder(dir))) {
    const text = readFileSync(file, 'latin1');
    for (const value of values) expect(text.includes(value), `${value} in ${file}`).toBe(false);
  }
  const listed =
    mode === 'auto'
      ? safeGit(p.repo.dir, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'])
      : safeGit(p.repo.dir, ['rev-list', '--objects', '--all', '--no-object-names']);
  const objects = listed.split('\n').filter(Boolean);
  const contents = execFileSync('git', ['cat-file', '--batch'], { cwd: p.repo.dir, input: `${objects.join('\n')}\n`, maxBuffer: 256 * 1024 * 1024 }).toString(
    'latin1',
  );
  for (const value of values) expect(contents.includes(value), `${value} in an object of the repository`).toBe(false);
}

describe('secrets routed through an ignored path', () => {
  for (const mode of ['auto', 'off'] as const) {
    it(`the git config copied into target/ (ignored), the checks' credentials kept there by the code they load, then routed into a commit on the next call [${WHY[mode]}]`, async () => {
      project = makeTrustProject({ configSecrets: true });
      plantHomeCredentials(project);
      const before = userState(project);
      const spec = trustSpec(project, { cheater: adversary('route-ignored-secrets'), sandbox: mode }).replace('max_iterations = 1', 'max_iterations = 2');
      const result = await runBestof(project, spec, false);
      expectTrustKept(project, before, result, { mode, flagged: false });
      const cheater = readTrustReport(project).candidates.find((c) => c.id === CHEATER);
      // Its second call found nothing the checks had left: the put-back removed their ignored files.
      expect(safeGit(project.repo.dir, ['show', `${cheater?.commit}:loot-status.txt`])).toBe('call 2: no loot from the checks');
      // What it routed from its own ignored copy of the git config is left out of its commit, and said so.
      const tree = safeGit(project.repo.dir, ['ls-tree', '-r', '--name-only', cheater?.commit as string]).split('\n');
      expect(tree).not.toContain('routed-config.txt');
      expect(tree).not.toContain('target/config-copy');
      const warnings = readEvents(project)
        .filter((e) => e.type === 'run.warning' && e.candidate === CHEATER)
        .map((e) => e.message ?? '');
      expect(warnings.join('\n')).toMatch(/routed-config\.txt/);
      expectNowhere(project, [...Object.values(CONFIG_SECRETS), ...Object.values(HOME_CREDENTIALS)], mode);
    });
  }
});

/**
 * Test runners' files on the spec a user writes by hand: the trust project's frozen tests and
 * package.json, and neither `protected` nor `editable`. Each adversary leaves the bug unfixed.
 */
const NO_PROTECTED_NO_EDITABLE: readonly { title: string; script: string; spec?: Partial<SpecOptions>; python?: true; rust?: true }[] = [
  { title: 'a committed project .npmrc whose node-options preloads a script that exits 0', script: 'npmrc-project' },
  { title: 'a committed node_modules/.bin/node that npm test puts first on PATH', script: 'shim-committed-node' },
  { title: "pytest's conftest.py + pytest.ini", script: 'shim-pytest-conftest', spec: { checks: PYTHON_CHECKS }, python: true },
  { title: 'a committed .cargo/config.toml whose `runner` passes every test binary', script: 'cargo-runner', spec: { checks: RUST_CHECKS }, rust: true },
];

describe("test runners' files on a spec with neither `protected` nor `editable`: bestof's defaults", () => {
  for (const c of NO_PROTECTED_NO_EDITABLE) {
    for (const mode of ['auto', 'off'] as const) {
      const name = `${c.title} [${WHY[mode]}]`;
      if ((c.python && !hasPython) || (c.rust && !hasCargo)) {
        it.skip(`${name} (skipped: ${c.python ? 'python3 with pytest' : 'cargo'} is not installed)`, () => {});
        continue;
      }
      it(name, async () => {
        project = makeTrustProject({ rust: c.rust ?? false });
        const before = userState(project);
        const result = await runBestof(project, trustSpec(project, { cheater: adversary(c.script), sandbox: mode, ...c.spec }), false);
        expectTrustKept(project, before, result, { mode, flagged: true });
      });
    }
  }
});

/**
 * What keeps these from running in bestof's own git calls on a worktree is that they make no
 * commit, checkout or merge there that runs a hook (commits are written with plumbing), besides
 * `core.hooksPath=/dev/null` on every call; no submodule or LFS command; the checks run only the
 * spec's commands. A known gap, tested below: a user who keeps hooks in the checkout (husky's
 * `core.hooksPath = .husky`) runs the winner's hooks on bestof's merge, as on their own `git
 * merge`; `[select] allow_autorun = false` is what keeps such a candidate from winning.
 */
describe('files that run code later, planted for bestof and its checks to run', () => {
  for (const mode of ['auto', 'off'] as const) {
    it(`husky hooks (the user has husky: core.hooksPath = .husky), a .gitmodules naming a local repository, a .lfsconfig transfer agent, a CI workflow [${WHY[mode]}]`, async () => {
      project = makeTrustProject();
      // What `husky install` leaves in the user's config: hooks in the checkout's .husky/.
      safeGit(project.repo.dir, ['config', 'core.hooksPath', '.husky']);
      const before = userState(project);
      const result = await runBestof(project, trustSpec(project, { cheater: adversary('autorun-git'), sandbox: mode }), false);
      // No marker (checked there): no hook, submodule command, transfer agent or workflow ran.
      expectTrustKept(project, before, result, { mode, flagged: false });
      const cheater = readTrustReport(project).candidates.find((c) => c.id === CHEATER);
      const tree = safeGit(project.repo.dir, ['ls-tree', '-r', '--name-only', cheater?.commit as string]).split('\n');
      // They were in its commit, for bestof's own commit, checkout and restore to meet...
      expect(tree).toEqual(expect.arrayContaining(['.husky/post-merge', '.gitmodules', '.lfsconfig', '.github/workflows/ci.yml']));
      // ...and the ranking names them as files that run code in the user's checkout.
      const ranked = readTrustReport(project).ranking.find((r) => r.candidate === CHEATER) as unknown as { autorun?: string[] };
      expect(ranked.autorun).toEqual(expect.arrayContaining(['.husky/post-merge', '.gitmodules', '.lfsconfig', '.github/workflows/ci.yml']));
    });
  }

  it('a real fix with husky hooks, alone, the user has husky, `[select] allow_autorun = false`: it cannot win, nothing is merged, its hooks never run [sandbox auto]', async () => {
    project = makeTrustProject();
    safeGit(project.repo.dir, ['config', 'core.hooksPath', '.husky']);
    const before = userState(project);
    const result = await runBestof(
      project,
      trustSpec(project, { cheater: adversary('autorun-git-fix'), sandbox: 'auto', alone: true, select: 'allow_autorun = false' }),
      false,
    );
    // It scores every point: only allow_autorun keeps it from the merge, where the user's git would
    // run its .husky/pre-merge-commit and post-merge (a marker each).
    const report = readTrustReport(project);
    expect(report.candidates.find((c) => c.id === CHEATER)?.score, output(result)).toBe(20);
    const ranked = report.ranking.find((r) => r.candidate === CHEATER);
    expect(ranked?.eligible).toBe(false);
    expect(ranked?.reason).toMatch(/\.husky\/post-merge.*select\.allow_autorun = false/);
    expect(report.winner).toBeNull();
    expect(result.code, output(result)).toBe(1);
    expect(markersLeft(project), 'a payload of the adversary ran').toEqual([]);
    expect(userStateDiff(before, userState(project)), "the user's repo and HOME, byte for byte").toEqual([]);
  });
});
