/**
 * Real git repositories in temp folders, for integration tests (never a mocked git).
 * Local identity, gc off, one first commit; removed after the test.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

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
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
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
