import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../../src/result.js';
import {
  addWorktree,
  addWorktreeOnBranch,
  listWorktrees,
  pruneWorktrees,
  removeWorktree,
  removeWorktreeTrash,
  restoreMissingBranch,
} from '../../src/git/worktrees/worktree.js';
import { discardWorktree } from '../../src/git/worktrees/worktree-admin.js';
import { withRepoLock } from '../../src/git/running/repo-lock.js';
import { waitUntil } from '../helpers/wait.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';
import { recordGitCalls } from '../helpers/git-calls.js';

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

  it('takes a full commit name as it is (no git process to resolve it), and refuses a full name of a tree or of nothing', async () => {
    const r = repo();
    const dir = tempDir();
    const head = r.git('rev-parse', 'HEAD');
    const made = await recordGitCalls(tempDir(), () => addWorktree(r.dir, { path: join(dir, 'a'), branch: 'a', base: head }));
    expect(made.result).toEqual(ok());
    expect(made.calls.filter((call) => call.includes(' rev-parse --verify '))).toEqual([]);
    expect(r.git('rev-parse', 'a')).toBe(head);

    const tree = r.git('rev-parse', 'HEAD^{tree}');
    const onTree = await addWorktree(r.dir, { path: join(dir, 'b'), branch: 'b', base: tree });
    expect(!onTree.ok && onTree.error).toMatch(new RegExp(`cannot create branch b at ${tree}: .*non-commit`));
    const missing = 'f'.repeat(head.length);
    const onNothing = await addWorktree(r.dir, { path: join(dir, 'c'), branch: 'c', base: missing });
    expect(!onNothing.ok && onNothing.error).toMatch(new RegExp(`cannot create branch c at ${missing}: `));
    expect(r.git('branch', '--list', 'b', 'c')).toBe('');
    expect(existsSync(join(dir, 'b')) || existsSync(join(dir, 'c'))).toBe(false);
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

  it('force-removes a worktree whose .git link is broken, never a folder that is no worktree of the repo', async () => {
    const r = repo();
    const dir = tempDir();
    const path = join(dir, 'w');
    expect((await addWorktree(r.dir, { path, branch: 'w', base: 'HEAD' })).ok).toBe(true);
    rmSync(join(path, '.git'));
    expect(await removeWorktree(r.dir, path, { force: true })).toEqual(ok());
    expect(readdirSync(dir)).toEqual([]);
    expect(existsSync(join(r.dir, '.git', 'worktrees', 'w'))).toBe(false);

    const stranger = join(dir, 'stranger');
    mkdirSync(stranger);
    writeFileSync(join(stranger, 'keep.txt'), 'mine\n');
    const refused = await removeWorktree(r.dir, stranger, { force: true });
    expect(!refused.ok && refused.error).toMatch(/cannot remove worktree .*stranger: .*is not a working tree/);
    const main = await removeWorktree(r.dir, r.dir, { force: true });
    expect(main.ok).toBe(false);
    expect(existsSync(join(stranger, 'keep.txt'))).toBe(true);
    expect(existsSync(join(r.dir, 'README.md'))).toBe(true);
  });

  it('a forced removal can hand the renamed folder to whoever deletes it later (the end of a run): out of git at once, its files intact until then', async () => {
    const r = repo();
    const path = join(tempDir(), 'c1');
    expect(await addWorktree(r.dir, { path, branch: 'bestof/t/c1', base: 'main' })).toEqual(ok());
    writeFileSync(join(path, 'work.txt'), 'committed before the removal\n');
    const handed: string[] = [];
    const removed = await removeWorktree(r.dir, path, {
      force: true,
      deleteFiles: async (trash) => {
        handed.push(trash);
      },
    });
    expect(removed).toEqual(ok());
    expect(handed).toEqual([`${path}.removing`]);
    expect(existsSync(path)).toBe(false);
    expect(readFileSync(join(`${path}.removing`, 'work.txt'), 'utf8')).toBe('committed before the removal\n');
    expect(r.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });

  it('removeWorktreeTrash deletes what a forced removal killed midway left, and nothing else', async () => {
    const dir = tempDir();
    for (const name of ['c1.removing', 'c1.removing-2', 'c1', 'c1.removing-x', 'c10.removing']) mkdirSync(join(dir, name));
    writeFileSync(join(dir, 'c1.removing', 'half.txt'), 'x\n');
    expect((await removeWorktreeTrash(join(dir, 'c1'))).sort()).toEqual([join(dir, 'c1.removing'), join(dir, 'c1.removing-2')]);
    expect(readdirSync(dir).sort()).toEqual(['c1', 'c1.removing-x', 'c10.removing']);
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

/** What a checkout put on disk: per file its mode, and its bytes or its link target. */
function snapshot(dir: string, sub = ''): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(join(dir, sub))) {
    if (sub === '' && name === '.git') continue;
    const rel = sub ? `${sub}/${name}` : name;
    const full = join(dir, rel);
    const info = lstatSync(full);
    if (info.isSymbolicLink()) out[rel] = `link -> ${readlinkSync(full)}`;
    else if (info.isDirectory()) Object.assign(out, snapshot(dir, rel));
    else out[rel] = `${(info.mode & 0o777).toString(8)} ${JSON.stringify(readFileSync(full, 'utf8'))}`;
  }
  return out;
}

describe("the repository's worktrees lock", () => {
  it('is held while git writes the shared worktree metadata: another holder keeps the worktree from being made until it lets go', async () => {
    const r = repo();
    const path = join(tempDir(), 'w');
    let adding: Promise<unknown> | undefined;
    await withRepoLock(join(r.dir, '.git'), 'worktrees', async () => {
      adding = addWorktree(r.dir, { path, branch: 'w', base: 'main' });
      // Its branch is made before the lock; then it waits. Give it time to go wrong, were it not waiting.
      await waitUntil(() => r.git('branch', '--list', 'w') !== '', 'the branch to be made');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(existsSync(join(r.dir, '.git', 'worktrees'))).toBe(false);
      expect(existsSync(join(path, '.git'))).toBe(false);
    });
    expect(await adding).toEqual(ok());
    expect(r.git('-C', path, 'status', '--porcelain')).toBe('');
  });
});

describe('the checkout of a new worktree (outside the lock)', () => {
  it('puts exactly what `git worktree add` puts: eol conversion from .gitattributes, file modes, symlinks; status clean', async () => {
    const r = repo();
    r.write('.gitattributes', '*.crlf text eol=crlf\n*.bin -text\n');
    r.write('notes.crlf', 'one\ntwo\n');
    r.write('data.bin', 'raw\r\nbytes\n');
    r.write('bin/run.sh', '#!/bin/sh\necho hi\n');
    chmodSync(join(r.dir, 'bin/run.sh'), 0o755);
    symlinkSync('bin/run.sh', join(r.dir, 'run'));
    r.commitAll('attributes, modes, a link');
    const dir = tempDir();
    const plain = join(dir, 'plain');
    r.git('worktree', 'add', '--quiet', '-b', 'plain', plain, 'main');
    const ours = join(dir, 'ours');
    expect(await addWorktree(r.dir, { path: ours, branch: 'ours', base: 'main' })).toEqual(ok());

    expect(snapshot(ours)).toEqual(snapshot(plain));
    expect(readFileSync(join(ours, 'notes.crlf'), 'utf8')).toBe('one\r\ntwo\r\n');
    expect(statSync(join(ours, 'bin/run.sh')).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(ours, 'run')).isSymbolicLink()).toBe(true);
    expect(r.git('-C', ours, 'status', '--porcelain')).toBe('');
    expect(r.git('-C', ours, 'symbolic-ref', 'HEAD')).toBe('refs/heads/ours');
  });
});

describe('a failed creation', () => {
  it('is tried again, then reported, and leaves no folder, no admin entry and no branch behind', async () => {
    const r = repo();
    // git cannot make its admin entry: a file where the worktrees folder goes.
    writeFileSync(join(r.dir, '.git', 'worktrees'), 'in the way\n');
    const path = join(tempDir(), 'w');
    const made = await addWorktree(r.dir, { path, branch: 'bestof/r/c1', base: 'main' });
    expect(made.ok).toBe(false);
    expect(!made.ok && made.error).toMatch(/cannot create worktree .*w on branch bestof\/r\/c1 from main: .*worktrees.*\(tried 3 times\)/);
    expect(existsSync(path)).toBe(false);
    expect(r.git('branch', '--list', 'bestof/r/c1')).toBe('');

    // The way cleared, the same candidate is made at the first try.
    rmSync(join(r.dir, '.git', 'worktrees'));
    expect(await addWorktree(r.dir, { path, branch: 'bestof/r/c1', base: 'main' })).toEqual(ok());
  });
});

describe('half-made worktrees', () => {
  it('discardWorktree removes the folder and every admin entry of it, also the leftover of a killed `git worktree add`, never the branch', async () => {
    const r = repo();
    const dir = tempDir();
    const path = join(dir, 'c1');
    r.git('worktree', 'add', '--quiet', '--no-checkout', '-b', 'bestof/r/c1', path, 'main');
    // A killed add of the same folder that got no further than its admin entry's `locked` file.
    mkdirSync(join(r.dir, '.git', 'worktrees', 'c12'));
    writeFileSync(join(r.dir, '.git', 'worktrees', 'c12', 'locked'), 'initializing');
    // Someone else's worktree stays.
    const other = join(dir, 'other');
    r.git('worktree', 'add', '--quiet', '-b', 'other', other);

    await discardWorktree(r.dir, path);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(join(r.dir, '.git', 'worktrees'))).toEqual(['other']);
    expect(r.git('rev-parse', 'bestof/r/c1')).toBe(r.git('rev-parse', 'main'));
    expect(existsSync(join(other, 'README.md'))).toBe(true);
  });

  it('addWorktreeOnBranch makes the worktree again from the branch, whatever a killed add left at its place', async () => {
    const r = repo();
    r.git('branch', 'bestof/r/c1');
    r.write('later.txt', 'on the branch\n');
    r.git('add', 'later.txt');
    r.git('commit', '--quiet', '-m', 'later');
    r.git('branch', '-f', 'bestof/r/c1', 'HEAD');
    r.git('reset', '--quiet', '--hard', 'HEAD~1');
    const path = join(tempDir(), 'c1');
    // Left by `git worktree add --no-checkout` killed before its checkout: no files, an empty index.
    r.git('worktree', 'add', '--quiet', '--no-checkout', path, 'bestof/r/c1');
    expect(r.git('-C', path, 'status', '--porcelain')).toMatch(/^D {2}/m);

    expect(await addWorktreeOnBranch(r.dir, { path, branch: 'bestof/r/c1' })).toEqual(ok());
    expect(r.git('-C', path, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/r/c1');
    expect(readFileSync(join(path, 'later.txt'), 'utf8')).toBe('on the branch\n');
    expect(r.git('-C', path, 'status', '--porcelain')).toBe('');
    expect(r.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);

    const missing = await addWorktreeOnBranch(r.dir, { path: join(tempDir(), 'x'), branch: 'no-such-branch' });
    expect(!missing.ok && missing.error).toMatch(/branch no-such-branch does not exist/);
  });

  it('restoreMissingBranch makes a missing branch at the first revision that exists, and leaves an existing one alone', async () => {
    const r = repo();
    const base = r.git('rev-parse', 'HEAD');
    r.write('x.txt', 'x\n');
    const later = r.commitAll('later');
    r.git('update-ref', 'refs/bestof/r/c1/kept', later);
    expect(await restoreMissingBranch(r.dir, 'bestof/r/c1', ['refs/bestof/r/c1/kept', base])).toEqual(ok('refs/bestof/r/c1/kept'));
    expect(r.git('rev-parse', 'refs/heads/bestof/r/c1')).toBe(later);
    expect(await restoreMissingBranch(r.dir, 'bestof/r/c2', ['refs/bestof/r/c2/kept', base])).toEqual(ok(base));
    expect(r.git('rev-parse', 'refs/heads/bestof/r/c2')).toBe(base);
    expect(await restoreMissingBranch(r.dir, 'bestof/r/c2', ['refs/bestof/r/c1/kept'])).toEqual(ok(undefined));
    expect(r.git('rev-parse', 'refs/heads/bestof/r/c2')).toBe(base);
    const none = await restoreMissingBranch(r.dir, 'bestof/r/c3', ['refs/bestof/r/c3/kept']);
    expect(!none.ok && none.error).toMatch(/cannot recreate branch bestof\/r\/c3: none of refs\/bestof\/r\/c3\/kept names a commit/);
  });
});
