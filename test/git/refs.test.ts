import { describe, expect, it } from 'vitest';
import { ok } from '../../src/result.js';
import {
  branchesContaining,
  deleteBranch,
  isAncestor,
  deleteRef,
  isReachableFromAnyBranch,
  listBranches,
  listRefs,
  refCommits,
  updateOwnRef,
  updateRef,
} from '../../src/git/history/refs.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe('refs', () => {
  it('creates, lists by string prefix and deletes refs', async () => {
    const r = repo();
    const first = r.git('rev-parse', 'HEAD');
    r.write('a.txt', 'a\n');
    const second = r.commitAll('second');
    await updateRef(r.dir, 'refs/bestof/run-1/a/1', first);
    await updateRef(r.dir, 'refs/bestof/run-1/a/2', second);
    await updateRef(r.dir, 'refs/bestof/run-1/b/1', second);
    await updateRef(r.dir, 'refs/bestof/run-10/a/1', second);

    expect(await listRefs(r.dir, 'refs/bestof/run-1/')).toEqual([
      { ref: 'refs/bestof/run-1/a/1', sha: first },
      { ref: 'refs/bestof/run-1/a/2', sha: second },
      { ref: 'refs/bestof/run-1/b/1', sha: second },
    ]);
    expect((await listRefs(r.dir, 'refs/bestof/run-1')).map((x) => x.ref)).toHaveLength(4);
    expect((await listRefs(r.dir, 'refs/bestof/run-1/a')).map((x) => x.ref)).toEqual(['refs/bestof/run-1/a/1', 'refs/bestof/run-1/a/2']);
    expect(await listRefs(r.dir, 'refs/nothing/')).toEqual([]);

    await updateRef(r.dir, 'refs/bestof/run-1/a/1', second); // move
    expect((await listRefs(r.dir, 'refs/bestof/run-1/a/1'))[0]?.sha).toBe(second);
    await deleteRef(r.dir, 'refs/bestof/run-1/a/1');
    await deleteRef(r.dir, 'refs/bestof/run-1/a/1'); // already gone: fine
    expect((await listRefs(r.dir, 'refs/bestof/run-1/')).map((x) => x.ref)).toEqual(['refs/bestof/run-1/a/2', 'refs/bestof/run-1/b/1']);
  });

  it('lists and deletes branches', async () => {
    const r = repo();
    r.git('branch', 'bestof/run-1/a');
    r.git('branch', 'bestof/run-1/b');
    r.git('branch', 'bestof/run-2/a');
    r.git('branch', 'other');
    expect(await listBranches(r.dir, 'bestof/run-1/')).toEqual(['bestof/run-1/a', 'bestof/run-1/b']);
    expect(await listBranches(r.dir, 'bestof/')).toHaveLength(3);

    expect(await deleteBranch(r.dir, 'bestof/run-1/a')).toEqual(ok());

    // unmerged work needs force
    r.git('checkout', '--quiet', 'bestof/run-1/b');
    r.write('x.txt', 'x\n');
    r.commitAll('work');
    r.git('checkout', '--quiet', 'main');
    const refused = await deleteBranch(r.dir, 'bestof/run-1/b');
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.error).toMatch(/cannot delete branch bestof\/run-1\/b: .*not fully merged/);
    expect(await deleteBranch(r.dir, 'bestof/run-1/b', { force: true })).toEqual(ok());
    expect(await listBranches(r.dir, 'bestof/run-1/')).toEqual([]);
    const missing = await deleteBranch(r.dir, 'nope');
    expect(missing.ok).toBe(false);
  });

  it('tells whether a commit is on some branch', async () => {
    const r = repo();
    const base = r.git('rev-parse', 'HEAD');
    r.git('checkout', '--quiet', '--detach');
    r.write('y.txt', 'y\n');
    const loose = r.commitAll('detached work');
    expect(await isReachableFromAnyBranch(r.dir, base)).toBe(true);
    expect(await isReachableFromAnyBranch(r.dir, loose)).toBe(false);
    await updateRef(r.dir, 'refs/bestof/keep', loose);
    expect(await isReachableFromAnyBranch(r.dir, loose)).toBe(false); // only branches count
    r.git('branch', 'saved', loose);
    expect(await isReachableFromAnyBranch(r.dir, loose)).toBe(true);
    expect(await isReachableFromAnyBranch(r.dir, '0123456789abcdef0123456789abcdef01234567')).toBe(false);
  });

  it('tells whether one commit is an ancestor of another, and which branches contain a commit', async () => {
    const r = repo();
    const base = r.git('rev-parse', 'HEAD');
    r.git('checkout', '--quiet', '-b', 'bestof/run-1/a');
    r.write('z.txt', 'z\n');
    const tip = r.commitAll('work');
    r.git('checkout', '--quiet', 'main');
    expect(await isAncestor(r.dir, base, tip)).toBe(true);
    expect(await isAncestor(r.dir, tip, tip)).toBe(true);
    expect(await isAncestor(r.dir, tip, base)).toBe(false);
    await expect(isAncestor(r.dir, 'nope', base)).rejects.toThrow(/merge-base --is-ancestor nope/);

    // refs/bestof/run-1/a has the same short name as the branch: only branches count.
    await updateRef(r.dir, 'refs/bestof/run-1/a', tip);
    expect(await branchesContaining(r.dir, tip)).toEqual(['bestof/run-1/a']);
    expect((await branchesContaining(r.dir, base)).sort()).toEqual(['bestof/run-1/a', 'main']);
  });
});

