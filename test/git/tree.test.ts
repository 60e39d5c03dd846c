/**
 * pathsMatching: the files of a commit that glob pathspecs match, in repositories of both hash
 * formats (it diffs against git's empty tree, which it knows by heart for a full object name).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pathsMatching } from '../../src/git/history/tree.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A repo in `format` with test/a.test.ts, test/deep/b.test.ts and src/a.ts; returns it and its commit. */
function repoIn(format: 'sha1' | 'sha256'): { dir: string; commit: string } {
  const dir = makeTempDir('bestof-tree-');
  made.push(dir);
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim();
  git('init', '--quiet', `--object-format=${format}`);
  mkdirSync(join(dir, 'test', 'deep'), { recursive: true });
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'test', 'a.test.ts'), 'a\n');
  writeFileSync(join(dir, 'test', 'deep', 'b.test.ts'), 'b\n');
  writeFileSync(join(dir, 'src', 'a.ts'), 'src\n');
  git('add', '-A');
  git('-c', 'user.name=T', '-c', 'user.email=t@example.com', '-c', 'commit.gpgsign=false', 'commit', '--quiet', '-m', 'files');
  return { dir, commit: git('rev-parse', 'HEAD') };
}

describe('pathsMatching', () => {
  for (const format of ['sha1', 'sha256'] as const) {
    it(`lists the files glob pathspecs match, by a full commit name or by a ref, in a ${format} repository`, async () => {
      const { dir, commit } = repoIn(format);
      expect(commit).toHaveLength(format === 'sha1' ? 40 : 64);
      expect(await pathsMatching(dir, commit, [':(top,glob)test/**'])).toEqual(['test/a.test.ts', 'test/deep/b.test.ts']);
      expect(await pathsMatching(dir, 'HEAD', [':(top,glob)**/*.ts', ':(top)src'])).toEqual(['src/a.ts', 'test/a.test.ts', 'test/deep/b.test.ts']);
      expect(await pathsMatching(dir, commit, [':(top,glob)docs/**'])).toEqual([]);
      expect(await pathsMatching(dir, commit, [])).toEqual([]);
    });
  }
});
