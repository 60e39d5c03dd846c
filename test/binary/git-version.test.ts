/**
 * The git bestof runs on: none on PATH, or one older than 2.31 (Debian 11 ships 2.30, Ubuntu 20.04
 * 2.25). Before, no git was an internal error with a stack trace (exit 70), and an old one made
 * every repo "not a git repository". Now both are bad input (exit 2) that says which git is needed
 * and how to install it, and nothing is created. Through the real binary, with a stand-in `git`
 * first on PATH that answers as git 2.30 does. And a repository git refuses to open (another
 * user's) is said as git says it, with the way to trust it.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** A folder holding a `git` that says it is 2.30.2 and refuses `--path-format` as that git does; anything else goes to the real one. */
function oldGitFolder(): string {
  const folder = join(project.writeOutside('old-git/.keep', ''), '..');
  writeFileSync(
    join(folder, 'git'),
    `#!/bin/sh\nfor a in "$@"; do\n  [ "$a" = "--version" ] && { echo "git version 2.30.2"; exit 0; }\n  [ "$a" = "--path-format=absolute" ] && { echo "error: unknown option \\\`path-format=absolute'" >&2; exit 129; }\ndone\nexec ${JSON.stringify(REAL_GIT)} "$@"\n`,
  );
  chmodSync(join(folder, 'git'), 0o755);
  return folder;
}

function spec(): string {
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  return project.writeOutside(
    'spec.toml',
    specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[sandbox]\nmode = "off"\n`),
  );
}

describe('a repository git refuses', () => {
  // Only root can give the repository to another user (the tests run as root in CI).
  it.runIf(process.getuid?.() === 0)(
    "one of another user's (git's dubious ownership): validate says so and how to trust it, not 'not a git repository'",
    async () => {
      project = makeProject();
      const specPath = spec();
      chownSync(project.repo.dir, 65534, 65534);
      try {
        const result = await runCli(['validate', specPath], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
        expect(result.stderr).toContain(
          `repo: git refuses to work in ${project.repo.dir}: the repository belongs to another user (git's "dubious ownership" check); if you trust it, run \`git config --global --add safe.directory '${project.repo.dir}'\``,
        );
        expect(result.stderr).not.toContain('not a git repository');
        expect(result.code).toBe(2);
      } finally {
        chownSync(project.repo.dir, 0, 0);
      }
    },
  );
});

describe('the git on PATH', () => {
  it('none: validate, run and ls exit 2 saying git is not installed and how to install it, and create nothing', async () => {
    project = makeProject();
    const specPath = spec();
    const empty = join(project.writeOutside('empty/.keep', ''), '..');
    mkdirSync(empty, { recursive: true });
    for (const command of [['validate', specPath], ['run', specPath], ['ls']]) {
      const result = await runCli(command, { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { PATH: empty } });
      expect(result.stderr, command[0]).toContain('git is not installed or not on PATH: bestof needs git 2.31 or newer (Debian/Ubuntu: `sudo apt install git`');
      expect(result.stderr, command[0]).not.toContain('internal error');
      expect(result.code, command[0]).toBe(2);
    }
    expect(existsSync(join(project.repo.dir, '.bestof'))).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);
  });

  it('older than 2.31: validate, run and ls exit 2 naming the version found and the one needed, not "not a git repository"', async () => {
    project = makeProject();
    const specPath = spec();
    const PATH = `${oldGitFolder()}:${process.env.PATH ?? ''}`;
    for (const command of [['validate', specPath], ['run', specPath], ['ls']]) {
      const result = await runCli(command, { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { PATH } });
      expect(result.stderr, command[0]).toContain('this git is 2.30.2 (`git --version`): bestof needs git 2.31 or newer');
      expect(result.stderr, command[0]).not.toContain('not a git repository');
      expect(result.code, command[0]).toBe(2);
    }
    expect(existsSync(join(project.repo.dir, '.bestof'))).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);
  });
});