describe('updateOwnRef', () => {
  it('removes refs planted in the way of a kept ref (a parent name or a child), says which, and moves the ref', async () => {
    const r = repo();
    const head = r.git('rev-parse', 'HEAD');
    // Someone else's ref named like the kept ref's folder: git cannot keep both.
    r.git('update-ref', 'refs/bestof/run-1/c2', head);
    expect(await updateOwnRef(r.dir, 'refs/bestof/run-1/c2/kept', head)).toEqual(['refs/bestof/run-1/c2']);
    expect(r.git('rev-parse', 'refs/bestof/run-1/c2/kept')).toBe(head);
    // A clean update removes nothing.
    expect(await updateOwnRef(r.dir, 'refs/bestof/run-1/c2/kept', head)).toEqual([]);
  });
});

describe('refCommits', () => {
  const subcommands = (calls: readonly string[]): string[] => calls.map((c) => c.replace(/^(-c \S+ )+/, '').split(' ')[0] ?? '');

  it('several refs that name commits: one git process, the commits in the order asked; a tag is peeled to its commit', async () => {
    const r = repo();
    const first = r.git('rev-parse', 'HEAD');
    r.write('a.txt', 'a\n');
    const second = r.commitAll('second');
    r.git('tag', '-a', '-m', 'annotated', 'v1', first);
    r.git('update-ref', 'refs/bestof/r1/c1/kept', second);
    const { result, calls } = await recordGitCalls(tempDir(), () => refCommits(r.dir, ['refs/bestof/r1/c1/kept', 'refs/tags/v1', 'refs/heads/main']));
    expect(result).toEqual([second, first, second]);
    expect(subcommands(calls)).toEqual(['rev-parse']);
  });

  it('a ref that is missing or names no commit: undefined for it alone, the others as refCommit reads them', async () => {
    const r = repo();
    const head = r.git('rev-parse', 'HEAD');
    const blob = r.git('hash-object', '-w', '--stdin');
    r.git('update-ref', 'refs/bestof/r1/blob', blob);
    const { result, calls } = await recordGitCalls(tempDir(), () => refCommits(r.dir, ['refs/heads/main', 'refs/bestof/r1/missing', 'refs/bestof/r1/blob']));
    expect(result).toEqual([head, undefined, undefined]);
    // The one process for all, then one per ref.
    expect(subcommands(calls)).toEqual(['rev-parse', 'rev-parse', 'rev-parse', 'rev-parse']);
  });

  it('refuses a name that is not a full ref (it could be read as an option)', async () => {
    const r = repo();
    await expect(refCommits(r.dir, ['refs/heads/main', '--output=x'])).rejects.toThrow(/full ref names/);
  });
});
