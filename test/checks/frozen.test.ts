import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findTampering, frozenPathspecs, putBackCandidateFiles, restoreFrozenPaths } from '../../src/checks/frozen.js';
import { commitAll } from '../../src/git/history/commit.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { ok } from '../../src/result.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()?.();
});

const BASE_FILES: Record<string, string> = {
  '.gitignore': '*.log\nignored-dir/\n',
  'src/index.ts': 'export const answer = 41;\n',
  'test/a.test.ts': 'expect(answer).toBe(42);\n',
  'test/b.test.ts': 'expect(1).toBe(1);\n',
  'test/unit/c.test.ts': 'expect(2).toBe(2);\n',
  'scripts/check.sh': '#!/bin/sh\nnpm test\n',
  'scripts/other.sh': 'echo other\n',
  'fixtures/data.json': '{"n": 1}\n',
};
const FROZEN = ['test/**', 'scripts/check.sh', 'fixtures'];

interface Setup {
  r: TempRepo;
  wt: string;
  base: string;
}

/** A repo at `base` and a candidate worktree on its own branch. */
async function setup(files = BASE_FILES): Promise<Setup> {
  const r = makeTempRepo(files);
  cleanups.push(r.cleanup);
  if (files['scripts/check.sh'] !== undefined) {
    chmodSync(join(r.dir, 'scripts/check.sh'), 0o755);
    r.commitAll('check.sh is executable');
  }
  const base = r.git('rev-parse', 'HEAD');
  const dir = realpathSync(makeTempDir());
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const wt = join(dir, 'cand-a');
  const added = await addWorktree(r.dir, { path: wt, branch: 'bestof/t/a', base });
  expect(added).toEqual(ok());
  return { r, wt, base };
}

