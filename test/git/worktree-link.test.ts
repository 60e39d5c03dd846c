/**
 * A worktree whose `.git` link an agent destroyed is made a worktree of its branch again, its files
 * untouched; and the git locks a killed bestof left are cleared.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../src/git/history/commit.js';
import { clearStaleCandidateLocks } from '../../src/git/worktrees/stale-locks.js';
import { repairWorktreeLink, repairWorktreeLinkDetailed } from '../../src/git/worktrees/worktree-link.js';
import { ok } from '../../src/result.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();
const BRANCH = 'bestof/r/c1';

/** A candidate's worktree with a committed file, an uncommitted edit and a new file, as an agent leaves it. */
function worktreeWithWork(): { r: TempRepo; path: string; tip: string } {
  const r = repo({ 'README.md': '# hi\n', 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' });
  const path = join(tempDir(), 'c1');
  r.git('worktree', 'add', '--quiet', '-b', BRANCH, path);
  writeFileSync(join(path, 'src/a.txt'), 'a, edited by the agent\n');
  writeFileSync(join(path, 'new.txt'), 'written by the agent\n');
  return { r, path, tip: r.git('rev-parse', BRANCH) };
}

/** The work is intact, git sees it as changes on the branch, and committing it commits exactly that. */
async function expectWorkCommittable(r: TempRepo, path: string, tip: string): Promise<void> {
  expect(readFileSync(join(path, 'src/a.txt'), 'utf8')).toBe('a, edited by the agent\n');
  expect(readFileSync(join(path, 'new.txt'), 'utf8')).toBe('written by the agent\n');
  expect(r.git('-C', path, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
  expect(r.git('-C', path, 'rev-parse', '--show-toplevel')).toBe(path);
  const committed = await commitAll(path, { message: 'saved' });
  expect(committed.commit).toBeDefined();
  expect(r.git('diff', '--name-status', tip, BRANCH).split('\n').sort()).toEqual(['A\tnew.txt', 'M\tsrc/a.txt']);
  expect(r.git('-C', path, 'status', '--porcelain')).toBe('');
}

describe('repairWorktreeLink', () => {
  it('leaves an intact worktree alone', async () => {
    const { r, path, tip } = worktreeWithWork();
    expect(await repairWorktreeLink(r.dir, path, BRANCH)).toEqual(ok('intact'));
    await expectWorkCommittable(r, path, tip);
  });

  it("takes the caller's top level as git's answer: intact without asking git for it, and a top level elsewhere is the problem", async () => {
    const { r, path, tip } = worktreeWithWork();
    const { result, calls } = await recordGitCalls(tempDir(), () => repairWorktreeLinkDetailed(r.dir, path, BRANCH, { topLevel: realpathSync(path) }));
    expect(result).toEqual(ok({ status: 'intact' }));
    expect(calls.filter((c) => c.includes('--show-toplevel'))).toEqual([]);
    // The first look takes it; the look again under the lock asks git itself, which sees the link whole.
    const elsewhere = await recordGitCalls(tempDir(), () => repairWorktreeLinkDetailed(r.dir, path, BRANCH, { topLevel: r.dir }));
    expect(elsewhere.result).toEqual(ok({ status: 'intact' }));
    expect(elsewhere.calls.filter((c) => c.endsWith('rev-parse --show-toplevel'))).toHaveLength(1);
    await expectWorkCommittable(r, path, tip);
  });

  it('repairs a worktree whose .git file was deleted', async () => {
    const { r, path, tip } = worktreeWithWork();
    rmSync(join(path, '.git'));
    expect(() => r.git('-C', path, 'rev-parse', '--show-toplevel')).toThrow(/not a git repository/);
    const repaired = await repairWorktreeLinkDetailed(r.dir, path, BRANCH);
    expect(repaired).toEqual(ok({ status: 'repaired', problem: 'its .git file is missing' }));
    await expectWorkCommittable(r, path, tip);
  });

  it('moves aside the repository an agent made with `git init` inside the worktree, and says where', async () => {
    const { r, path, tip } = worktreeWithWork();
    rmSync(join(path, '.git'));
    r.git('-C', path, 'init', '--quiet');
    r.git('-C', path, 'config', 'user.email', 'agent@example.com');
    r.git('-C', path, 'config', 'user.name', 'Agent');
    r.git('-C', path, 'add', '-A');
    r.git('-C', path, 'commit', '--quiet', '-m', 'the agent own history');
    const repaired = await repairWorktreeLinkDetailed(r.dir, path, BRANCH);
    expect(repaired.ok).toBe(true);
    const value = repaired.ok ? repaired.value : undefined;
    expect(value?.status).toBe('repaired');
    expect(value?.problem).toMatch(/git init/);
    expect(value?.movedAside).toBe(`${path}.agent-dot-git`);
    // The agent's repository is kept, outside the worktree, whole.
    expect(r.git('--git-dir', `${path}.agent-dot-git`, 'log', '--format=%s')).toBe('the agent own history');
    await expectWorkCommittable(r, path, tip);
  });

  it("repairs a worktree whose admin entry was deleted, and one whose .git points at another worktree's entry", async () => {
    const { r, path, tip } = worktreeWithWork();
    rmSync(join(r.dir, '.git', 'worktrees', 'c1'), { recursive: true });
    expect(await repairWorktreeLink(r.dir, path, BRANCH)).toEqual(ok('repaired'));
    await expectWorkCommittable(r, path, tip);

    const other = join(tempDir(), 'c2');
    r.git('worktree', 'add', '--quiet', '-b', 'bestof/r/c2', other);
    writeFileSync(join(path, 'more.txt'), 'more\n');
    writeFileSync(join(path, '.git'), `gitdir: ${join(r.dir, '.git', 'worktrees', 'c2')}\n`);
    const repaired = await repairWorktreeLinkDetailed(r.dir, path, BRANCH);
    expect(repaired.ok && repaired.value.problem).toMatch(/points at the admin entry of another worktree/);
    expect(r.git('-C', path, 'status', '--porcelain')).toBe('?? more.txt');
    // The other worktree is as it was.
    expect(r.git('-C', other, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/r/c2');
    expect(r.git('-C', other, 'status', '--porcelain')).toBe('');
    expect(r.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(3);
  });

  it('refuses a folder that is gone, and a branch that another worktree has checked out', async () => {
    const { r, path } = worktreeWithWork();
    const gone = await repairWorktreeLink(r.dir, join(tempDir(), 'nothing-here'), BRANCH);
    expect(!gone.ok && gone.error).toMatch(/nothing-here: the folder does not exist/);

    const stranger = join(tempDir(), 'stranger');
    mkdirSync(stranger);
    writeFileSync(join(stranger, 'file.txt'), 'x\n');
    const refused = await repairWorktreeLink(r.dir, stranger, BRANCH);
    expect(!refused.ok && refused.error).toMatch(new RegExp(`its branch ${BRANCH} is checked out in ${path}`));
    expect(existsSync(join(stranger, '.git'))).toBe(false);
    expect(readdirSync(stranger)).toEqual(['file.txt']);
  });
});

describe('clearStaleCandidateLocks', () => {
  it("removes the candidate's index.lock, HEAD.lock, branch and kept-ref locks, and nothing of the repository's", async () => {
    const { r, path } = worktreeWithWork();
    const admin = join(r.dir, '.git', 'worktrees', 'c1');
    const locks = [
      join(admin, 'index.lock'),
      join(admin, 'HEAD.lock'),
      join(r.dir, '.git', 'refs', 'heads', 'bestof', 'r', 'c1.lock'),
      join(r.dir, '.git', 'refs', 'bestof', 'r', 'c1', 'kept.lock'),
    ];
    for (const lock of locks) {
      mkdirSync(join(lock, '..'), { recursive: true });
      writeFileSync(lock, '');
    }
    const shared = [join(r.dir, '.git', 'index.lock'), join(r.dir, '.git', 'packed-refs.lock')];
    for (const lock of shared) writeFileSync(lock, '');
    // What a stale lock does: git add fails.
    expect(() => r.git('-C', path, 'add', '-A')).toThrow(/index\.lock/);

    const removed = await clearStaleCandidateLocks(r.dir, { worktree: path, branch: BRANCH, keptRef: 'refs/bestof/r/c1/kept' });
    expect(removed.sort()).toEqual([...locks].sort());
    for (const lock of locks) expect(existsSync(lock)).toBe(false);
    for (const lock of shared) expect(existsSync(lock)).toBe(true);
    r.git('-C', path, 'add', '-A');
    for (const lock of shared) rmSync(lock);
  });
});
