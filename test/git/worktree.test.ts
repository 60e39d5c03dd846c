import { existsSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../../src/result.js';
import { addWorktree, listWorktrees, pruneWorktrees, removeWorktree } from '../../src/git/worktree.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';

const { repo: tempRepo, tempDir } = tempRepos();
const repo = (): TempRepo => tempRepo({ 'README.md': '# hi\n' });

describe('worktrees', () => {
  it('adds (creating parent folders), lists and removes a worktree', async () => {
    const r = repo();
    const base = r.git('rev-parse', 'HEAD');
    const path = join(tempDir(), 'run-1', 'deep', 'cand-a');
    expect(await addWorktree(r.dir, { path, branch: 'bestof/run-1/a', base: 'main' })).toEqual(ok());
    expect(readFileSync(join(path, 'README.md'), 'utf8')).toBe('# hi\n');

    const list = await listWorktrees(r.dir);
    expect(list).toHaveLength(2);
    expect(list[0]).toEqual({ path: realpathSync(r.dir), branch: 'main', head: base });
    expect(list[1]).toEqual({ path, branch: 'bestof/run-1/a', head: base });

    expect(await removeWorktree(r.dir, path)).toEqual(ok());
    expect(existsSync(path)).toBe(false);
    expect(await listWorktrees(r.dir)).toHaveLength(1);
    // the branch stays
    expect(r.git('rev-parse', 'bestof/run-1/a')).toBe(base);
  });

  it('lists a detached worktree without a branch', async () => {
    const r = repo();
    const path = join(tempDir(), 'det');
    r.git('worktree', 'add', '--quiet', '--detach', path);
    const entry = (await listWorktrees(r.dir)).find((w) => w.path === path);
    expect(entry).toEqual({ path, head: r.git('rev-parse', 'HEAD') });
  });

  it('explains an existing branch, a bad base and a non-empty folder', async () => {
    const r = repo();
    r.git('branch', 'taken');
    const dir = tempDir();
    const taken = await addWorktree(r.dir, { path: join(dir, 'a'), branch: 'taken', base: 'main' });
    expect(taken.ok).toBe(false);
    expect(!taken.ok && taken.error).toMatch(/branch taken already exists.*git branch -D taken/);

    const badBase = await addWorktree(r.dir, { path: join(dir, 'b'), branch: 'b', base: 'nope' });
    expect(!badBase.ok && badBase.error).toMatch(/base nope is not a commit/);

    writeFileSync(join(dir, 'file'), 'x');
    const busy = await addWorktree(r.dir, { path: dir, branch: 'c', base: 'main' });
    expect(!busy.ok && busy.error).toMatch(/not empty/);
    expect(r.git('branch', '--list', 'b', 'c')).toBe('');
  });

  it('refuses to remove a dirty worktree unless forced', async () => {
    const r = repo();
    const path = join(tempDir(), 'w');
    expect((await addWorktree(r.dir, { path, branch: 'w', base: 'HEAD' })).ok).toBe(true);
    writeFileSync(join(path, 'README.md'), 'changed\n');
    const refused = await removeWorktree(r.dir, path);
    expect(!refused.ok && refused.error).toMatch(/cannot remove worktree/);
    expect(existsSync(path)).toBe(true);
    expect(await removeWorktree(r.dir, path, { force: true })).toEqual(ok());
    expect(existsSync(path)).toBe(false);
  });

  it('treats a worktree whose folder is gone as removed, and prunes', async () => {
    const r = repo();
    const path = join(tempDir(), 'gone');
    expect((await addWorktree(r.dir, { path, branch: 'gone', base: 'HEAD' })).ok).toBe(true);
    rmSync(path, { recursive: true, force: true });
    expect(await removeWorktree(r.dir, path)).toEqual(ok());
    expect(await listWorktrees(r.dir)).toHaveLength(1);
    await pruneWorktrees(r.dir);
  });
});
