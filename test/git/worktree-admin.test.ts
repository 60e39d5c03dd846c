/** The git dirs of a repository and of bestof's new worktrees, asked of git at most once per folder by bestof's git calls together. */
import { mkdirSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitDirsOf, runGit } from '../../src/git/running/exec.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { commonGitDir } from '../../src/git/worktrees/worktree-admin.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe('commonGitDir', () => {
  it('starts no git process in a folder where a git call already asked where the git dirs are', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    // Any call that looks up the drivers (status) asks for the git dirs of its folder.
    expect((await runGit(r.dir, ['status', '--porcelain'])).code).toBe(0);
    const { result, calls } = await recordGitCalls(tempDir(), () => commonGitDir(r.dir));
    expect(result).toBe(join(realpathSync(r.dir), '.git'));
    expect(calls).toEqual([]);
  });

  it('asks git once in a folder it has not seen, and then never again', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const sub = join(r.dir, 'sub');
    mkdirSync(sub);
    const first = await recordGitCalls(tempDir(), () => commonGitDir(sub));
    expect(first.result).toBe(join(realpathSync(r.dir), '.git'));
    expect(first.calls).toHaveLength(1);
    const again = await recordGitCalls(tempDir(), () => commonGitDir(sub));
    expect(again.result).toBe(first.result);
    expect(again.calls).toEqual([]);
  });
});

describe('a worktree bestof makes', () => {
  it('has its git dirs known from its creation: what git says there, and no git process to ask it', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const path = join(tempDir(), 'c1');
    expect((await addWorktree(r.dir, { path, branch: 'bestof/r/c1', base: 'HEAD' })).ok).toBe(true);
    const { result, calls } = await recordGitCalls(tempDir(), () => gitDirsOf(path));
    expect(calls).toEqual([]);
    const asked = await runGit(path, ['rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir']);
    const [commonDir, gitDir] = asked.stdout.trim().split('\n');
    expect(result).toEqual({ commonDir, gitDir });
    expect(gitDir).toBe(join(realpathSync(r.dir), '.git', 'worktrees', 'c1'));
  });
});
