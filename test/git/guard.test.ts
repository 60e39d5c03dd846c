/**
 * The git dir watched around an agent call, and HEAD taken back before bestof commits: adversarial
 * agents played by the test, real git in temp repos. The user's checkout, `main`, config and hooks
 * must be byte-for-byte as before.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { branchTips, commitAll, reclaimHead } from '../../src/git/history/commit.js';
import { activeGitDirWatches, watchGitDir, WorktreeReplacedError } from '../../src/git/guards/guard.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

const put = (root: string, path: string, content: string, mode = 0o644): void => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content, { mode });
  chmodSync(join(root, path), mode);
};
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const agentGit = (cwd: string, ...args: string[]): string => git(cwd, '-c', 'user.name=agent', '-c', 'user.email=agent@x', ...args);

async function world(): Promise<{ r: TempRepo; wt: string; base: string; mark: string }> {
  const r = repo({ 'src/a.txt': 'a\n', 'README.md': '# r\n' });
  const base = r.git('rev-parse', 'HEAD');
  const wt = join(tempDir(), 'run', 'c1');
  expect((await addWorktree(r.dir, { path: wt, branch: 'bestof/t/c1', base })).ok).toBe(true);
  return { r, wt, base, mark: tempDir() };
}

/** Bytes of everything in the git dir an agent must not change, and of the user's checkout. */
function userState(r: TempRepo): string {
  return (
    git(r.dir, 'ls-files', '-s') +
    readFileSync(join(r.dir, '.git/config'), 'utf8') +
    git(r.dir, 'for-each-ref')
      .split('\n')
      .filter((l) => !l.includes('refs/heads/bestof/'))
      .join('\n') +
    readFileSync(join(r.dir, 'src/a.txt'), 'utf8') +
    git(r.dir, 'status', '--porcelain')
  );
}

