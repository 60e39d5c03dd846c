import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { err, ok } from '../../src/result.js';
import { currentBranch, dirtyPaths, ensureExcluded, hasUncommittedChanges, openRepo, resolveCommit } from '../../src/git/running/repo.js';
import { gitDirsOf } from '../../src/git/running/exec.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { recordGitCalls } from '../helpers/git-calls.js';

const { repo, tempDir } = tempRepos();

describe('openRepo', () => {
  it('finds the top level and the absolute common dir from a subfolder', async () => {
    const r = repo({ 'src/a.ts': 'a\n' });
    const info = await openRepo(join(r.dir, 'src'));
    expect(info).toEqual(ok({ root: realpathSync(r.dir), commonDir: join(realpathSync(r.dir), '.git'), head: r.git('rev-parse', 'HEAD') }));
  });

  it('says what to do outside a git repository', async () => {
    const dir = tempDir();
    const info = await openRepo(dir);
    expect(info).toEqual(err(`not a git repository: ${dir} (run bestof inside a git repo or set \`repo\` in the spec)`));
    expect(await openRepo(join(dir, 'missing'))).toMatchObject({ ok: false });
  });

  it('refuses a repository without commits', async () => {
    const r = repo();
    r.git('update-ref', '-d', 'HEAD');
    const info = await openRepo(r.dir);
    expect(!info.ok && info.error).toMatch(/no commits/);
  });

  it('asks git once: from the top, a subfolder, a linked worktree, a path through a symlink; without a commit; outside a repository', async () => {
    const r = repo({ 'src/deep/a.ts': 'a\n' });
    const root = realpathSync(r.dir);
    const common = join(root, '.git');
    const wt = join(tempDir(), 'wt');
    r.git('worktree', 'add', '--quiet', '-b', 'x', wt);
    mkdirSync(join(wt, 'sub'));
    const outside = tempDir();
    // A symlink straight to a subfolder: `..` from it is not the repository's root.
    symlinkSync(join(root, 'src', 'deep'), join(outside, 'link'));
    const noCommits = repo();
    noCommits.git('update-ref', '-d', 'HEAD');
    mkdirSync(join(noCommits.dir, 'sub'));
    const noCommitsRoot = realpathSync(noCommits.dir);
    const head = r.git('rev-parse', 'HEAD');

    const cases: [string, Awaited<ReturnType<typeof openRepo>>][] = [
      [r.dir, ok({ root, commonDir: common, head })],
      [join(r.dir, 'src', 'deep'), ok({ root, commonDir: common, head })],
      [join(wt, 'sub'), ok({ root: wt, commonDir: common, head })],
      [join(outside, 'link'), ok({ root, commonDir: common, head })],
      [
        join(noCommits.dir, 'sub'),
        err(`the git repository at ${noCommitsRoot} has no commits yet: commit something first (bestof branches every candidate from a commit)`),
      ],
      [
        join(root, '.git'),
        err(
          `${join(root, '.git')} is a bare repository or a folder inside a git dir, not a working tree: run bestof in a checkout of the repository, or set \`repo\` to one`,
        ),
      ],
      [outside, err(`not a git repository: ${outside} (run bestof inside a git repo or set \`repo\` in the spec)`)],
    ];
    for (const [path, expected] of cases) {
      const { result, calls } = await recordGitCalls(tempDir(), () => openRepo(path));
      expect(result, path).toEqual(expected);
      expect(calls, path).toHaveLength(1);
    }
  });

  it('remembers the git dirs of the top level it found: asking them again starts no git', async () => {
    const r = repo({ 'src/a.ts': 'a\n' });
    const root = realpathSync(r.dir);
    const wt = join(tempDir(), 'wt');
    r.git('worktree', 'add', '--quiet', '-b', 'x', wt);
    for (const [from, top, gitDir] of [
      [join(r.dir, 'src'), root, join(root, '.git')],
      [wt, wt, join(root, '.git', 'worktrees', 'wt')],
    ] as const) {
      const { result, calls } = await recordGitCalls(tempDir(), async () => {
        await openRepo(from);
        return gitDirsOf(top);
      });
      expect(result, from).toEqual({ commonDir: join(root, '.git'), gitDir });
      expect(calls, from).toHaveLength(1);
    }
  });
});

