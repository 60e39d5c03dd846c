import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reattachWorktree, rewordCommit } from '../../src/git/history/checkpoint.js';
import { ok } from '../../src/result.js';
import { commitAll } from '../../src/git/history/commit.js';
import { identityArgs } from '../../src/git/running/exec.js';
import { recordGitCalls } from '../helpers/git-calls.js';
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

describe('rewordCommit', () => {
  it('rewords the commit it is given, by sha: a branch a rival moved meanwhile does not lend its tree, and is put back', () => {
    const r = repo({ 'README.md': '# r\n' });
    r.git('checkout', '--quiet', '-b', 'bestof/run/c1');
    r.write('mine.txt', 'mine\n');
    const mine = r.commitAll('bestof: c1 iteration 1');
    // A rival (no sandbox) points the branch at a commit of its own while the checks run.
    r.git('checkout', '--quiet', '--detach');
    r.write('PWNED.txt', 'pwned\n');
    const planted = r.commitAll('planted');
    r.git('update-ref', 'refs/heads/bestof/run/c1', planted);
    r.git('checkout', '--quiet', 'bestof/run/c1');
    return rewordCommit(r.dir, { commit: mine, branch: 'bestof/run/c1', message: 'bestof: c1 iteration 1, score 10' }).then((reworded) => {
      expect(reworded.branchWasMoved).toBe(planted);
      expect(r.git('rev-parse', `${reworded.commit}^{tree}`)).toBe(r.git('rev-parse', `${mine}^{tree}`));
      expect(r.git('rev-parse', 'refs/heads/bestof/run/c1')).toBe(reworded.commit);
      expect(r.git('log', '-1', '--format=%s', reworded.commit)).toBe('bestof: c1 iteration 1, score 10');
      expect(r.git('ls-tree', '--name-only', reworded.commit)).not.toContain('PWNED.txt');
    });
  });

  it('moves an unmoved branch from the commit to its rewording, and says nothing', async () => {
    const r = repo({ 'README.md': '# r\n' });
    r.git('checkout', '--quiet', '-b', 'bestof/run/c1');
    r.write('mine.txt', 'mine\n');
    const mine = r.commitAll('bestof: c1 iteration 1');
    const reworded = await rewordCommit(r.dir, { commit: mine, branch: 'bestof/run/c1', message: 'scored' });
    expect(reworded.branchWasMoved).toBeUndefined();
    expect(r.git('rev-parse', 'HEAD')).toBe(reworded.commit);
    expect(r.git('rev-parse', `${reworded.commit}^`)).toBe(r.git('rev-parse', `${mine}^`));
  });

  it('with the header of a commit commitAll made, rewords it without reading it back: commit-tree and update-ref only', async () => {
    const r = repo({ 'README.md': '# r\n' });
    r.git('checkout', '--quiet', '-b', 'bestof/run/c1');
    r.write('mine.txt', 'mine\n');
    const made = await commitAll(r.dir, { message: 'bestof: c1 iteration 1' });
    if (made.commit === undefined) throw new Error('nothing committed');
    const known = { commit: made.commit, branch: 'bestof/run/c1', message: 'bestof: c1 iteration 1, score 10', header: made.header };
    // identityArgs is asked once per worktree and process: asked here, before the count.
    await identityArgs(r.dir);
    const { result: reworded, calls } = await recordGitCalls(tempDir(), () => rewordCommit(r.dir, known));
    expect(calls.map(subcommand)).toEqual(['commit-tree', 'update-ref']);
    expect(reworded.branchWasMoved).toBeUndefined();
    expect(r.git('rev-parse', 'HEAD')).toBe(reworded.commit);
    expect(r.git('rev-parse', `${reworded.commit}^{tree}`)).toBe(r.git('rev-parse', `${made.commit}^{tree}`));
    expect(r.git('rev-parse', `${reworded.commit}^`)).toBe(r.git('rev-parse', `${made.commit}^`));
    expect(r.git('log', '-1', '--format=%s', reworded.commit)).toBe('bestof: c1 iteration 1, score 10');

    // Without it, the commit object is read (one cat-file), to the same result.
    r.git('update-ref', 'refs/heads/bestof/run/c1', made.commit);
    const { result: again, calls: readBack } = await recordGitCalls(tempDir(), () => rewordCommit(r.dir, { ...known, header: undefined }));
    expect(readBack.map(subcommand)).toEqual(['cat-file', 'commit-tree', 'update-ref']);
    expect(r.git('rev-parse', `${again.commit}^{tree}`)).toBe(r.git('rev-parse', `${reworded.commit}^{tree}`));
  });
});

