import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commitAll, untrackedFiles } from '../../src/git/commit.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();
const committedFiles = (r: TempRepo, rev = 'HEAD'): string[] =>
  r.git('ls-tree', '-r', '--name-only', rev).split('\n').filter(Boolean).sort();

describe('commitAll', () => {
  it('commits every change except the excluded paths', async () => {
    const r = repo({ 'README.md': '# hi\n', 'old.txt': 'old\n' });
    r.write('README.md', '# changed\n');
    r.write('src/new.ts', 'export {};\n');
    r.write('.env', 'SECRET=1\n');
    r.write('config/local/secrets.json', '{}\n');
    r.write('name with spaces [x].txt', 'ok\n');
    r.git('rm', '--quiet', 'old.txt');
    const before = r.git('rev-parse', 'HEAD');

    const result = await commitAll(r.dir, { message: 'bestof: iteration 1', excludePaths: ['.env', 'config/local'] });
    expect(result.commit).toBeDefined();
    expect(result.commit).toBe(r.git('rev-parse', 'HEAD'));
    expect(result).toEqual({ commit: result.commit, changedFiles: 4 });
    expect(r.git('rev-parse', 'HEAD~1')).toBe(before);
    expect(r.git('log', '-1', '--format=%s')).toBe('bestof: iteration 1');
    expect(committedFiles(r)).toEqual(['README.md', 'name with spaces [x].txt', 'src/new.ts']);
    // the excluded files are still there, untracked
    expect(await untrackedFiles(r.dir)).toEqual(['.env', 'config/local/secrets.json']);
  });

  it('unstages an excluded path the agent staged itself', async () => {
    const r = repo();
    r.write('.env', 'SECRET=1\n');
    r.write('a.txt', 'a\n');
    r.git('add', '.env');
    const result = await commitAll(r.dir, { message: 'm', excludePaths: ['.env'] });
    expect(result.commit).toBeDefined();
    expect(committedFiles(r)).toEqual(['README.md', 'a.txt']);
  });

  it('handles thousands of excluded paths', async () => {
    const r = repo();
    const excluded: string[] = [];
    for (let i = 0; i < 3000; i++) excluded.push(`setup/generated-file-with-a-rather-long-name-${i}.txt`);
    mkdirSync(join(r.dir, 'setup'));
    for (const p of excluded.slice(0, 50)) writeFileSync(join(r.dir, p), 'x');
    r.write('setup/kept.txt', 'kept\n');
    const result = await commitAll(r.dir, { message: 'm', excludePaths: excluded });
    expect(result.commit).toBeDefined();
    expect(committedFiles(r)).toEqual(['README.md', 'setup/kept.txt']);
  });

  it('returns no commit when nothing changed (or only excluded files did)', async () => {
    const r = repo();
    const head = r.git('rev-parse', 'HEAD');
    expect(await commitAll(r.dir, { message: 'm' })).toEqual({ commit: undefined });
    r.write('.env', 'x\n');
    expect(await commitAll(r.dir, { message: 'm', excludePaths: ['.env'] })).toEqual({ commit: undefined });
    expect(r.git('rev-parse', 'HEAD')).toBe(head);
  });

  it('commits in a worktree without touching files outside it', async () => {
    const r = repo();
    const wt = join(tempDir(), 'wt');
    r.git('worktree', 'add', '--quiet', '-b', 'cand', wt);
    r.write('main-only.txt', 'main checkout file\n');
    writeFileSync(join(wt, 'cand.txt'), 'candidate\n');
    const result = await commitAll(wt, { message: 'cand' });
    expect(result.commit).toBe(r.git('rev-parse', 'cand'));
    expect(committedFiles(r, 'cand')).toEqual(['README.md', 'cand.txt']);
    expect(r.git('status', '--porcelain')).toBe('?? main-only.txt');
  });

  it('skips the user\'s commit hooks', async () => {
    const r = repo();
    mkdirSync(join(r.dir, '.git/hooks'), { recursive: true });
    writeFileSync(join(r.dir, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    r.write('a.txt', 'a\n');
    expect(() => r.commitAll('by hand')).toThrow(); // the hook does block a normal commit
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.commit).toBeDefined();
  });

  describe('without a git identity', () => {
    const saved: Record<string, string | undefined> = {};
    const vars = ['HOME', 'GIT_CONFIG_GLOBAL', 'GIT_CONFIG_NOSYSTEM', 'GIT_AUTHOR_NAME', 'GIT_AUTHOR_EMAIL', 'GIT_COMMITTER_NAME', 'GIT_COMMITTER_EMAIL', 'EMAIL'];
    afterEach(() => {
      for (const v of vars) {
        if (saved[v] === undefined) delete process.env[v];
        else process.env[v] = saved[v];
      }
    });

    it('commits as bestof <bestof@localhost>', async () => {
      const r = repo();
      const home = tempDir();
      writeFileSync(join(home, 'empty-gitconfig'), '');
      for (const v of vars) saved[v] = process.env[v];
      for (const v of vars) delete process.env[v];
      process.env.HOME = home;
      process.env.GIT_CONFIG_GLOBAL = join(home, 'empty-gitconfig');
      process.env.GIT_CONFIG_NOSYSTEM = '1';
      r.git('config', '--unset', 'user.name');
      r.git('config', '--unset', 'user.email');
      r.write('a.txt', 'a\n');
      const result = await commitAll(r.dir, { message: 'm' });
      expect(result.commit).toBeDefined();
      expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>')).toBe('bestof <bestof@localhost>|bestof <bestof@localhost>');
      // nothing was written to the user's config
      expect(r.git('config', '--list', '--show-origin').includes('bestof@localhost')).toBe(false);
    });
  });
});

describe('untrackedFiles', () => {
  it('lists untracked files, not ignored ones', async () => {
    const r = repo({ '.gitignore': '*.log\n' });
    r.write('b/new.txt', 'x');
    r.write('a.txt', 'x');
    r.write('debug.log', 'x');
    expect((await untrackedFiles(r.dir)).sort()).toEqual(['a.txt', 'b/new.txt']);
  });
});
