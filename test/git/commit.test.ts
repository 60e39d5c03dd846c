import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { rewordCommit } from '../../src/git/history/checkpoint.js';
import { commitAll, readCommitIdentity, untrackedFiles } from '../../src/git/history/commit.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();
const committedFiles = (r: TempRepo, rev = 'HEAD'): string[] => r.git('ls-tree', '-r', '--name-only', rev).split('\n').filter(Boolean).sort();

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
    // The header is what the commit object records: the reword builds on it without reading it back.
    expect(result).toEqual({ commit: result.commit, changedFiles: 4, skipped: [], header: { tree: r.git('rev-parse', 'HEAD^{tree}'), parents: [before] } });
    expect(r.git('rev-parse', 'HEAD~1')).toBe(before);
    expect(r.git('log', '-1', '--format=%s')).toBe('bestof: iteration 1');
    expect(r.git('reflog', '-1', '--format=%gs', 'main')).toBe('commit: bestof: iteration 1');
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
    expect(await commitAll(r.dir, { message: 'm' })).toEqual({ commit: undefined, skipped: [] });
    r.write('.env', 'x\n');
    expect(await commitAll(r.dir, { message: 'm', excludePaths: ['.env'] })).toEqual({ commit: undefined, skipped: [] });
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

  it("skips the user's commit hooks", async () => {
    const r = repo();
    mkdirSync(join(r.dir, '.git/hooks'), { recursive: true });
    writeFileSync(join(r.dir, '.git/hooks/pre-commit'), '#!/bin/sh\nexit 1\n', { mode: 0o755 });
    r.write('a.txt', 'a\n');
    expect(() => r.commitAll('by hand')).toThrow(); // the hook does block a normal commit
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.commit).toBeDefined();
  });

  it("keeps the identity the repository had at bestof's first commit there: one written or removed later (an agent without the sandbox) changes nothing", async () => {
    const r = repo();
    // The user's own setting, there from the start: git's precedence (author.* over user.*) holds.
    r.git('config', 'author.name', 'Test Author');
    const author = 'Test Author <test@example.com>|Test User <test@example.com>';
    r.write('a.txt', 'a\n');
    const first = await commitAll(r.dir, { message: 'first' });
    expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', first.commit ?? '')).toBe(author);

    r.git('config', 'user.name', 'Agent');
    r.git('config', 'user.email', 'agent@evil.example');
    r.git('config', 'committer.email', 'agent@evil.example');
    r.write('b.txt', 'b\n');
    const second = await commitAll(r.dir, { message: 'second' });
    expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', second.commit ?? '')).toBe(author);
    const reworded = await rewordCommit(r.dir, { commit: second.commit ?? '', branch: 'main', message: 'second, score 1' });
    expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', reworded.commit)).toBe(author);

    // An identity removed altogether does not make bestof's commit fail.
    r.git('config', '--unset', 'user.email');
    r.git('config', '--unset', 'committer.email');
    r.git('config', '--unset', 'author.name');
    r.write('c.txt', 'c\n');
    const third = await commitAll(r.dir, { message: 'third' });
    expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', third.commit ?? '')).toBe(author);
  });

  it('reads the identity once per repository, before any agent when the run asks (readCommitIdentity): a worktree whose first commit comes after a planted identity still commits as the user', async () => {
    const r = repo();
    const user = 'Test User <test@example.com>|Test User <test@example.com>';
    const calls = await recordGitCalls(tempDir(), async () => {
      await readCommitIdentity(r.dir); // as a run starts
      // Then an agent without the sandbox plants its own identity before its candidate's first commit.
      r.git('config', 'user.name', 'Agent');
      r.git('config', 'user.email', 'agent@evil.example');
      for (const name of ['c1', 'c2']) {
        const wt = join(tempDir(), name);
        r.git('worktree', 'add', '--quiet', '-b', `bestof/t/${name}`, wt);
        writeFileSync(join(wt, `${name}.txt`), `${name}\n`);
        const made = await commitAll(wt, { message: name });
        expect(r.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', made.commit ?? '')).toBe(user);
      }
    });
    // One `git config` for the identity, for the repository and both worktrees.
    expect(calls.calls.filter((c) => / config -z --get-regexp \^\(user/.test(` ${c}`))).toHaveLength(1);
  });

  describe('without a git identity', () => {
    const saved: Record<string, string | undefined> = {};
    const vars = [
      'HOME',
      'GIT_CONFIG_GLOBAL',
      'GIT_CONFIG_NOSYSTEM',
      'GIT_AUTHOR_NAME',
      'GIT_AUTHOR_EMAIL',
      'GIT_COMMITTER_NAME',
      'GIT_COMMITTER_EMAIL',
      'EMAIL',
    ];
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

/**
 * A rival that moves the branch while bestof commits (possible without the sandbox), made
 * deterministic: a `git` first on PATH that, right after the first git call of one of the
 * `after` subcommands, points `branch` at `rival`. bestof starts git from PATH.
 */
async function withBranchMovedAfter<T>(r: TempRepo, after: readonly string[], branch: string, rival: string, fn: () => Promise<T>): Promise<T> {
  const dir = tempDir();
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const script = [
    '#!/bin/sh',
    'sub=""; skip=0',
    'for a in "$@"; do',
    '  if [ "$skip" = 1 ]; then skip=0; continue; fi',
    '  case "$a" in -c|-C) skip=1 ;; -*) ;; *) sub="$a"; break ;; esac',
    'done',
    `'${real}' "$@"; rc=$?`,
    `case " ${after.join(' ')} " in *" $sub "*)`,
    `  if mkdir '${join(dir, 'moved')}' 2>/dev/null; then '${real}' -C '${r.dir}' update-ref 'refs/heads/${branch}' '${rival}'; fi ;;`,
    'esac',
    'exit $rc',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'git'), script, { mode: 0o755 });
  const path = process.env.PATH;
  process.env.PATH = `${dir}:${path ?? ''}`;
  try {
    return await fn();
  } finally {
    process.env.PATH = path;
    expect(existsSync(join(dir, 'moved')), `the branch was moved after git ${after.join('/')}`).toBe(true);
  }
}

/** A rival's commit on top of `parent`: its tree plus `files`, made without touching the repo's index or files. */
function rivalCommit(r: TempRepo, parent: string, files: Record<string, string>): string {
  const index = join(tempDir(), 'index');
  const env = { ...process.env, GIT_INDEX_FILE: index };
  const git = (args: string[], input?: string): string =>
    execFileSync('git', args, { cwd: r.dir, env, encoding: 'utf8', ...(input !== undefined ? { input } : {}) }).trim();
  git(['read-tree', parent]);
  for (const [path, content] of Object.entries(files))
    git(['update-index', '--add', '--cacheinfo', `100644,${git(['hash-object', '-w', '--stdin'], content)},${path}`]);
  return git(['commit-tree', git(['write-tree']), '-p', parent, '-m', 'rival']);
}

describe('commitAll while a rival moves the branch (without the sandbox)', () => {
  it('records the commit it made, never the one the branch was moved to after git made it', async () => {
    const r = repo();
    const before = r.git('rev-parse', 'HEAD');
    const rival = rivalCommit(r, before, { 'PWNED.txt': 'rival\n' });
    r.write('a.txt', 'a\n');

    // `commit` is the git call of a commit made the porcelain way, `commit-tree` the plumbing one.
    const result = await withBranchMovedAfter(r, ['commit', 'commit-tree'], 'main', rival, () => commitAll(r.dir, { message: 'mine' }));

    expect(result.commit).toBeDefined();
    expect(result.commit).not.toBe(rival);
    expect(r.git('rev-parse', `${result.commit ?? ''}^`)).toBe(before);
    expect(committedFiles(r, result.commit)).toEqual(['README.md', 'a.txt']);
    expect(r.git('log', '-1', '--format=%s', result.commit ?? '')).toBe('mine');
    // Without `onto`, the branch is not known to be bestof's: it stays where the rival put it.
    expect(result).toMatchObject({ changedFiles: 1, branchWasMoved: rival });
    expect(r.git('rev-parse', 'main')).toBe(rival);
  });

  it('builds on the head it was given (onto), leaves out an excluded file the rival commit holds, and puts its branch back on its own commit', async () => {
    const r = repo();
    const wt = join(tempDir(), 'wt');
    r.git('worktree', 'add', '--quiet', '-b', 'bestof/t/c1', wt);
    const before = r.git('rev-parse', 'HEAD');
    const rival = rivalCommit(r, before, { 'PWNED.txt': 'rival\n', '.env': 'RIVAL=1\n' });
    writeFileSync(join(wt, 'a.txt'), 'a\n');
    writeFileSync(join(wt, '.env'), 'SECRET=1\n');
    execFileSync('git', ['add', '.env'], { cwd: wt });

    // Moved right after `git add`, before anything is committed (and before the excluded path is unstaged).
    const result = await withBranchMovedAfter(r, ['add'], 'bestof/t/c1', rival, () =>
      commitAll(wt, { message: 'mine', excludePaths: ['.env'], onto: { branch: 'bestof/t/c1', head: before } }),
    );

    expect(result.commit).toBeDefined();
    expect(r.git('rev-parse', `${result.commit ?? ''}^`)).toBe(before);
    expect(committedFiles(r, result.commit)).toEqual(['README.md', 'a.txt']);
    expect(result).toMatchObject({ changedFiles: 1, branchWasMoved: rival });
    // The candidate's branch is bestof's: back on the commit it made, the worktree clean but for the excluded file.
    expect(r.git('rev-parse', 'bestof/t/c1')).toBe(result.commit);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: wt, encoding: 'utf8' })).toBe('?? .env\n');
  });
});

