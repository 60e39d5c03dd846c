/**
 * Folders their owner cannot list, enter or write (src/owned-tree.ts): opened up without following
 * a symbolic link, leaving a repository's `.git` and other users' folders alone. What it is for
 * (bestof as a user without root) is shown end to end in test/binary/locked-folders.test.ts.
 */
import { chmodSync, chownSync, lstatSync, mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openUpTree } from '../src/owned-tree.js';
import { tempRepos } from './helpers/temp-repo.js';

const { tempDir } = tempRepos();
const mode = (path: string): number => lstatSync(path).mode & 0o7777;

describe('openUpTree', () => {
  it('gives the owner rwx on every folder that lacks it, at any depth, and keeps the other bits', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'locked/inner/deeper'), { recursive: true });
    writeFileSync(join(root, 'locked/inner/deeper/f.txt'), 'x\n');
    mkdirSync(join(root, 'go/pkg/mod/m@v1'), { recursive: true });
    writeFileSync(join(root, 'go/pkg/mod/m@v1/go.mod'), 'module m\n', { mode: 0o444 });
    chmodSync(join(root, 'go/pkg/mod/m@v1'), 0o555); // as Go's module cache leaves them
    chmodSync(join(root, 'locked/inner/deeper'), 0o000);
    chmodSync(join(root, 'locked/inner'), 0o055);
    chmodSync(join(root, 'locked'), 0o000);

    const opened = await openUpTree(root);

    expect(opened.sort()).toEqual([join(root, 'go/pkg/mod/m@v1'), join(root, 'locked'), join(root, 'locked/inner'), join(root, 'locked/inner/deeper')].sort());
    expect(mode(join(root, 'locked'))).toBe(0o700);
    expect(mode(join(root, 'locked/inner'))).toBe(0o755);
    expect(mode(join(root, 'locked/inner/deeper'))).toBe(0o700);
    expect(mode(join(root, 'go/pkg/mod/m@v1'))).toBe(0o755);
    // A read-only file stays read-only.
    expect(mode(join(root, 'go/pkg/mod/m@v1/go.mod'))).toBe(0o444);
    expect(await openUpTree(root)).toEqual([]);
  });

  it('gives the owner read permission on a file that lacks it, nothing more', async () => {
    const root = tempDir();
    writeFileSync(join(root, 'unreadable.txt'), 'x\n');
    chmodSync(join(root, 'unreadable.txt'), 0o000);
    writeFileSync(join(root, 'write-only.txt'), 'x\n');
    chmodSync(join(root, 'write-only.txt'), 0o220);
    expect((await openUpTree(root)).sort()).toEqual([join(root, 'unreadable.txt'), join(root, 'write-only.txt')]);
    expect(mode(join(root, 'unreadable.txt'))).toBe(0o400);
    expect(mode(join(root, 'write-only.txt'))).toBe(0o620);
  });

  it('never follows a symbolic link, and leaves the `.git` folder at the top alone', async () => {
    const root = tempDir();
    const outside = tempDir();
    mkdirSync(join(outside, 'theirs'));
    chmodSync(join(outside, 'theirs'), 0o500);
    symlinkSync(join(outside, 'theirs'), join(root, 'link'));
    mkdirSync(join(root, '.git/objects'), { recursive: true });
    chmodSync(join(root, '.git/objects'), 0o500);

    expect(await openUpTree(root)).toEqual([]);
    expect(statSync(join(outside, 'theirs')).mode & 0o777).toBe(0o500);
    expect(mode(join(root, '.git/objects'))).toBe(0o500);
  });

  it.runIf(process.getuid?.() === 0)('leaves a folder of another user as it is', async () => {
    const root = tempDir();
    mkdirSync(join(root, 'theirs'));
    chownSync(join(root, 'theirs'), 65534, 65534);
    chmodSync(join(root, 'theirs'), 0o500);
    expect(await openUpTree(root)).toEqual([]);
    expect(mode(join(root, 'theirs'))).toBe(0o500);
  });
});
