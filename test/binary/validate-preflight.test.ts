/**
 * What validate (and run, before it creates anything) now sees that used to fail only at the
 * end: merge = "pr" without `gh`, without `origin`, or with gh not logged in; a detached HEAD
 * with one piece of advice that works; and a spec found from a subfolder.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeTargetProblem, pullRequestReadiness } from '../../src/engine/plan/merge-preflight.js';
import { NO_EDITABLE_WARNING } from '../../src/engine/plan/plan.js';
import { findDefaultSpec } from '../../src/cli/load-spec-or-explain.js';
import { remoteHost } from '../../src/git/history/remote.js';
import { findOnPath } from '../../src/process/find-on-path.js';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';

let project: Project | undefined;
let repo: TempRepo | undefined;
afterEach(() => {
  project?.cleanup();
  repo?.cleanup();
  project = undefined;
  repo = undefined;
});

/** A folder for PATH with a fake `gh` that exits `authExit` for `gh auth status` and logs its argv. */
function fakeGh(dir: string, authExit: number): string {
  const bin = join(dir, 'fake-gh-bin');
  mkdirSync(bin, { recursive: true });
  const gh = join(bin, 'gh');
  writeFileSync(
    gh,
    `#!/bin/sh\necho "$@" >> "${join(bin, 'argv.log')}"\nif [ "$1 $2" = "auth status" ]; then\n  [ ${authExit} -eq 0 ] && { echo "Logged in to github.com"; exit 0; }\n  echo "You are not logged into any GitHub hosts. To log in, run: gh auth login" >&2\n  exit ${authExit}\nfi\nexit 0\n`,
  );
  chmodSync(gh, 0o755);
  return bin;
}

/** A PATH with git and nothing else (no gh, whatever this machine has installed). */
async function pathWithGitOnly(dir: string): Promise<string> {
  const bin = join(dir, 'git-only-bin');
  mkdirSync(bin, { recursive: true });
  symlinkSync((await findOnPath('git')) as string, join(bin, 'git'));
  return bin;
}

describe('merge = "pr" before the run', () => {
  it('without gh on PATH and without an origin: both said, each with its fix', async () => {
    repo = makeTempRepo();
    const readiness = await pullRequestReadiness(repo.dir, { env: { ...process.env, PATH: await pathWithGitOnly(join(repo.dir, '.git', 'test-bin')) } });
    expect(readiness.problems).toHaveLength(2);
    expect(readiness.problems[0]).toMatch(
      /pushes the winner's branch to the remote "origin", and .* has no remote of that name: add it \(`git remote add origin/,
    );
    expect(readiness.problems[1]).toMatch(
      /GitHub CLI `gh`, which is not on PATH: install it \(https:\/\/cli\.github\.com\), then run `gh auth login`; or set merge = "branch"/,
    );
  });

  it('with gh not logged in (`gh auth status` exits 1): a problem naming the host and `gh auth login`; logged in: none', async () => {
    repo = makeTempRepo();
    repo.git('remote', 'add', 'origin', 'git@github.com:someone/thing.git');
    const loggedOut = fakeGh(join(repo.dir, '.git', 'out'), 1);
    const out = await pullRequestReadiness(repo.dir, { env: { ...process.env, PATH: loggedOut } });
    expect(out.problems).toEqual([
      'select.merge = "pr": gh is not logged in to github.com (`gh auth status` exited 1: You are not logged into any GitHub hosts. To log in, run: gh auth login): run `gh auth login`, or set merge = "branch"',
    ]);
    expect(readFileSync(join(loggedOut, 'argv.log'), 'utf8')).toBe('auth status --hostname github.com\n');
    const loggedIn = fakeGh(join(repo.dir, '.git', 'in'), 0);
    expect(await pullRequestReadiness(repo.dir, { env: { ...process.env, PATH: loggedIn } })).toEqual({ problems: [], warnings: [] });
  });

  it('remote hosts are read from https, scp-like and ssh URLs; a local path has none', () => {
    expect(remoteHost('https://github.com/o/r.git')).toBe('github.com');
    expect(remoteHost('git@ghe.example.com:o/r.git')).toBe('ghe.example.com');
    expect(remoteHost('ssh://git@github.com:22/o/r')).toBe('github.com');
    expect(remoteHost('/srv/git/r.git')).toBeUndefined();
    expect(remoteHost('file:///srv/git/r.git')).toBeUndefined();
  });

  it('`bestof run` with merge = "pr" and no gh: exit 2 before anything is created', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[sandbox]\nmode = "off"\n[select]\nmerge = "pr"\n`),
    );
    const path = await pathWithGitOnly(project.outside);
    const result = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { PATH: path } });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('has no remote of that name');
    expect(result.stderr).toContain('`gh`, which is not on PATH');
    expect(result.stderr).toContain('nothing was run or created');
    expect(project.repo.git('for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
    expect(existsSync(join(project.repo.dir, '.bestof'))).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);
  });
});

describe('a detached HEAD', () => {
  it('gives one piece of advice whether or not `into` is set, for merge, squash and ff; pr is told to set into', () => {
    for (const mode of ['merge', 'squash', 'ff'] as const) {
      const withoutInto = mergeTargetProblem({ mode, into: undefined, checkedOut: undefined, suggested: 'main' }) as string;
      const withInto = mergeTargetProblem({ mode, into: 'main', checkedOut: undefined }) as string;
      expect(withoutInto).toBe(withInto);
      expect(withoutInto).toContain('check out the branch to merge into, `git switch main`, then run bestof again');
      expect(withoutInto).not.toContain('into =');
    }
    expect(mergeTargetProblem({ mode: 'pr', into: undefined, checkedOut: undefined, suggested: 'main' })).toContain('set `into = "main"`');
    expect(mergeTargetProblem({ mode: 'pr', into: 'main', checkedOut: undefined })).toBeUndefined();
    expect(mergeTargetProblem({ mode: 'branch', into: undefined, checkedOut: undefined })).toBeUndefined();
    expect(mergeTargetProblem({ mode: 'merge', into: 'release', checkedOut: 'main' })).toContain('"release" is not the checked-out branch (main)');
  });

  it('following the advice works: validate refuses with `git switch main`, and after it validate says ok', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const p = project;
    const validate = (body: string) =>
      runCli(
        [
          'validate',
          p.writeOutside(
            'spec.toml',
            specToml(p.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[sandbox]\nmode = "off"\n${ADD_CHECKS}\n${body}`),
          ),
        ],
        { cwd: p.repo.dir, worktreesDir: p.worktreesDir },
      );
    project.repo.git('switch', '--detach', '--quiet', 'HEAD');
    for (const select of ['', '[select]\ninto = "main"\n']) {
      const refused = await validate(select);
      expect(refused.code).toBe(2);
      const lines = refused.stderr.trim().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain('the repo is on a detached HEAD: check out the branch to merge into, `git switch main`, then run bestof again');
    }
    project.repo.git('switch', '--quiet', 'main');
    for (const select of ['', '[select]\ninto = "main"\n']) {
      const accepted = await validate(select);
      // The spec has no `editable`: validate says what that risks, once (test/binary/secure-default.test.ts).
      expect(accepted.stderr).toBe(`warning: ${NO_EDITABLE_WARNING}\n`);
      expect(accepted.code).toBe(0);
    }
  });
});

