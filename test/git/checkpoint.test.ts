import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reattachWorktree } from '../../src/git/checkpoint.js';
import { ok } from '../../src/result.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe('reattachWorktree', () => {
  it('reuses the worktree still on its branch, recreates a deleted one, refuses a stranger in its place', async () => {
    const r = repo();
    const dir = tempDir();
    const path = join(dir, 'a');
    r.git('worktree', 'add', '--quiet', '-b', 'bestof/run-1/a', path);
    expect(await reattachWorktree(r.dir, path, 'bestof/run-1/a')).toEqual(ok('reused'));

    rmSync(path, { recursive: true, force: true });
    expect(await reattachWorktree(r.dir, path, 'bestof/run-1/a')).toEqual(ok('recreated'));
    expect(r.git('-C', path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/run-1/a');
    expect(r.git('-C', path, 'status', '--porcelain')).toBe('');

    // A folder that is no worktree, while the branch is checked out in the real one.
    const stranger = join(dir, 'b');
    mkdirSync(stranger);
    const refused = await reattachWorktree(r.dir, stranger, 'bestof/run-1/a');
    expect(!refused.ok && refused.error).toMatch(/b \(its \.git file is missing\): its branch bestof\/run-1\/a is checked out in .*\/a$/);
    expect(existsSync(join(stranger, '.git'))).toBe(false);
  });

  it('repairs a worktree whose .git file is gone instead of refusing it, its files kept', async () => {
    const r = repo();
    const path = join(tempDir(), 'a');
    r.git('worktree', 'add', '--quiet', '-b', 'bestof/run-1/a', path);
    writeFileSync(join(path, 'late.txt'), 'uncommitted\n');
    rmSync(join(path, '.git'));
    expect(await reattachWorktree(r.dir, path, 'bestof/run-1/a')).toEqual(ok('reused'));
    expect(r.git('-C', path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/run-1/a');
    expect(readFileSync(join(path, 'late.txt'), 'utf8')).toBe('uncommitted\n');
  });

  it('puts HEAD back on the branch when that loses no commit, and leaves the worktree alone when it would', async () => {
    const r = repo();
    const path = join(tempDir(), 'a');
    r.git('worktree', 'add', '--quiet', '-b', 'bestof/run-1/a', path);
    r.git('-C', path, 'checkout', '--quiet', '--detach');
    expect(await reattachWorktree(r.dir, path, 'bestof/run-1/a')).toEqual(ok('reused'));
    expect(r.git('-C', path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/run-1/a');

    r.git('-C', path, 'checkout', '--quiet', '-b', 'agent-own');
    writeFileSync(join(path, 'x.txt'), 'x\n');
    r.git('-C', path, 'add', 'x.txt');
    r.git('-C', path, 'commit', '--quiet', '-m', 'the agent commits on its own branch');
    const refused = await reattachWorktree(r.dir, path, 'bestof/run-1/a');
    expect(!refused.ok && refused.error).toMatch(/is on refs\/heads\/agent-own, with commits that are not on bestof\/run-1\/a; the worktree is left as it is/);
    expect(r.git('-C', path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/agent-own');
  });
});
