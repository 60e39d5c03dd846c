/**
 * Real git repositories in temp folders, for integration tests (never a mocked git).
 * Local identity, gc off, one first commit; removed after the test.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';

export interface TempRepo {
  readonly dir: string;
  git(...args: string[]): string;
  write(path: string, content: string): void;
  commitAll(message: string): string;
  cleanup(): void;
}

export function makeTempDir(prefix = 'bestof-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function makeTempRepo(files: Record<string, string> = { 'README.md': '# test\n' }): TempRepo {
  const dir = makeTempDir('bestof-repo-');
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
  git('init', '--quiet', '--initial-branch=main');
  git('config', 'user.name', 'Test User');
  git('config', 'user.email', 'test@example.com');
  git('config', 'gc.auto', '0');
  git('config', 'commit.gpgsign', 'false');
  const write = (path: string, content: string): void => {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  };
  const commitAll = (message: string): string => {
    git('add', '-A');
    git('commit', '--quiet', '-m', message);
    return git('rev-parse', 'HEAD');
  };
  for (const [path, content] of Object.entries(files)) write(path, content);
  commitAll('initial');
  return {
    dir,
    git,
    write,
    commitAll,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * Temp repos and folders for one test file, removed after each test. Call at the top level
 * of the file: `const { repo, tempDir, onCleanup } = tempRepos();`.
 */
export function tempRepos(): {
  repo(files?: Record<string, string>): TempRepo;
  tempDir(): string;
  onCleanup(cleanup: () => void): void;
} {
  const cleanups: (() => void)[] = [];
  afterEach(() => {
    while (cleanups.length > 0) cleanups.pop()?.();
  });
  return {
    repo: (files) => {
      const r = makeTempRepo(files);
      cleanups.push(r.cleanup);
      return r;
    },
    tempDir: () => {
      const d = realpathSync(makeTempDir());
      cleanups.push(() => rmSync(d, { recursive: true, force: true }));
      return d;
    },
    onCleanup: (cleanup) => cleanups.push(cleanup),
  };
}
