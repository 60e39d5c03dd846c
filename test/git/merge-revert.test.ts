/** bestof's own revert commit (src/git/history/tree.ts): paths put back as base has them, no worktree touched. */
import { chmodSync, readFileSync, symlinkSync, rmSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pathsMatching, revertPathsCommit, topLevelPaths } from '../../src/git/history/tree.js';
import { globPathspec } from '../../src/git/worktrees/paths.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo } = tempRepos();

describe('revertPathsCommit', () => {
  it('restores modified and deleted paths, removes added ones, keeps the rest, touches no worktree or ref', async () => {
    const r = repo({ 'src/a.js': 'a\n', 'test/a.test.js': 'full test\n', 'test/b.test.js': 'b\n', 'run.sh': '#!/bin/sh\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.git('checkout', '--quiet', '-b', 'cand');
    r.write('src/a.js', 'fixed\n');
    r.write('test/a.test.js', 'gutted\n');
    rmSync(join(r.dir, 'test/b.test.js'));
    r.write('test/new.test.js', 'added\n');
    chmodSync(join(r.dir, 'run.sh'), 0o755);
    const commit = r.commitAll('candidate');
    const status = r.git('status', '--porcelain');
    const refs = r.git('for-each-ref');

    const made = await revertPathsCommit(r.dir, {
      base,
      commit,
      paths: ['test/a.test.js', 'test/b.test.js', 'test/new.test.js'],
      message: 'bestof: revert frozen',
    });
    expect(made.ok).toBe(true);
    const sha = made.ok ? made.value : '';
    expect(r.git('rev-parse', `${sha}^`)).toBe(commit);
    expect(r.git('log', '-1', '--format=%s', sha)).toBe('bestof: revert frozen');
    expect(r.git('show', `${sha}:src/a.js`)).toBe('fixed');
    expect(r.git('show', `${sha}:test/a.test.js`)).toBe('full test');
    expect(r.git('show', `${sha}:test/b.test.js`)).toBe('b');
    expect(r.git('ls-tree', '-r', '--name-only', sha, 'test')).toBe('test/a.test.js\ntest/b.test.js');
    expect(r.git('diff', '--name-only', base, sha)).toBe('run.sh\nsrc/a.js');
    // Nothing else moved: the checkout, its index, the refs.
    expect(r.git('status', '--porcelain')).toBe(status);
    expect(r.git('for-each-ref')).toBe(refs);
    expect(readFileSync(join(r.dir, 'test/a.test.js'), 'utf8')).toBe('gutted\n');
  });

  it('puts back a frozen folder replaced by a symlink, and returns the commit itself when nothing changes', async () => {
    const r = repo({ 'test/a.test.js': 'a\n', 'test/sub/b.js': 'b\n', 'x.txt': 'x\n' });
    const base = r.git('rev-parse', 'HEAD');
    rmSync(join(r.dir, 'test'), { recursive: true });
    mkdirSync(join(r.dir, 'elsewhere'));
    r.write('elsewhere/a.test.js', 'fake\n');
    symlinkSync('elsewhere', join(r.dir, 'test'));
    const commit = r.commitAll('link');
    const made = await revertPathsCommit(r.dir, { base, commit, paths: ['test'], message: 'revert' });
    const sha = made.ok ? made.value : '';
    expect(r.git('ls-tree', '-r', sha, 'test')).toMatch(/^100644 blob \w+\ttest\/a\.test\.js\n100644 blob \w+\ttest\/sub\/b\.js$/);
    expect(await revertPathsCommit(r.dir, { base, commit: sha, paths: ['test'], message: 'again' })).toEqual({ ok: true, value: sha });
    expect(await revertPathsCommit(r.dir, { base, commit, paths: [], message: 'none' })).toEqual({ ok: true, value: commit });
  });

  it('says so when a commit does not exist', async () => {
    const r = repo();
    const made = await revertPathsCommit(r.dir, { base: 'HEAD', commit: 'nope', paths: ['a'], message: 'm' });
    expect(made).toEqual({ ok: false, error: expect.stringContaining('nope is not a commit') });
  });
});

describe('pathsMatching', () => {
  it('lists the files a glob matches, and nothing for a glob that matches none', async () => {
    const r = repo({ 'test.js': 't\n', 'lib/x.js': 'x\n', 'lib/deep/y.js': 'y\n' });
    expect(await pathsMatching(r.dir, 'HEAD', [globPathspec('test/**')])).toEqual([]);
    expect(await pathsMatching(r.dir, 'HEAD', [globPathspec('lib/*.js')])).toEqual(['lib/x.js']);
    expect(await pathsMatching(r.dir, 'HEAD', [globPathspec('lib/**'), globPathspec('test.js')])).toEqual(['lib/deep/y.js', 'lib/x.js', 'test.js']);
    expect(await pathsMatching(r.dir, 'HEAD', [])).toEqual([]);
    expect(await topLevelPaths(r.dir, 'HEAD')).toEqual(['lib/', 'test.js']);
  });
});