describe('abort', () => {
  it('rejects with an AbortError when the signal is already aborted', async () => {
    const r = repo();
    await expect(resolveCommit(r.dir, 'HEAD', { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('resolveCommit / currentBranch', () => {
  it('resolves revisions and reports undefined for unknown ones', async () => {
    const r = repo();
    const head = r.git('rev-parse', 'HEAD');
    expect(await resolveCommit(r.dir, 'main')).toBe(head);
    expect(await resolveCommit(r.dir, 'HEAD')).toBe(head);
    expect(await resolveCommit(r.dir, 'nope')).toBeUndefined();
    expect(await resolveCommit(r.dir, 'HEAD:README.md')).toBeUndefined(); // a blob, not a commit
  });

  it('names the branch, undefined when detached', async () => {
    const r = repo();
    expect(await currentBranch(r.dir)).toBe('main');
    r.git('checkout', '--quiet', '--detach');
    expect(await currentBranch(r.dir)).toBeUndefined();
  });
});

describe('dirtyPaths', () => {
  it('lists modified and staged tracked files, not untracked ones', async () => {
    const r = repo({ 'a.txt': 'a\n', 'b.txt': 'b\n', 'c.txt': 'c\n' });
    expect(await dirtyPaths(r.dir)).toEqual([]);
    r.write('a.txt', 'changed\n');
    r.write('b.txt', 'staged\n');
    r.git('add', 'b.txt');
    r.git('mv', 'c.txt', 'd.txt');
    r.write('untracked.txt', 'u\n');
    expect((await dirtyPaths(r.dir)).sort()).toEqual(['a.txt', 'b.txt', 'd.txt']);
  });
});

describe('ensureExcluded', () => {
  it('adds the line once, in the common dir (also when called from a worktree)', async () => {
    const r = repo();
    const wt = join(tempDir(), 'wt');
    r.git('worktree', 'add', '--quiet', '-b', 'x', wt);
    expect(await openRepo(wt)).toEqual(ok({ root: wt, commonDir: join(realpathSync(r.dir), '.git'), head: r.git('rev-parse', 'HEAD') }));
    await ensureExcluded(r.dir, '/.bestof/');
    await ensureExcluded(wt, '/.bestof/');
    await ensureExcluded(r.dir, '/.bestof/');
    const text = readFileSync(join(r.dir, '.git', 'info', 'exclude'), 'utf8');
    expect(text.split('\n').filter((l) => l === '/.bestof/')).toHaveLength(1);
    mkdirSync(join(r.dir, '.bestof', 'runs'), { recursive: true });
    r.write('.bestof/runs/x.json', '{}');
    expect(r.git('status', '--porcelain')).toBe('');
  });
});

describe('hasUncommittedChanges', () => {
  it('sees modified, staged and untracked files, not ignored ones; a missing folder has none', async () => {
    const r = repo({ 'a.txt': 'a\n', '.gitignore': '*.log\n' });
    expect(await hasUncommittedChanges(r.dir)).toBe(false);
    r.write('debug.log', 'x\n');
    expect(await hasUncommittedChanges(r.dir)).toBe(false);
    r.write('new.txt', 'n\n');
    expect(await hasUncommittedChanges(r.dir)).toBe(true);
    r.git('add', 'new.txt');
    expect(await hasUncommittedChanges(r.dir)).toBe(true);
    r.commitAll('new');
    r.write('a.txt', 'changed\n');
    expect(await hasUncommittedChanges(r.dir)).toBe(true);
    expect(await hasUncommittedChanges(join(r.dir, 'gone'))).toBe(false);
  });
});
