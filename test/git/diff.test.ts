import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { changedPaths, diffStat, diffText, rememberSameTree } from '../../src/git/history/diff.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe('diffStat / diffText', () => {
  it('counts lines, files and paths; a binary file by its bytes; a rename counts once', async () => {
    const long = `${Array.from({ length: 20 }, (_, i) => `line ${i} of a file that will be renamed`).join('\n')}\n`;
    const r = repo({ 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'x\ny\n', 'old/name.txt': long });
    const base = r.git('rev-parse', 'HEAD');
    r.write('a.txt', 'one\nTWO\nthree\nfour\n'); // +2 -1
    r.git('rm', '--quiet', 'gone.txt'); // -2
    r.write('new dir/tab\tname.txt', 'n\n'); // +1
    r.write('bin.dat', '\0\x01\x02binary\0');
    mkdirSync(join(r.dir, 'new'));
    r.git('mv', 'old/name.txt', 'new/name.txt'); // rename, 0/0
    const head = r.commitAll('change');

    const stat = await diffStat(r.dir, base, head);
    // bin.dat: 11 bytes, one line of BINARY_BYTES_PER_LINE (32) added.
    expect(stat.insertions).toBe(4);
    expect(stat.deletions).toBe(3);
    expect(stat.madeBinary).toEqual([]);
    expect(stat.files).toBe(5);
    expect([...stat.paths].sort()).toEqual(['a.txt', 'bin.dat', 'gone.txt', 'new dir/tab\tname.txt', 'new/name.txt']);

    expect(await diffStat(r.dir, head, head)).toEqual({ files: 0, insertions: 0, deletions: 0, paths: [], madeBinary: [] });

    const text = await diffText(r.dir, base, head);
    expect(text).toContain('diff --git a/a.txt b/a.txt');
    expect(text).toContain('+TWO');
    expect(text).not.toContain('\x1b['); // no colour
  });
});

describe('diffStat: binary files', () => {
  const code = (lines: number, from = 0): string => `${Array.from({ length: lines }, (_, i) => `export const v${from + i} = ${from + i};`).join('\n')}\n`;

  it('one NUL byte in a file of code neither hides its lines from the diff size nor goes unnamed: it counts at least what its text diff would, and is "made binary"', async () => {
    const r = repo({ 'src/add.js': code(10) });
    const base = r.git('rev-parse', 'HEAD');
    r.write('src/add.js', `${code(10)}${code(200, 10)}`);
    const honest = await diffStat(r.dir, base, r.commitAll('honest: 200 lines'));
    expect([honest.insertions, honest.deletions, honest.madeBinary]).toEqual([200, 0, []]);
    r.git('reset', '--quiet', '--hard', base);
    r.write('src/add.js', `// \0\n${code(10)}${code(200, 10)}`);
    const hidden = await diffStat(r.dir, base, r.commitAll('the same lines behind a NUL byte'));
    expect(hidden.madeBinary).toEqual(['src/add.js']);
    expect(hidden.insertions + hidden.deletions).toBeGreaterThanOrEqual(honest.insertions + honest.deletions);
  });

  it('short lines behind a NUL byte count as lines, not as bytes (whichever is more); a binary file changed in place is never 0; a deleted one counts its bytes removed', async () => {
    const r = repo({ 'img.png': `\x89PNG\0${'a'.repeat(3200)}`, 'old.bin': `\0${'b'.repeat(639)}`, 'short.txt': 'x\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.write('short.txt', `\0\n${'y\n'.repeat(300)}`);
    r.write('img.png', `\x89PNG\0${'b'.repeat(3200)}`);
    r.git('rm', '--quiet', 'old.bin');
    const stat = await diffStat(r.dir, base, r.commitAll('binary changes'));
    // short.txt: 301 text lines added (more than its 602 bytes / 32), 1 removed; img.png: 3206 bytes (\x89 is two in UTF-8)
    // = 101 lines each way; old.bin: 640 bytes = 20 lines removed.
    expect([stat.insertions, stat.deletions]).toEqual([301 + 101, 1 + 101 + 20]);
    expect(stat.madeBinary).toEqual(['short.txt']);
  });
});

describe('changedPaths', () => {
  it('answers once for the repository: from a worktree and from the checkout, and for a commit remembered to share its tree', async () => {
    const r = repo({ 'test/a.test.ts': 'a\n', 'src/a.ts': 'a\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.write('test/a.test.ts', 'changed\n');
    const head = r.commitAll('change');
    const worktree = join(tempDir(), 'wt');
    r.git('worktree', 'add', '--quiet', '--detach', worktree, head);
    // The reword of `head`: its tree and parent, another message.
    const tree = r.git('rev-parse', `${head}^{tree}`);
    const reworded = r.git('commit-tree', tree, '-p', base, '-m', 'change, score 1');
    const tests = [':(top,glob)test/**'];
    await changedPaths(worktree, base, head, tests); // the scoring tree's look, in the worktree
    rememberSameTree(reworded, head);
    const { result, calls } = await recordGitCalls(tempDir(), async () => [
      await changedPaths(r.dir, base, head, tests), // the selection's, from the repository's checkout
      await changedPaths(r.dir, base, reworded, tests),
      await changedPaths(worktree, base, reworded, tests),
    ]);
    expect(result).toEqual([[{ path: 'test/a.test.ts', status: 'M' }], [{ path: 'test/a.test.ts', status: 'M' }], [{ path: 'test/a.test.ts', status: 'M' }]]);
    expect(calls.filter((c) => c.includes(' diff '))).toEqual([]);
    // A commit with another tree is asked.
    r.write('test/b.test.ts', 'b\n');
    const other = r.commitAll('other');
    const asked = await recordGitCalls(tempDir(), () => changedPaths(r.dir, base, other, tests));
    expect(asked.result.map((c) => c.path)).toEqual(['test/a.test.ts', 'test/b.test.ts']);
    expect(asked.calls.filter((c) => c.includes(' diff '))).toHaveLength(1);
  });

  it('asks git once for two full commit names and the same pathspecs; a ref name is asked each time', async () => {
    const r = repo({ 'test/a.test.ts': 'a\n', 'src/a.ts': 'a\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.write('test/a.test.ts', 'changed\n');
    r.write('src/b.ts', 'b\n');
    const head = r.commitAll('change');
    const tests = [':(top,glob)test/**'];
    const { result, calls } = await recordGitCalls(tempDir(), async () => [
      await changedPaths(r.dir, base, head, tests),
      await changedPaths(r.dir, base, head, tests),
      await changedPaths(r.dir, base, head, [':/']),
      await changedPaths(r.dir, base, 'HEAD', tests),
      await changedPaths(r.dir, base, 'HEAD', tests),
    ]);
    expect(result).toEqual([
      [{ path: 'test/a.test.ts', status: 'M' }],
      [{ path: 'test/a.test.ts', status: 'M' }],
      [
        { path: 'src/b.ts', status: 'A' },
        { path: 'test/a.test.ts', status: 'M' },
      ],
      [{ path: 'test/a.test.ts', status: 'M' }],
      [{ path: 'test/a.test.ts', status: 'M' }],
    ]);
    expect(calls.filter((c) => c.includes(' diff '))).toHaveLength(4);
  });
});