const put = (wt: string, path: string, content: string): void => {
  mkdirSync(dirname(join(wt, path)), { recursive: true });
  writeFileSync(join(wt, path), content);
};
const read = (wt: string, path: string): string => readFileSync(join(wt, path), 'utf8');
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
/** Every file on disk under `rel` (recursively, symlinks not followed), relative to `wt`. */
function filesUnder(wt: string, rel: string): string[] {
  const full = join(wt, rel);
  if (!existsSync(full) && !isLink(full)) return [];
  const st = lstatSync(full);
  if (!st.isDirectory()) return [rel];
  return execFileSync('find', ['.', '-mindepth', '1', '-not', '-type', 'd'], { cwd: full, encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((p) => `${rel}/${p.slice(2)}`)
    .sort();
}
function isLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}
/** Asserts every frozen file is byte-identical to base (and no extra file is there). */
function expectFrozenLikeBase(wt: string, base: string, roots: string[]): void {
  const inBase = git(wt, 'ls-tree', '-r', '--name-only', base, '--', ...roots)
    .split('\n')
    .filter(Boolean)
    .sort();
  const onDisk = roots.flatMap((root) => filesUnder(wt, root)).sort();
  expect(onDisk).toEqual(inBase);
  for (const path of inBase) {
    expect(isLink(join(wt, path)), `${path} is not a symlink`).toBe(false);
    expect(readFileSync(join(wt, path)).equals(execFileSync('git', ['show', `${base}:${path}`], { cwd: wt })), path).toBe(true);
  }
}

describe('frozenPathspecs', () => {
  it('turns patterns into top-level glob pathspecs', () => {
    expect(frozenPathspecs(['test/**', './scripts/check.sh', '/fixtures', '', '  ', ':(exclude)x'])).toEqual([
      ':(top,glob)test/**',
      ':(top,glob)scripts/check.sh',
      ':(top,glob)fixtures',
      ':(exclude)x',
    ]);
  });
});

describe('findTampering', () => {
  it('follows pathspec semantics: a plain folder name covers what is under it, * stays in one folder', async () => {
    const { r, wt, base } = await setup({
      'test/a.ts': 'a\n',
      'test/deep/b.ts': 'b\n',
      'tests/x.ts': 'x\n',
      'test.ts': 't\n',
      'ui/snap/one.snap': '1\n',
      'top.snap': 't\n',
    });
    for (const f of ['test/a.ts', 'test/deep/b.ts', 'tests/x.ts', 'test.ts', 'ui/snap/one.snap', 'top.snap']) put(wt, f, 'changed\n');
    const commit = (await commitAll(wt, { message: 'c' })).commit ?? '';
    const paths = async (frozen: string[]): Promise<string[]> => (await findTampering(wt, { base, commit, frozen })).map((t) => t.path);
    expect(await paths(['test'])).toEqual(['test/a.ts', 'test/deep/b.ts']);
    expect(await paths(['test/'])).toEqual(['test/a.ts', 'test/deep/b.ts']);
    expect(await paths(['test/**'])).toEqual(['test/a.ts', 'test/deep/b.ts']);
    expect(await paths(['test/*.ts'])).toEqual(['test/a.ts']);
    expect(await paths(['**/*.snap'])).toEqual(['top.snap', 'ui/snap/one.snap']);
    expect(await paths(['test.ts'])).toEqual(['test.ts']);
    expect(await paths([])).toEqual([]);
    expect(await paths(['nothing/**'])).toEqual([]);
    expect(r.git('rev-parse', 'bestof/t/a')).toBe(commit);
  });
});

describe('restoreFrozenPaths / putBackCandidateFiles', () => {
  it('restores every kind of tampering from base, leaves other work alone, and puts it all back', async () => {
    const { wt, base } = await setup();
    // The candidate's work: an honest change and every kind of tampering.
    put(wt, 'src/index.ts', 'export const answer = 42;\n');
    put(wt, 'scripts/other.sh', 'echo changed by candidate\n');
    put(wt, 'test/a.test.ts', 'expect(true).toBe(true); // weakened\n');
    rmSync(join(wt, 'test/b.test.ts'));
    put(wt, 'test/new.test.ts', 'test("always passes", () => {});\n');
    put(wt, 'src/evil.sh', '#!/bin/sh\nexit 0\n');
    rmSync(join(wt, 'scripts/check.sh'));
    symlinkSync('../src/evil.sh', join(wt, 'scripts/check.sh'));
    put(wt, 'fixtures/data.json', '{"n": 2}\n');
    const commit = (await commitAll(wt, { message: 'candidate work' })).commit ?? '';
    expect(commit).not.toBe('');
    // After the commit: a gitignored test dropped into a frozen folder, an ignored folder there,
    // and an ignored file elsewhere (build output) that must survive.
    put(wt, 'test/sneaky.log', 'ignored but a runner could read it\n');
    put(wt, 'test/ignored-dir/x.test.ts', 'test("ignored", () => {});\n');
    put(wt, 'build.log', 'build output\n');
    expect(git(wt, 'status', '--porcelain')).toBe('');
    const untouchedFrozen = statSync(join(wt, 'test/unit/c.test.ts')).ino;
    const untouchedOther = statSync(join(wt, 'src/index.ts')).ino;

    const records = await restoreFrozenPaths(wt, { base, commit, frozen: FROZEN });

    expect(records).toEqual([
      { path: 'fixtures/data.json', change: 'modified', rule: 'frozen' },
      { path: 'scripts/check.sh', change: 'type_changed', rule: 'frozen' },
      { path: 'test/a.test.ts', change: 'modified', rule: 'frozen' },
      { path: 'test/b.test.ts', change: 'deleted', rule: 'frozen' },
      { path: 'test/new.test.ts', change: 'added', rule: 'frozen' },
    ]);
    expectFrozenLikeBase(wt, base, ['test', 'fixtures', 'scripts/check.sh']);
    expect(statSync(join(wt, 'scripts/check.sh')).mode & 0o111).not.toBe(0);
    // the symlink was replaced, not written through
    expect(read(wt, 'src/evil.sh')).toBe('#!/bin/sh\nexit 0\n');
    // the candidate's other work is untouched, and unchanged files were not rewritten
    expect(read(wt, 'src/index.ts')).toBe('export const answer = 42;\n');
    expect(read(wt, 'scripts/other.sh')).toBe('echo changed by candidate\n');
    expect(read(wt, 'build.log')).toBe('build output\n');
    expect(statSync(join(wt, 'test/unit/c.test.ts')).ino).toBe(untouchedFrozen);
    expect(statSync(join(wt, 'src/index.ts')).ino).toBe(untouchedOther);

    // the checks leave junk behind
    put(wt, 'check-output.txt', 'junk\n');
    put(wt, 'test/__snapshots__/new.snap', 'junk\n');

    await putBackCandidateFiles(wt, { commit });

    expect(git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(commit);
    expect(read(wt, 'test/a.test.ts')).toBe('expect(true).toBe(true); // weakened\n');
    expect(existsSync(join(wt, 'test/b.test.ts'))).toBe(false);
    expect(read(wt, 'test/new.test.ts')).toBe('test("always passes", () => {});\n');
    expect(readlinkSync(join(wt, 'scripts/check.sh'))).toBe('../src/evil.sh');
    expect(read(wt, 'fixtures/data.json')).toBe('{"n": 2}\n');
    expect(read(wt, 'src/index.ts')).toBe('export const answer = 42;\n');
    expect(existsSync(join(wt, 'check-output.txt'))).toBe(false);
    expect(existsSync(join(wt, 'test/__snapshots__'))).toBe(false);
    expect(read(wt, 'build.log')).toBe('build output\n'); // ignored files are left alone

    // and it can be done again (every iteration)
    const again = await restoreFrozenPaths(wt, { base, commit, frozen: FROZEN });
    expect(again).toEqual(records);
    expectFrozenLikeBase(wt, base, ['test', 'fixtures', 'scripts/check.sh']);
    await putBackCandidateFiles(wt, { commit });
    expect(git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('catches a frozen folder replaced by a symlink', async () => {
    const { wt, base } = await setup();
    put(wt, 'evil/check.sh', '#!/bin/sh\nexit 0\n');
    put(wt, 'evil/test/a.test.ts', 'nothing\n');
    rmSync(join(wt, 'scripts'), { recursive: true });
    symlinkSync('evil', join(wt, 'scripts'));
    rmSync(join(wt, 'test'), { recursive: true });
    symlinkSync('evil/test', join(wt, 'test'));
    const commit = (await commitAll(wt, { message: 'links' })).commit ?? '';

    const records = await restoreFrozenPaths(wt, { base, commit, frozen: FROZEN });

    expect(records).toEqual([
      { path: 'scripts', change: 'added', rule: 'frozen' },
      { path: 'scripts/check.sh', change: 'deleted', rule: 'frozen' },
      { path: 'test', change: 'added', rule: 'frozen' },
      { path: 'test/a.test.ts', change: 'deleted', rule: 'frozen' },
      { path: 'test/b.test.ts', change: 'deleted', rule: 'frozen' },
      { path: 'test/unit/c.test.ts', change: 'deleted', rule: 'frozen' },
    ]);
    expect(lstatSync(join(wt, 'scripts')).isDirectory()).toBe(true);
    expect(lstatSync(join(wt, 'test')).isDirectory()).toBe(true);
    expectFrozenLikeBase(wt, base, ['test', 'scripts/check.sh']);
    // scripts/other.sh is not frozen: the candidate deleted it and it stays deleted
    expect(existsSync(join(wt, 'scripts/other.sh'))).toBe(false);
    expect(read(wt, 'evil/check.sh')).toBe('#!/bin/sh\nexit 0\n');
    expect(read(wt, 'evil/test/a.test.ts')).toBe('nothing\n');

    await putBackCandidateFiles(wt, { commit });
    expect(git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(readlinkSync(join(wt, 'scripts'))).toBe('evil');
    expect(readlinkSync(join(wt, 'test'))).toBe('evil/test');
  });

  it('removes a nested repository the candidate committed under a frozen folder', async () => {
    const { wt, base } = await setup();
    put(wt, 'test/vendor/fake.test.ts', 'test("fake", () => {});\n');
    const nested = join(wt, 'test/vendor');
    for (const args of [
      ['init', '--quiet'],
      ['add', '.'],
      ['-c', 'user.name=n', '-c', 'user.email=n@x', 'commit', '--quiet', '-m', 'n'],
    ])
      git(nested, ...args);
    // Committed by git itself (bestof's commitAll leaves a nested repository out: src/git/guards/escapes.ts),
    // as an agent's own commit without the sandbox would.
    git(wt, 'add', 'test/vendor');
    git(wt, '-c', 'user.name=n', '-c', 'user.email=n@x', 'commit', '--quiet', '-m', 'embedded repo');
    const commit = git(wt, 'rev-parse', 'HEAD').trim();
    expect(git(wt, 'ls-tree', commit, 'test/vendor')).toMatch(/^160000 commit/);

    const records = await restoreFrozenPaths(wt, { base, commit, frozen: FROZEN });
    expect(records).toEqual([{ path: 'test/vendor', change: 'added', rule: 'frozen' }]);
    expectFrozenLikeBase(wt, base, ['test']);

    await putBackCandidateFiles(wt, { commit });
    expect(git(wt, 'rev-parse', 'HEAD').trim()).toBe(commit);
    expect(git(wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it("keeps setup files (untracked) and removes the checks' junk", async () => {
    const { wt, base } = await setup();
    put(wt, '.env', 'SECRET=1\n');
    put(wt, 'config/local.json', '{"local": true}\n');
    put(wt, 'test/.env.test', 'TEST_SECRET=1\n');
    put(wt, 'src/index.ts', 'export const answer = 42;\n');
    const keep = ['.env', 'config/local.json', 'test/.env.test'];
    const commit = (await commitAll(wt, { message: 'work', excludePaths: keep })).commit ?? '';
    expect(git(wt, 'ls-tree', '-r', '--name-only', commit)).not.toMatch(/\.env|local\.json/);

    const records = await restoreFrozenPaths(wt, { base, commit, frozen: FROZEN, keep });
    expect(records).toEqual([]);
    expect(read(wt, 'test/.env.test')).toBe('TEST_SECRET=1\n'); // kept although under a frozen path

    put(wt, 'junk.txt', 'junk\n');
    put(wt, 'config/junk.txt', 'junk\n');
    put(wt, 'tmp/out/deep.txt', 'junk\n');
    await putBackCandidateFiles(wt, { commit, keep });

    expect(read(wt, '.env')).toBe('SECRET=1\n');
    expect(read(wt, 'config/local.json')).toBe('{"local": true}\n');
    expect(read(wt, 'test/.env.test')).toBe('TEST_SECRET=1\n');
    expect(existsSync(join(wt, 'junk.txt'))).toBe(false);
    expect(existsSync(join(wt, 'config/junk.txt'))).toBe(false);
    expect(existsSync(join(wt, 'tmp'))).toBe(false);
    expect(git(wt, 'status', '--porcelain', '--untracked-files=all').split('\n').filter(Boolean).sort()).toEqual([
      '?? .env',
      '?? config/local.json',
      '?? test/.env.test',
    ]);
    expect(read(wt, 'src/index.ts')).toBe('export const answer = 42;\n');
  });

  it('does nothing without frozen paths, and refuses a worktree that is not at the commit', async () => {
    const { wt, base } = await setup();
    put(wt, 'test/a.test.ts', 'changed\n');
    const commit = (await commitAll(wt, { message: 'work' })).commit ?? '';
    expect(await restoreFrozenPaths(wt, { base, commit, frozen: [] })).toEqual([]);
    expect(read(wt, 'test/a.test.ts')).toBe('changed\n');
    await expect(restoreFrozenPaths(wt, { base, commit: base, frozen: FROZEN })).rejects.toThrow(/not at the candidate's commit/);
  });
});
