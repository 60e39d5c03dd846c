/**
 * Submodules in the candidates' worktrees: initialized during setup (a local one only from a
 * folder outside the repo), a warning when one cannot be, and an agent's edits inside one never
 * silently dropped: left out of the commit with a warning, kept on disk. Real repos throughout.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareWorkspace, type WorkspaceOptions } from '../../src/engine/workspace/workspace.js';
import { commitAll } from '../../src/git/history/commit.js';
import { hasUncommittedChanges } from '../../src/git/running/repo.js';
import { saveWorktreeWork } from '../../src/git/history/save-work.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';
import { workspaceFixture } from '../helpers/workspace-options.js';

const { repo, tempDir } = tempRepos();

/** An app repo with a submodule `lib` made from another repo (`url` as `git submodule add` is given it). */
function withSubmodule(where: 'outside' | 'inside'): {
  app: TempRepo;
  lib: TempRepo;
  options(overrides?: Partial<WorkspaceOptions>): WorkspaceOptions;
  worktree: string;
} {
  const lib = repo({ 'lib.txt': 'library v1\n' });
  const app = repo({ 'README.md': '# app\n' });
  let url = lib.dir;
  if (where === 'inside') {
    // The shape of CVE-2022-39253: the submodule's source is a repo inside the superproject's own folder.
    execFileSync('git', ['clone', '--quiet', '--bare', lib.dir, join(app.dir, 'vendor', 'lib.git')]);
    url = './vendor/lib.git';
  }
  app.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', url, 'lib');
  app.commitAll('add the lib submodule');
  const { options, worktree } = workspaceFixture(app.dir, app.git('rev-parse', 'HEAD'), tempDir());
  return { app, lib, options, worktree };
}

/**
 * What an agent can do in the sandbox: the submodule's git dir lies under the worktree's own (setup
 * absorbs it there), which the sandbox leaves writable, so it defines a clean filter there that
 * would touch `marker`, selects it for every file, and edits lib.txt to the same size (git can then
 * tell the edit from the committed file only by its content, which it reads through the filter).
 */
function plantFilterInSubmodule(s: { app: TempRepo; worktree: string }): { lib: string; marker: string } {
  const lib = join(s.worktree, 'lib');
  const gitDir = execFileSync('git', ['rev-parse', '--absolute-git-dir'], { cwd: lib, encoding: 'utf8' }).trim();
  expect(gitDir.startsWith(s.app.git('-C', s.worktree, 'rev-parse', '--absolute-git-dir'))).toBe(true);
  const marker = join(tempDir(), 'filter-ran');
  execFileSync('git', ['config', '--file', join(gitDir, 'config'), 'filter.evil.clean', `sh -c 'touch ${marker}; cat'`]);
  mkdirSync(join(gitDir, 'info'), { recursive: true });
  writeFileSync(join(gitDir, 'info', 'attributes'), '* filter=evil\n');
  writeFileSync(join(lib, 'lib.txt'), 'library v9\n');
  utimesSync(join(lib, 'lib.txt'), new Date(Date.now() + 5000), new Date(Date.now() + 5000));
  return { lib, marker };
}