describe('watchGitDir', () => {
  it('puts back a changed .git/config, removes an added hook and replace ref, restores config.worktree, and says what changed', async () => {
    const { r, wt, base, mark } = await world();
    const before = userState(r);
    const configBytes = readFileSync(join(r.dir, '.git/config'));
    const watch = await watchGitDir(wt);
    // The agent: a hook that would run in the user's next commit, a filter, a replace ref, attributes.
    put(r.dir, '.git/hooks/post-commit', `#!/bin/sh\ntouch '${mark}/ran'\n`, 0o755);
    agentGit(wt, 'config', 'core.fsmonitor', `${mark}/fsmonitor`);
    put(r.dir, '.git/info/attributes', '* filter=evil\n');
    const tree = git(wt, 'write-tree');
    agentGit(wt, 'replace', base, agentGit(wt, 'commit-tree', tree, '-m', 'look-alike'));
    agentGit(wt, 'config', 'extensions.worktreeConfig', 'true');
    agentGit(wt, 'config', '--worktree', 'core.sparseCheckout', 'true');

    const { changes } = await watch.restore();

    expect(changes.map((c) => c.path.replace(/[0-9a-f]{40}$/, '<sha>')).sort()).toEqual(
      ['.git/config', '.git/hooks/post-commit', '.git/info/attributes', '.git/refs/replace/<sha>', '.git/worktrees/c1/config.worktree'].sort(),
    );
    expect(readFileSync(join(r.dir, '.git/config')).equals(configBytes)).toBe(true);
    expect(existsSync(join(r.dir, '.git/hooks/post-commit'))).toBe(false);
    expect(existsSync(join(r.dir, '.git/info/attributes'))).toBe(false);
    expect(git(r.dir, 'for-each-ref', 'refs/replace/')).toBe('');
    expect(userState(r)).toBe(before);
    // The user's next commit runs no hook of the agent's.
    r.write('src/a.txt', 'user\n');
    r.commitAll('user commit');
    expect(existsSync(join(mark, 'ran'))).toBe(false);
    expect(activeGitDirWatches()).toBe(0);
  });

  // Repeated: the order the two restores take their places in was once decided by which of their
  // own first looks (an lstat of the worktree folder) came back first; 60 rounds met that every time.
  it('two calls that end together: the change is charged once, to the call restored first, and put back once', { repeats: 60 }, async () => {
    const { r, wt, base } = await world();
    const wt2 = join(tempDir(), 'run', 'c2');
    expect((await addWorktree(r.dir, { path: wt2, branch: 'bestof/t/c2', base })).ok).toBe(true);
    const configBytes = readFileSync(join(r.dir, '.git/config'));
    const watchOne = await watchGitDir(wt);
    const watchTwo = await watchGitDir(wt2);
    agentGit(wt2, 'config', 'core.fsmonitor', '/evil');
    // Both restores start before either has read a file: without the queue both saw the change.
    const [one, two] = await Promise.all([watchOne.restore(), watchTwo.restore()]);
    expect(one.changes.map((c) => c.path)).toEqual(['.git/config']);
    expect(two.changes).toEqual([]);
    expect(one.overlapped && two.overlapped).toBe(true);
    expect(readFileSync(join(r.dir, '.git/config')).equals(configBytes)).toBe(true);
    expect(activeGitDirWatches()).toBe(0);
  });

  it('watches every file of a hooks folder that holds more than it reads at once (100 hooks): a change in any of them is put back', async () => {
    const { r, wt } = await world();
    // The user's own hooks: more than the snapshot reads at once (32), so it reads them in chunks.
    for (let i = 0; i < 100; i++) put(r.dir, `.git/hooks/user-${String(i).padStart(3, '0')}`, `#!/bin/sh\n# hook ${i}\n`, 0o755);
    const hooksBefore = git(r.dir, 'hash-object', ...Array.from({ length: 100 }, (_, i) => join(r.dir, `.git/hooks/user-${String(i).padStart(3, '0')}`)));
    const watch = await watchGitDir(wt);
    // The agent rewrites every one of them but two (one loses its x bit, one is deleted), and adds one.
    for (let i = 0; i < 98; i++) put(r.dir, `.git/hooks/user-${String(i).padStart(3, '0')}`, `#!/bin/sh\ntouch /tmp/evil-${i}\n`, 0o755);
    chmodSync(join(r.dir, '.git/hooks/user-098'), 0o644);
    rmSync(join(r.dir, '.git/hooks/user-099'));
    put(r.dir, '.git/hooks/user-100', '#!/bin/sh\ntouch /tmp/evil-new\n', 0o755);

    const { changes } = await watch.restore();

    expect(changes.map((c) => `${c.path}:${c.change}`).sort()).toEqual(
      [
        ...Array.from({ length: 99 }, (_, i) => `.git/hooks/user-${String(i).padStart(3, '0')}:modified`),
        '.git/hooks/user-099:deleted',
        '.git/hooks/user-100:added',
      ].sort(),
    );
    expect(git(r.dir, 'hash-object', ...Array.from({ length: 100 }, (_, i) => join(r.dir, `.git/hooks/user-${String(i).padStart(3, '0')}`)))).toBe(hooksBefore);
    expect(statSync(join(r.dir, '.git/hooks/user-098')).mode & 0o777).toBe(0o755);
    expect(existsSync(join(r.dir, '.git/hooks/user-100'))).toBe(false);
  });

  it('a worktree folder replaced during the call (renamed, a link in its place): restore writes nothing through it and says so', async () => {
    const { r, wt } = await world();
    const elsewhere = tempDir();
    writeFileSync(join(elsewhere, 'keep.txt'), 'theirs\n');
    const watch = await watchGitDir(wt);
    renameSync(wt, `${wt}-aside`);
    symlinkSync(elsewhere, wt);
    await expect(watch.restore()).rejects.toThrow(WorktreeReplacedError);
    expect(readdirSync(elsewhere)).toEqual(['keep.txt']); // no `.git` link written there
    expect(activeGitDirWatches()).toBe(0); // the shared watch was let go
    const next = await watchGitDir(r.dir);
    expect((await next.restore()).changes).toEqual([]);
  });

  it('reports nothing when nothing changed', async () => {
    const { wt } = await world();
    const watch = await watchGitDir(wt);
    put(wt, 'src/a.txt', 'work\n');
    expect((await watch.restore()).changes).toEqual([]);
  });

  it("a git read that fails while the files are still being read is the call's error, not an unhandled rejection; the next watch starts afresh", async () => {
    // Seen when a signal to bestof's process group killed the watch's `git for-each-ref` (in the
    // instant between its fork and its own process group): bestof ended with exit 1 and a stack
    // trace instead of cancelling. Here git fails at once on a broken config while the snapshot
    // still reads 2,000 hooks (a failure before the reads is not the case).
    const { r, wt } = await world();
    await (await watchGitDir(wt)).restore(); // the git dirs are asked once per folder: before the config breaks
    for (let i = 0; i < 2000; i++) put(r.dir, `.git/hooks/user-${i}`, `#!/bin/sh\n# hook ${i}\n`, 0o755);
    const config = readFileSync(join(r.dir, '.git/config'));
    writeFileSync(join(r.dir, '.git/config'), '[core\n');
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown): void => void unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      await expect(watchGitDir(wt, { branches: true })).rejects.toThrow(/bad config/);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
    expect(unhandled).toEqual([]);
    expect(activeGitDirWatches()).toBe(0);

    writeFileSync(join(r.dir, '.git/config'), config);
    const watch = await watchGitDir(wt, { branches: true });
    expect([...(watch.branchesBefore?.keys() ?? [])]).toContain('refs/heads/bestof/t/c1');
    put(r.dir, '.git/hooks/user-7', '#!/bin/sh\ntouch /tmp/evil\n', 0o755);
    expect((await watch.restore()).changes).toEqual([{ path: '.git/hooks/user-7', change: 'modified' }]);
    expect(activeGitDirWatches()).toBe(0);
  });
});