describe('commitAll: files that must not be committed', () => {
  const SECRET = 'env-secret-value-0123456789';
  const secrets = createSecretSet([['FAKE_SERVICE_TOKEN', SECRET]]);
  /** Every object in the repository's database, contents included. */
  const allObjects = (r: TempRepo): string =>
    execFileSync('git', ['cat-file', '--batch-all-objects', '--batch'], { cwd: r.dir, maxBuffer: 64 * 1024 * 1024 }).toString('latin1');
  const hasObject = (r: TempRepo, path: string): boolean => {
    const id = r.git('hash-object', path);
    try {
      r.git('cat-file', '-e', id);
      return true;
    } catch {
      return false;
    }
  };

  it('leaves out a file over the limit, before git add: never in .git/objects; the rest is committed', async () => {
    const r = repo();
    r.write('src/work.ts', 'export const work = 1;\n');
    writeFileSync(join(r.dir, 'dump.bin'), Buffer.alloc(3000, 7));
    const result = await commitAll(r.dir, { message: 'm', maxFileSizeBytes: 1024 });
    expect(result.commit).toBeDefined();
    expect(result.skipped).toEqual([{ path: 'dump.bin', reason: 'too_large', detail: '2.9 KB > git.max_file_size 1 KB' }]);
    expect(committedFiles(r)).toEqual(['README.md', 'src/work.ts']);
    expect(hasObject(r, 'dump.bin')).toBe(false);
    expect(existsSync(join(r.dir, 'dump.bin'))).toBe(true);
  });

  it('leaves out a file holding a secret value, and says which variable without the value', async () => {
    const r = repo();
    r.write('env-dump.txt', `HOME=/home/x\nFAKE_SERVICE_TOKEN=${SECRET}\n`);
    r.write('notes.txt', 'fine\n');
    const result = await commitAll(r.dir, { message: 'm', secrets });
    expect(result.skipped).toEqual([{ path: 'env-dump.txt', reason: 'secret', detail: 'holds the value of FAKE_SERVICE_TOKEN' }]);
    expect(committedFiles(r)).toEqual(['README.md', 'notes.txt']);
    expect(allObjects(r)).not.toContain(SECRET);
    expect(r.git('status', '--porcelain')).toBe('?? env-dump.txt');
  });

  it('edits hidden by the index bits (assume-unchanged, skip-worktree) are committed, and one holding a secret is left out', async () => {
    const r = repo({ 'README.md': '# hi\n', 'hidden.txt': 'was\n', 'config.txt': 'a = 1\n' });
    r.git('update-index', '--assume-unchanged', 'hidden.txt');
    r.git('update-index', '--skip-worktree', 'config.txt');
    r.write('hidden.txt', 'changed\n');
    r.write('config.txt', `token = "${SECRET}"\n`);
    // What the filter's `git status` sees while the bits are set: nothing changed.
    expect(r.git('status', '--porcelain')).toBe('');
    const result = await commitAll(r.dir, { message: 'm', secrets });
    expect(result.skipped).toEqual([{ path: 'config.txt', reason: 'secret', detail: 'holds the value of FAKE_SERVICE_TOKEN' }]);
    expect(r.git('show', 'HEAD:hidden.txt')).toBe('changed');
    expect(r.git('show', 'HEAD:config.txt')).toBe('a = 1');
    expect(allObjects(r)).not.toContain(SECRET);
  });

  it('an already tracked file grown past the limit or given a secret keeps its committed version', async () => {
    const r = repo({ 'README.md': '# hi\n', 'data.txt': 'small\n', 'config.txt': 'a = 1\n' });
    writeFileSync(join(r.dir, 'data.txt'), 'x'.repeat(5000));
    r.write('config.txt', `token = "${SECRET}"\n`);
    r.write('other.txt', 'other\n');
    const result = await commitAll(r.dir, { message: 'm', secrets, maxFileSizeBytes: 1024 });
    expect(result.skipped.map((file) => `${file.path}: ${file.reason}`)).toEqual(['config.txt: secret', 'data.txt: too_large']);
    expect(r.git('show', 'HEAD:data.txt')).toBe('small');
    expect(r.git('show', 'HEAD:config.txt')).toBe('a = 1');
    expect(committedFiles(r)).toEqual(['README.md', 'config.txt', 'data.txt', 'other.txt']);
    expect(readFileSync(join(r.dir, 'data.txt'), 'utf8')).toHaveLength(5000);
    expect(allObjects(r)).not.toContain(SECRET);
  });

  it('a file the agent staged itself is left out of the commit too', async () => {
    const r = repo();
    r.write('env-dump.txt', `${SECRET}\n`);
    r.write('kept.txt', 'kept\n');
    r.git('add', 'env-dump.txt');
    const result = await commitAll(r.dir, { message: 'm', secrets });
    expect(result.skipped.map((file) => file.path)).toEqual(['env-dump.txt']);
    expect(committedFiles(r)).toEqual(['README.md', 'kept.txt']);
    expect(r.git('log', '-p', '--all')).not.toContain(SECRET);
  });

  it('nothing to commit but a left-out file: no commit, and the file is reported', async () => {
    const r = repo();
    const head = r.git('rev-parse', 'HEAD');
    r.write('env-dump.txt', `${SECRET}\n`);
    expect(await commitAll(r.dir, { message: 'm', secrets })).toEqual({
      commit: undefined,
      skipped: [{ path: 'env-dump.txt', reason: 'secret', detail: 'holds the value of FAKE_SERVICE_TOKEN' }],
    });
    expect(r.git('rev-parse', 'HEAD')).toBe(head);
  });

  it('excluded paths are not looked at, nor reported', async () => {
    const r = repo();
    r.write('.env', `TOKEN=${SECRET}\n`);
    r.write('setup/big.bin', 'y'.repeat(4000));
    r.write('a.txt', 'a\n');
    const result = await commitAll(r.dir, { message: 'm', secrets, maxFileSizeBytes: 1024, excludePaths: ['.env', 'setup'] });
    expect(result.skipped).toEqual([]);
    expect(committedFiles(r)).toEqual(['README.md', 'a.txt']);
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