describe('from a subfolder', () => {
  it('finds bestof.toml in the nearest folder up to the repo root, never above it', async () => {
    repo = makeTempRepo();
    const deep = join(repo.dir, 'packages', 'lib', 'src');
    mkdirSync(deep, { recursive: true });
    expect(await findDefaultSpec(deep)).toEqual({ path: join(deep, 'bestof.toml'), found: false });
    repo.write('bestof.toml', 'name = "root"\n');
    expect(await findDefaultSpec(deep)).toEqual({ path: join(repo.dir, 'bestof.toml'), found: true });
    repo.write('packages/bestof.toml', 'name = "packages"\n');
    expect(await findDefaultSpec(deep)).toEqual({ path: join(repo.dir, 'packages', 'bestof.toml'), found: true });
    // A repo inside a folder with a spec of its own: the outer spec is not this repo's.
    const inner = join(repo.dir, 'packages', 'lib');
    makeNestedRepo(inner);
    expect(await findDefaultSpec(deep)).toEqual({ path: join(deep, 'bestof.toml'), found: false });
  });

  it('`bestof validate` in a subfolder validates the root spec and says which file it used; with none, says where it looked', async () => {
    project = makeProject();
    const none = await runCli(['validate'], { cwd: join(project.repo.dir, 'src'), worktreesDir: project.worktreesDir });
    expect(none.code).toBe(2);
    expect(none.stderr).toContain("no bestof.toml in this folder nor in any folder above it up to the repo's root; `bestof init` writes one at the root");
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    writeFileSync(
      join(project.repo.dir, 'bestof.toml'),
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[sandbox]\nmode = "off"\n${ADD_CHECKS}`),
    );
    const sub = join(project.repo.dir, 'src');
    const result = await runCli(['validate'], { cwd: sub, worktreesDir: project.worktreesDir });
    expect(result.stderr).toBe(
      `bestof: using ${join(project.repo.dir, 'bestof.toml')} (no bestof.toml in this folder; it is the nearest one up to the repo's root)\nwarning: ${NO_EDITABLE_WARNING}\n`,
    );
    expect(result.stdout).toBe('ok\n');
    expect(result.code).toBe(0);
  });
});

/** A repo of its own inside the outer one's folder (no commit needed: only its root is asked). */
function makeNestedRepo(dir: string): void {
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '--quiet'], { cwd: dir });
}

describe("init's placeholder task", () => {
  it('validate and run refuse a spec whose prompt is still the one `bestof init` wrote: exit 2, the key and the fix, nothing created; with a task written, validate gets past it', async () => {
    project = makeProject();
    const init = await runCli(['init'], { cwd: project.repo.dir });
    expect(init.code, init.stderr).toBe(0);
    const spec = join(project.repo.dir, 'bestof.toml');
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(result.code, `${command}: ${result.stdout}${result.stderr}`).toBe(2);
      expect(result.stderr).toContain('prompt.text: still the placeholder `bestof init` wrote ("Describe the task here');
      expect(result.stderr).toContain('write the task itself there');
    }
    expect(existsSync(join(project.repo.dir, '.bestof', 'runs'))).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);
    // Written: the problem is gone (what else init's spec lacks here is another matter).
    writeFileSync(spec, readFileSync(spec, 'utf8').replace(/Describe the task here[^\n]*\n[^\n]*\n/, 'Fix add() in src/add.mjs so that the tests pass.\n'));
    const after = await runCli(['validate', spec], { cwd: project.repo.dir });
    expect(after.stderr).not.toContain('placeholder');
  });
});