describe('reclaimHead', () => {
  it('an agent that checked out main and committed there: HEAD goes back to the candidate branch, main is put back, the commit lands on the branch', async () => {
    const { r, wt, base } = await world();
    r.git('switch', '--quiet', '-c', 'feature'); // the user works on another branch, so main is free
    const before = userState(r);
    const branchesBefore = await branchTips(wt);
    agentGit(wt, 'checkout', '--quiet', 'main');
    put(wt, 'src/a.txt', 'agent\n');
    agentGit(wt, 'commit', '--quiet', '-am', 'agent on main');
    const agentCommit = git(wt, 'rev-parse', 'HEAD');
    put(wt, 'src/c.txt', 'after\n');

    const head = await reclaimHead(wt, { branch: 'bestof/t/c1', kept: base, branchesBefore });
    const committed = await commitAll(wt, { message: 'bestof: c1 iteration 1' });

    expect(head).toMatchObject({ headWas: 'refs/heads/main', branchRestored: 'refs/heads/main', head: agentCommit });
    expect(git(wt, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/t/c1');
    // The agent's commit builds on the kept one: it stays the candidate's work, bestof's commit on top.
    expect(git(wt, 'rev-parse', 'bestof/t/c1')).toBe(committed.commit);
    expect(git(wt, 'rev-parse', 'bestof/t/c1^')).toBe(agentCommit);
    expect(git(wt, 'show', 'bestof/t/c1:src/c.txt')).toBe('after');
    expect(git(wt, 'show', 'bestof/t/c1:src/a.txt')).toBe('agent');
    expect(r.git('rev-parse', 'main')).toBe(base);
    expect(userState(r)).toBe(before);
  });

  it('a detached HEAD is re-pointed without touching the files', async () => {
    const { wt, base } = await world();
    agentGit(wt, 'checkout', '--quiet', '--detach');
    put(wt, 'src/a.txt', 'agent\n');
    const head = await reclaimHead(wt, { branch: 'bestof/t/c1', kept: base });
    expect(head).toMatchObject({ headWas: `detached at ${base}`, head: base });
    expect(readFileSync(join(wt, 'src/a.txt'), 'utf8')).toBe('agent\n');
    const committed = await commitAll(wt, { message: 'm' });
    expect(git(wt, 'rev-parse', 'bestof/t/c1')).toBe(committed.commit);
  });

  it("after `git reset --hard HEAD~1` the agent's files are committed on top of the kept commit", async () => {
    const { wt } = await world();
    put(wt, 'src/a.txt', 'kept\n');
    const kept = (await commitAll(wt, { message: 'kept' })).commit ?? '';
    agentGit(wt, 'reset', '--quiet', '--hard', 'HEAD~1');
    put(wt, 'src/b.txt', 'new\n');

    const head = await reclaimHead(wt, { branch: 'bestof/t/c1', kept });
    const committed = await commitAll(wt, { message: 'm' });

    expect(head).toMatchObject({ rewound: true, head: kept });
    expect(git(wt, 'rev-parse', `${committed.commit ?? ''}^`)).toBe(kept);
    expect(git(wt, 'show', 'HEAD:src/b.txt')).toBe('new');
    expect(git(wt, 'show', 'HEAD:src/a.txt')).toBe('a'); // the agent's own tree, reverted file included
  });

  it("keeps the agent's own commits on its branch", async () => {
    const { wt, base } = await world();
    put(wt, 'src/a.txt', 'agent\n');
    agentGit(wt, 'commit', '--quiet', '-am', 'agent');
    const tip = git(wt, 'rev-parse', 'HEAD');
    expect(await reclaimHead(wt, { branch: 'bestof/t/c1', kept: base })).toEqual({ rewound: false, head: tip });
    expect(git(wt, 'rev-parse', 'bestof/t/c1')).toBe(tip);
  });
});