describe('rewordCommit with the kept ref', () => {
  function scoredCommit(): { r: ReturnType<typeof repo>; mine: string } {
    const r = repo({ 'README.md': '# r\n' });
    r.git('checkout', '--quiet', '-b', 'bestof/run/c1');
    r.write('mine.txt', 'mine\n');
    return { r, mine: r.commitAll('bestof: c1 iteration 1') };
  }
  const keepRef = 'refs/bestof/run/c1/kept';

  it('moves the branch and the kept ref in one git process (update-ref --stdin), both to the rewording', async () => {
    const { r, mine } = scoredCommit();
    await identityArgs(r.dir);
    const { result: reworded, calls } = await recordGitCalls(tempDir(), () =>
      rewordCommit(r.dir, { commit: mine, branch: 'bestof/run/c1', message: 'scored', keepRef }),
    );
    // (The look-up of the repository's drivers, once per folder, is not the reword's.)
    const own = calls.filter((call) => !call.includes(' config --show-scope '));
    expect(own.map(subcommand)).toEqual(['cat-file', 'commit-tree', 'update-ref']);
    expect(own[2]).toContain('update-ref --stdin');
    expect(reworded.kept).toBe(true);
    expect(reworded.branchWasMoved).toBeUndefined();
    expect(r.git('rev-parse', 'refs/heads/bestof/run/c1')).toBe(reworded.commit);
    expect(r.git('rev-parse', keepRef)).toBe(reworded.commit);
  });

  it('a branch a rival moved: neither ref moves in the transaction; the branch is put on the rewording as before, the kept ref left to the caller', async () => {
    const { r, mine } = scoredCommit();
    r.git('checkout', '--quiet', '--detach');
    r.write('PWNED.txt', 'pwned\n');
    const planted = r.commitAll('planted');
    r.git('update-ref', 'refs/heads/bestof/run/c1', planted);
    r.git('update-ref', keepRef, mine);
    const reworded = await rewordCommit(r.dir, { commit: mine, branch: 'bestof/run/c1', message: 'scored', keepRef });
    expect(reworded.kept).toBeUndefined();
    expect(reworded.branchWasMoved).toBe(planted);
    expect(r.git('rev-parse', 'refs/heads/bestof/run/c1')).toBe(reworded.commit);
    expect(r.git('rev-parse', keepRef)).toBe(mine);
  });

  it("a ref planted in the kept ref's way: the transaction fails whole, the branch still moves, the kept ref is left to the caller", async () => {
    const { r, mine } = scoredCommit();
    // refs/bestof/run/c1/kept cannot exist beside a ref refs/bestof/run/c1 (a file where a folder must be).
    r.git('update-ref', 'refs/bestof/run/c1', mine);
    const reworded = await rewordCommit(r.dir, { commit: mine, branch: 'bestof/run/c1', message: 'scored', keepRef });
    expect(reworded.kept).toBeUndefined();
    expect(reworded.branchWasMoved).toBeUndefined();
    expect(r.git('rev-parse', 'refs/heads/bestof/run/c1')).toBe(reworded.commit);
    expect(r.git('for-each-ref', '--format=%(refname)', 'refs/bestof/')).toBe('refs/bestof/run/c1');
  });
});

/** The git subcommand of a recorded call (the `-c k=v` options before it may hold spaces: an identity). */
function subcommand(call: string): string {
  return /(?:^| )(cat-file|commit-tree|update-ref|rev-parse|config) /.exec(call)?.[1] ?? call;
}
