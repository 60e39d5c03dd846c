import { mkdirSync, rmSync } from 'node:fs';
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

    const stranger = join(dir, 'b');
    mkdirSync(stranger);
    const refused = await reattachWorktree(r.dir, stranger, 'bestof/run-1/a');
    expect(!refused.ok && refused.error).toMatch(/b exists but is not the worktree of bestof\/run-1\/a/);
  });
});
