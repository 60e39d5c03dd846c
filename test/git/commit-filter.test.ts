import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { filesToLeaveOut, formatBytes } from '../../src/git/history/commit-filter.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo } = tempRepos();
const SECRET = 'filter-secret-0123456789';
const secrets = createSecretSet([['FAKE_SERVICE_TOKEN', SECRET]]);

describe('filesToLeaveOut', () => {
  it('finds a value cut across the 1 MB chunks of a big file (no size limit)', async () => {
    const r = repo();
    const before = 'a'.repeat(1024 * 1024 - 10);
    r.write('big.log', `${before}${SECRET}${'b'.repeat(2_000_000)}`);
    r.write('big-clean.log', 'c'.repeat(3 * 1024 * 1024));
    expect(await filesToLeaveOut(r.dir, { secrets })).toEqual([{ path: 'big.log', reason: 'secret', detail: 'holds the value of FAKE_SERVICE_TOKEN' }]);
  });

  it('finds a value inside a binary file', async () => {
    const r = repo();
    writeFileSync(join(r.dir, 'core.dump'), Buffer.concat([Buffer.from([0xff, 0xfe, 0x00, 0xc3]), Buffer.from(SECRET), Buffer.from([0x00, 0x80])]));
    expect((await filesToLeaveOut(r.dir, { secrets })).map((file) => file.path)).toEqual(['core.dump']);
  });

  it('a symlink whose target is a secret value', async () => {
    const r = repo();
    symlinkSync(`/tmp/${SECRET}`, join(r.dir, 'link'));
    symlinkSync('README.md', join(r.dir, 'plain-link'));
    expect(await filesToLeaveOut(r.dir, { secrets })).toEqual([
      { path: 'link', reason: 'secret', detail: 'is a symlink whose target holds the value of FAKE_SERVICE_TOKEN' },
    ]);
  });

  it('a symlink to a big file is not itself big (its blob is the path)', async () => {
    const r = repo();
    r.write('.gitignore', 'big.bin\n');
    r.write('big.bin', 'z'.repeat(5000));
    symlinkSync('big.bin', join(r.dir, 'to-big'));
    expect(await filesToLeaveOut(r.dir, { maxFileSizeBytes: 1024 })).toEqual([]);
  });

  it('ignored files, deleted files and excluded folders are not looked at', async () => {
    const r = repo({ 'README.md': '# x\n', 'gone.txt': 'bye\n' });
    r.write('.gitignore', 'build/\n');
    r.write('build/huge.bin', 'x'.repeat(5000));
    r.write('node_modules/pkg/big.js', 'x'.repeat(5000));
    rmSync(join(r.dir, 'gone.txt'));
    expect(await filesToLeaveOut(r.dir, { maxFileSizeBytes: 1024, secrets, excludePaths: ['node_modules'] })).toEqual([]);
  });

  it('a tracked file already over the limit at HEAD may still be edited; one that grows past it may not', async () => {
    const r = repo({ 'README.md': '# x\n', 'data/big.csv': 'a,b\n'.repeat(1000), 'data/small.csv': 'a,b\n' });
    r.write('data/big.csv', 'a,b\n'.repeat(1001));
    r.write('data/small.csv', 'a,b\n'.repeat(1001));
    r.write('data/new.csv', 'a,b\n'.repeat(1001));
    expect((await filesToLeaveOut(r.dir, { maxFileSizeBytes: 1024 })).map((file) => file.path)).toEqual(['data/new.csv', 'data/small.csv']);
  });

  it('paths with spaces, unicode and newlines', async () => {
    const r = repo();
    const names = ['with space.txt', 'ünï cödé.txt', 'new\nline.txt'];
    for (const name of names) r.write(name, 'q'.repeat(2000));
    expect((await filesToLeaveOut(r.dir, { maxFileSizeBytes: 1024 })).map((file) => file.path).sort()).toEqual([...names].sort());
  });

  it('without a limit or secret values, still finds what escapes a commit: a link out, a nested repository', async () => {
    const r = repo();
    r.write('big.bin', 'z'.repeat(5000));
    symlinkSync('/etc/hostname', join(r.dir, 'out'));
    r.write('lib/add.js', 'x\n');
    r.git('-C', 'lib', 'init', '--quiet');
    expect((await filesToLeaveOut(r.dir, {})).map((file) => [file.path, file.reason])).toEqual([
      ['lib', 'nested_repo'],
      ['out', 'link_out'],
    ]);
  });

  it('formats sizes for the warning', () => {
    expect(formatBytes(512 * 1024 * 1024)).toBe('512 MB');
    expect(formatBytes(10 * 1024 * 1024)).toBe('10 MB');
    expect(formatBytes(1536)).toBe('1.5 KB');
    expect(formatBytes(900)).toBe('900 B');
  });
});