describe('submodules in the worktrees', () => {
  it('are initialized during setup, and the progress says so', async () => {
    const s = withSubmodule('outside');
    const steps: string[] = [];
    const made = await prepareWorkspace(s.options({ onProgress: (p) => steps.push(p.text) }));
    expect(made.ok && made.value.warnings).toEqual([]);
    expect(readFileSync(join(s.worktree, 'lib', 'lib.txt'), 'utf8')).toBe('library v1\n');
    expect(steps).toEqual(['submodule 1/1 lib: initializing']);
    // Nothing of the submodule is a setup path (it is tracked content), and the worktree is clean.
    expect(made.ok && made.value.setupPaths).toEqual([]);
    expect(s.app.git('-C', s.worktree, 'status', '--porcelain')).toBe('');
  });

  it('a submodule whose source is inside the repo is not cloned: a warning says which and why', async () => {
    const s = withSubmodule('inside');
    const made = await prepareWorkspace(s.options());
    expect(made.ok && made.value.warnings).toEqual([
      expect.stringMatching(
        /^submodule lib is not initialized in the worktrees: its URL ".*vendor\/lib\.git" is a folder inside this repo, which bestof does not clone .*CVE-2022-39253/,
      ),
    ]);
    expect(existsSync(join(s.worktree, 'lib', 'lib.txt'))).toBe(false);
  });

  it('a submodule that cannot be cloned is a warning, not a failed setup', async () => {
    const s = withSubmodule('outside');
    execFileSync('rm', ['-rf', s.lib.dir]);
    const made = await prepareWorkspace(s.options());
    expect(made.ok && made.value.warnings).toEqual([
      expect.stringMatching(/^submodule lib is not initialized in the worktrees: git clone failed: .*; the candidates work without it \(check its URL/),
    ]);
  });

  it("an agent's edits inside a submodule are left out of the commit, with a warning, and stay on disk", async () => {
    const s = withSubmodule('outside');
    const made = await prepareWorkspace(s.options());
    expect(made.ok).toBe(true);
    const gitlink = s.app.git('-C', s.worktree, 'rev-parse', 'HEAD:lib');
    // The agent edits a file of the app, a file inside the submodule, and commits inside it.
    writeFileSync(join(s.worktree, 'README.md'), '# app, edited\n');
    writeFileSync(join(s.worktree, 'lib', 'lib.txt'), 'library v2\n');
    execFileSync('git', ['-c', 'user.name=A', '-c', 'user.email=a@example.com', 'commit', '--quiet', '-am', 'inside'], { cwd: join(s.worktree, 'lib') });
    writeFileSync(join(s.worktree, 'lib', 'new.txt'), 'new\n');
    const committed = await commitAll(s.worktree, { message: 'iteration 1' });
    expect(committed.skipped).toEqual([
      {
        path: 'lib',
        reason: 'submodule',
        detail: expect.stringMatching(/^edits inside submodule lib are not committed: bestof does not commit inside submodules/),
      },
    ]);
    expect(s.app.git('-C', s.worktree, 'show', '--name-only', '--format=', 'HEAD')).toBe('README.md');
    expect(s.app.git('-C', s.worktree, 'rev-parse', 'HEAD:lib')).toBe(gitlink);
    expect(readFileSync(join(s.worktree, 'lib', 'lib.txt'), 'utf8')).toBe('library v2\n');
    expect(readFileSync(join(s.worktree, 'lib', 'new.txt'), 'utf8')).toBe('new\n');
  });

  it("a clean filter an agent plants in a submodule's own config never runs in bestof's calls, and the edit it hides behind is still found", async () => {
    const s = withSubmodule('outside');
    const made = await prepareWorkspace(s.options());
    expect(made.ok).toBe(true);
    const { lib, marker } = plantFilterInSubmodule(s);
    const committed = await commitAll(s.worktree, { message: 'iteration 1' });
    expect(existsSync(marker)).toBe(false);
    expect(committed.skipped.map((f) => [f.path, f.reason])).toEqual([['lib', 'submodule']]);
    expect(readFileSync(join(lib, 'lib.txt'), 'utf8')).toBe('library v9\n');
  });

  it('a submodule whose .git names no folder counts as holding work: it is never taken for untouched', async () => {
    const s = withSubmodule('outside');
    const made = await prepareWorkspace(s.options());
    expect(made.ok).toBe(true);
    writeFileSync(join(s.worktree, 'lib', '.git'), 'gitdir: /nonexistent/bestof-gone\n');
    writeFileSync(join(s.worktree, 'README.md'), '# app, edited\n');
    const committed = await commitAll(s.worktree, { message: 'iteration 1' });
    expect(committed.skipped.map((f) => [f.path, f.reason])).toEqual([['lib', 'submodule']]);
  });

  it("bestof clean's look at a leftover worktree does not run a filter an agent planted in a submodule either", async () => {
    const s = withSubmodule('outside');
    const made = await prepareWorkspace(s.options());
    expect(made.ok).toBe(true);
    const { marker } = plantFilterInSubmodule(s);
    writeFileSync(join(s.worktree, 'README.md'), '# app, edited\n');
    expect(await hasUncommittedChanges(s.worktree)).toBe(true);
    const saved = await saveWorktreeWork(s.worktree, { message: 'saved by clean', excludePaths: [] });
    expect(saved.ok && saved.value.commit).toBeTruthy();
    expect(existsSync(marker)).toBe(false);
  });
});
