import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mergeInWorktree, mergeWinner, undoInterruptedMerge, type MergeWinnerOptions } from '../../src/git/history/merge.js';
import { ok } from '../../src/result.js';
import { makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

/** The winner's scored commit of the current test (what `opts` merges). */
let scored = '';

/** main with a.txt/b.txt, and a winner branch `bestof/r/a` that changes b.txt and adds c.txt. */
function setup(): { r: TempRepo; base: string; tip: string } {
  const r = makeTempRepo({ 'a.txt': 'a\n', 'b.txt': 'b1\nb2\nb3\n' });
  cleanups.push(r.cleanup);
  const base = r.git('rev-parse', 'HEAD');
  r.git('checkout', '--quiet', '-b', 'bestof/r/a');
  r.write('b.txt', 'b1\nWINNER\nb3\n');
  r.commitAll('winner 1');
  r.write('c.txt', 'c\n');
  const tip = r.commitAll('winner 2');
  r.git('checkout', '--quiet', 'main');
  scored = tip;
  return { r, base, tip };
}
const opts = (mode: MergeWinnerOptions['mode']): MergeWinnerOptions => ({
  mode,
  commit: scored,
  branch: 'bestof/r/a',
  into: 'main',
  message: 'bestof: merge winner a',
});
const read = (r: TempRepo, p: string): string => readFileSync(join(r.dir, p), 'utf8');
/** mergeWinner's refusal in each mode that writes the checkout (merge, squash, ff): it must refuse in all three. */
async function refusalsOfEveryMode(r: TempRepo) {
  const errors = [];
  for (const mode of ['merge', 'squash', 'ff'] as const) {
    const result = await mergeWinner(r.dir, opts(mode));
    expect(result.ok, mode).toBe(false);
    if (!result.ok) errors.push(result.error);
  }
  return errors;
}
/** Everything observable about the checkout: HEAD, branch, status (with untracked), the winner branch. */
const snapshot = (r: TempRepo) => ({
  head: r.git('rev-parse', 'HEAD'),
  branch: r.git('symbolic-ref', '--quiet', 'HEAD'),
  status: r.git('status', '--porcelain', '--untracked-files=all'),
  winner: r.git('rev-parse', 'bestof/r/a'),
  mergeState: ['MERGE_HEAD', 'MERGE_MSG', 'SQUASH_MSG'].filter((f) => existsSync(join(r.dir, '.git', f))),
});

describe('mergeWinner', () => {
  it('merge: creates a merge commit with the message', async () => {
    const { r, base, tip } = setup();
    const result = await mergeWinner(r.dir, opts('merge'));
    expect(result).toEqual(ok({ commit: r.git('rev-parse', 'HEAD') }));
    expect(r.git('rev-parse', 'HEAD^1')).toBe(base);
    expect(r.git('rev-parse', 'HEAD^2')).toBe(tip);
    expect(r.git('log', '-1', '--format=%s')).toBe('bestof: merge winner a');
    expect(read(r, 'b.txt')).toBe('b1\nWINNER\nb3\n');
    expect(read(r, 'c.txt')).toBe('c\n');
    expect(r.git('status', '--porcelain')).toBe('');
  });

  it('squash: one commit with one parent, the branch stays', async () => {
    const { r, base, tip } = setup();
    const result = await mergeWinner(r.dir, opts('squash'));
    expect(result.ok).toBe(true);
    expect(result.ok && result.value.commit).toBe(r.git('rev-parse', 'HEAD'));
    expect(r.git('rev-list', '--parents', '-n', '1', 'HEAD')).toBe(`${r.git('rev-parse', 'HEAD')} ${base}`);
    expect(r.git('log', '-1', '--format=%B')).toBe('bestof: merge winner a');
    expect(r.git('rev-parse', 'HEAD^{tree}')).toBe(r.git('rev-parse', `${tip}^{tree}`));
    expect(r.git('rev-parse', 'bestof/r/a')).toBe(tip);
    expect(r.git('status', '--porcelain')).toBe('');
  });

  it('ff: fast-forwards to the winner', async () => {
    const { r, tip } = setup();
    expect(await mergeWinner(r.dir, opts('ff'))).toEqual(ok({ commit: tip }));
    expect(r.git('rev-parse', 'main')).toBe(tip);
    expect(r.git('status', '--porcelain')).toBe('');
  });

  it('ff: refuses when main has moved on', async () => {
    const { r } = setup();
    r.write('a.txt', 'moved\n');
    r.commitAll('main moves');
    const before = snapshot(r);
    const result = await mergeWinner(r.dir, opts('ff'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.reason).toBe('not_fast_forward');
    expect(!result.ok && result.error.message).toMatch(/merge = "merge" or "squash"/);
    expect(snapshot(r)).toEqual(before);
  });

  it('refuses a dirty checkout and leaves it and the branch untouched', async () => {
    const { r } = setup();
    for (const f of ['a.txt', 'd1', 'd2', 'd3', 'd4', 'd5']) r.write(f, 'x\n');
    r.git('add', 'd1', 'd2', 'd3', 'd4', 'd5');
    r.write('untracked.txt', 'u\n');
    const before = snapshot(r);
    for (const error of await refusalsOfEveryMode(r)) {
      expect(error.reason).toBe('dirty');
      expect(error.message).toMatch(/uncommitted changes in a\.txt, d1, d2, d3, d4 and 1 more/);
      expect(error.message).toMatch(/branch bestof\/r\/a is left in place/);
    }
    expect(snapshot(r)).toEqual(before);
    expect(read(r, 'a.txt')).toBe('x\n');
  });

  it('refuses when `into` is not checked out', async () => {
    const { r } = setup();
    r.git('checkout', '--quiet', '-b', 'elsewhere');
    const result = await mergeWinner(r.dir, opts('merge'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.reason).toBe('not_checked_out');
    expect(!result.ok && result.error.message).toMatch(/on branch elsewhere.*git switch main.*merge = "branch"/);
    r.git('checkout', '--quiet', '--detach');
    const detached = await mergeWinner(r.dir, opts('squash'));
    expect(!detached.ok && detached.error.message).toMatch(/detached HEAD/);
  });

  for (const mode of ['merge', 'squash'] as const) {
    it(`${mode}: a conflict is undone and reported with the files`, async () => {
      const { r } = setup();
      r.write('b.txt', 'b1\nMAIN\nb3\n');
      r.commitAll('main edits b');
      r.write('untracked-before.txt', 'mine\n');
      const before = snapshot(r);
      const result = await mergeWinner(r.dir, opts(mode));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.reason).toBe('conflict');
      expect(!result.ok && result.error.message).toMatch(/conflicts in b\.txt/);
      expect(snapshot(r)).toEqual(before);
      expect(before.mergeState).toEqual([]);
      expect(read(r, 'b.txt')).toBe('b1\nMAIN\nb3\n');
      expect(r.git('status', '--porcelain')).toBe('?? untracked-before.txt');
    });
  }

  it('reports an untracked file in the way without touching anything', async () => {
    const { r } = setup();
    r.write('c.txt', 'my own untracked c\n');
    const before = snapshot(r);
    const result = await mergeWinner(r.dir, opts('merge'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.reason).toBe('error');
    expect(!result.ok && result.error.message).toMatch(/untracked/);
    expect(snapshot(r)).toEqual(before);
    expect(read(r, 'c.txt')).toBe('my own untracked c\n');
  });

  it('says when there is nothing to merge, or the squash is empty', async () => {
    const { r } = setup();
    r.git('merge', '--quiet', '--ff-only', 'bestof/r/a');
    const nothing = await mergeWinner(r.dir, opts('merge'));
    expect(!nothing.ok && nothing.error.message).toMatch(/nothing to merge/);

    r.git('checkout', '--quiet', '-b', 'bestof/r/b');
    r.write('z.txt', 'z\n');
    r.commitAll('add z');
    r.git('rm', '--quiet', 'z.txt');
    r.git('commit', '--quiet', '-m', 'remove z');
    r.git('checkout', '--quiet', 'main');
    const head = r.git('rev-parse', 'HEAD');
    const empty = await mergeWinner(r.dir, { ...opts('squash'), commit: r.git('rev-parse', 'bestof/r/b'), branch: 'bestof/r/b' });
    expect(empty.ok).toBe(false);
    expect(!empty.ok && empty.error.message).toMatch(/squash of bestof\/r\/b into main is empty/);
    expect(r.git('rev-parse', 'HEAD')).toBe(head);
    expect(r.git('status', '--porcelain')).toBe('');
    expect(existsSync(join(r.dir, '.git', 'SQUASH_MSG'))).toBe(false);
  });

  it('refuses while the user has a merge in progress, without aborting it', async () => {
    const { r } = setup();
    r.git('checkout', '--quiet', '-b', 'other', 'main~0');
    r.write('b.txt', 'b1\nOTHER\nb3\n');
    r.commitAll('other');
    r.git('checkout', '--quiet', 'main');
    r.write('b.txt', 'b1\nMAIN\nb3\n');
    r.commitAll('main');
    expect(() => r.git('merge', 'other')).toThrow(); // conflict, left for the user
    const result = await mergeWinner(r.dir, opts('merge'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.message).toMatch(/merge is in progress/);
    expect(r.git('rev-parse', '--verify', 'MERGE_HEAD')).toBe(r.git('rev-parse', 'other'));
  });

  it('undoes a merge that a failing hook of the user stopped', async () => {
    const { r } = setup();
    mkdirSync(join(r.dir, '.git/hooks'), { recursive: true });
    writeFileSync(join(r.dir, '.git/hooks/pre-merge-commit'), '#!/bin/sh\necho "lint failed" >&2\nexit 1\n', { mode: 0o755 });
    writeFileSync(join(r.dir, '.git/hooks/pre-commit'), '#!/bin/sh\necho "lint failed" >&2\nexit 1\n', { mode: 0o755 });
    const before = snapshot(r);
    for (const mode of ['merge', 'squash'] as const) {
      const result = await mergeWinner(r.dir, opts(mode));
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error.reason).toBe('error');
      expect(!result.ok && result.error.message).toMatch(/lint failed.*is as before/);
      expect(snapshot(r)).toEqual(before);
    }
  });

  it("refuses while the checkout's index is locked (a git working there, or one that crashed and left index.lock), and touches nothing", async () => {
    const { r } = setup();
    const lock = join(r.dir, '.git', 'index.lock');
    writeFileSync(lock, '');
    const before = snapshot(r);
    for (const error of await refusalsOfEveryMode(r)) {
      expect(error.reason).toBe('error');
      expect(error.message).toContain(`${lock} exists: a git command is working in ${r.dir}, or one was stopped and left it`);
      expect(error.message).toContain(`remove it (\`rm '${lock}'\`) and run \`git merge bestof/r/a\``);
      expect(error.message).toMatch(/branch bestof\/r\/a is left in place/);
    }
    expect(existsSync(lock)).toBe(true);
    expect(snapshot(r)).toEqual(before);
  });

  it('says so, and what to run, when the undo of a failed merge fails too (a hook of the user left the index locked): no exception', async () => {
    const { r } = setup();
    mkdirSync(join(r.dir, '.git/hooks'), { recursive: true });
    const lock = join(r.dir, '.git', 'index.lock');
    writeFileSync(join(r.dir, '.git/hooks/pre-merge-commit'), `#!/bin/sh\ntouch '${lock}'\necho "lint failed" >&2\nexit 1\n`, { mode: 0o755 });
    const result = await mergeWinner(r.dir, opts('merge'));
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error.reason).toBe('error');
    expect(!result.ok && result.error.message).toMatch(
      /lint failed.*undoing it failed too \(.*index\.lock.*\): once no other git runs in .*, run `git merge --abort` there.*branch bestof\/r\/a is left in place/s,
    );
    expect(!result.ok && result.error.message).not.toContain('is as before');
    // What the message says to run does it, once the lock is gone.
    rmSync(lock);
    r.git('merge', '--abort');
    expect(r.git('status', '--porcelain')).toBe('');
    expect(r.git('rev-parse', 'HEAD')).toBe(r.git('rev-parse', 'main'));
  });

  it('undoes a merge interrupted by the abort signal', async () => {
    const { r } = setup();
    mkdirSync(join(r.dir, '.git/hooks'), { recursive: true });
    // A slow hook keeps git busy after the merged files are already in the checkout; it says when it starts.
    const marker = join(r.dir, '.git', 'hook-started');
    writeFileSync(join(r.dir, '.git/hooks/pre-merge-commit'), `#!/bin/sh\nexec >/dev/null 2>&1\ntouch '${marker}'\nsleep 3\n`, { mode: 0o755 });
    const before = snapshot(r);
    const controller = new AbortController();
    const timer = setInterval(() => {
      if (existsSync(marker)) controller.abort();
    }, 20);
    cleanups.push(() => clearInterval(timer));
    await expect(mergeWinner(r.dir, { ...opts('merge'), signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    expect(existsSync(marker)).toBe(true);
    expect(snapshot(r)).toEqual(before);
  });

  it('reports a commit that does not exist, and never resolves a name', async () => {
    const { r } = setup();
    const missing = await mergeWinner(r.dir, { ...opts('merge'), commit: 'f'.repeat(40) });
    expect(!missing.ok && missing.error.reason).toBe('error');
    expect(!missing.ok && missing.error.message).toMatch(/f{40} is not a commit sha/);
    const byName = await mergeWinner(r.dir, { ...opts('merge'), commit: 'bestof/r/a' });
    expect(!byName.ok && byName.error.message).toMatch(/bestof\/r\/a is not a commit sha/);
  });

  for (const mode of ['merge', 'squash', 'ff'] as const) {
    it(`${mode}: merges the scored sha even when the branch moved after scoring`, async () => {
      const { r, tip } = setup();
      r.git('branch', '--force', 'bestof/r/a', tip);
      r.git('checkout', '--quiet', 'bestof/r/a');
      r.write('b.txt', 'b1\nMOVED AFTER SCORING\nb3\n');
      r.write('evil.txt', 'x\n');
      r.commitAll('moved');
      r.git('checkout', '--quiet', 'main');
      const result = await mergeWinner(r.dir, opts(mode));
      expect(result.ok).toBe(true);
      expect(r.git('rev-parse', 'HEAD^{tree}')).toBe(r.git('rev-parse', `${tip}^{tree}`));
      expect(read(r, 'b.txt')).toBe('b1\nWINNER\nb3\n');
      expect(existsSync(join(r.dir, 'evil.txt'))).toBe(false);
      if (mode === 'merge') expect(r.git('log', '-1', '--format=%s')).toBe('bestof: merge winner a');
    });
  }
});

describe('a merge checked on a tip of `into` (src/engine/merge/merge-check.ts)', () => {
  it('mergeWinner with `onto`: refused (moved), the checkout untouched, when `into` is elsewhere now; merged when it is there', async () => {
    const { r, base } = setup();
    r.write('a.txt', 'user\n');
    const moved = r.commitAll('the user commits after the check');
    const before = snapshot(r);
    for (const mode of ['merge', 'squash', 'ff'] as const) {
      const result = await mergeWinner(r.dir, { ...opts(mode), onto: base });
      expect(result.ok, mode).toBe(false);
      if (!result.ok) {
        expect(result.error.reason).toBe('moved');
        expect(result.error.message).toContain(`main moved to ${moved.slice(0, 10)} while the merge onto ${base.slice(0, 10)} was being checked`);
      }
      expect(snapshot(r)).toEqual(before);
    }
    expect((await mergeWinner(r.dir, { ...opts('merge'), onto: moved })).ok).toBe(true);
  });

  it('mergeInWorktree: the merge commit of the winner onto HEAD; a conflict is aborted and named', async () => {
    const { r, base, tip } = setup();
    const made = await mergeInWorktree(r.dir, { commit: tip, message: 'check' });
    expect(made).toEqual(ok(r.git('rev-parse', 'HEAD')));
    expect(r.git('rev-parse', 'HEAD^1', 'HEAD^2')).toBe(`${base}\n${tip}`);
    r.git('reset', '--quiet', '--hard', base);
    r.write('b.txt', 'b1\nUSER\nb3\n');
    const user = r.commitAll('user changes the same line');
    const conflict = await mergeInWorktree(r.dir, { commit: tip, message: 'check' });
    expect(conflict).toEqual({ ok: false, error: 'it conflicts in b.txt' });
    expect(r.git('rev-parse', 'HEAD')).toBe(user);
    expect(r.git('status', '--porcelain')).toBe('');
  });
});

describe('undoInterruptedMerge: what a merge killed half-way left in the checkout', () => {
  it("a fast-forward's files (the index holds the winner's tree, the branch did not move) are undone; the user's own change is not taken for one", async () => {
    const { r, base, tip } = setup();
    // As `git merge --ff-only` leaves it when killed after the checkout, before the ref update.
    r.git('read-tree', '-m', '-u', 'HEAD', tip);
    expect(r.git('status', '--porcelain')).not.toBe('');
    expect(await undoInterruptedMerge(r.dir, { commit: tip, into: 'main' })).toEqual(ok('undone'));
    expect(r.git('status', '--porcelain')).toBe('');
    expect(r.git('rev-parse', 'HEAD')).toBe(base);
    // A change of the user's, staged or not: nothing of the winner's, left alone.
    r.write('a.txt', 'mine\n');
    r.git('add', 'a.txt');
    expect(await undoInterruptedMerge(r.dir, { commit: tip, into: 'main' })).toEqual(ok('none'));
    expect(r.git('status', '--porcelain')).toBe('M  a.txt');
  });

  it('a squash staged from the winner is undone, and a change made on top of it since is kept', async () => {
    const { r, base, tip } = setup();
    r.git('merge', '--squash', '--quiet', tip);
    r.write('c.txt', 'c, and the user went on\n');
    const undone = await undoInterruptedMerge(r.dir, { commit: tip, into: 'main' });
    // git refuses to reset a file that has changes on top of the merge: nothing is lost, the resume says so.
    expect(undone.ok).toBe(false);
    expect(readFileSync(join(r.dir, 'c.txt'), 'utf8')).toBe('c, and the user went on\n');
    expect(r.git('rev-parse', 'HEAD')).toBe(base);
  });
});
