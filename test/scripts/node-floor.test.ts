/**
 * The Node floor of the overhead benchmark (scripts/lib/node-floor.mjs): run for real on a temp
 * repo, it must do the bash baseline's work (a worktree per candidate on its own branch, the agent's
 * file committed there, the kept ref, the worktree gone again) and write the baseline's timings
 * format, or the benchmark's floor would time less work than the baseline's.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo: tempRepo, tempDir } = tempRepos();
const NODE_FLOOR = join(PROJECT_ROOT, 'scripts', 'lib', 'node-floor.mjs');

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe.each([
  { count: 3, concurrency: 2, how: 'two at a time: worktree add --no-checkout under its lock, then reset --hard; rm and prune' },
  { count: 2, concurrency: 1, how: 'one at a time: worktree add -b, worktree remove' },
])('the Node floor, $count candidates $how', ({ count, concurrency }) => {
  it("does the baseline's steps for every candidate and writes one timings line each", () => {
    const repo = tempRepo().dir;
    const base = git(repo, 'rev-parse', 'HEAD');
    const dir = tempDir();
    const worktrees = join(dir, 'wt');
    const timings = join(dir, 'timings.txt');
    execFileSync(process.execPath, [NODE_FLOOR, repo, worktrees, 't1', String(count), String(concurrency), timings, 'written by the floor\n'], { cwd: repo });

    const ids = Array.from({ length: count }, (_, i) => `c${i + 1}`);
    for (const id of ids) {
      // The commit on the candidate's branch holds the agent's file over the base, and the kept ref points at it.
      const tip = git(repo, 'rev-parse', `refs/heads/baseline/t1/${id}`);
      expect(git(repo, 'rev-parse', `${tip}^`)).toBe(base);
      expect(git(repo, 'show', `${tip}:bench-output.txt`)).toBe('written by the floor');
      expect(git(repo, 'rev-parse', `refs/baseline/t1/${id}/kept`)).toBe(tip);
    }
    // Every worktree removed, files and record.
    expect(existsSync(worktrees) ? readdirSync(worktrees) : []).toEqual([]);
    expect(
      git(repo, 'worktree', 'list', '--porcelain')
        .split('\n')
        .filter((line) => line.startsWith('worktree ')),
    ).toHaveLength(1);

    const lines = readFileSync(timings, 'utf8').trim().split('\n');
    expect(lines.map((line) => line.split(' ')[0]).sort()).toEqual(ids);
    for (const line of lines) {
      const stamps = line.split(' ').slice(1).map(Number);
      expect(stamps).toHaveLength(7);
      // Seconds since the epoch, in the order the steps ran.
      expect(stamps.every((s) => s > 1.6e9)).toBe(true);
      expect([...stamps].sort((a, b) => a - b)).toEqual(stamps);
    }
  });
});

it('the Node floor refuses missing arguments with its usage and exit 2', () => {
  let status: number | null = null;
  let stderr = '';
  try {
    execFileSync(process.execPath, [NODE_FLOOR, tempDir()], { encoding: 'utf8', stdio: 'pipe' });
  } catch (error) {
    status = (error as { status: number | null }).status;
    stderr = String((error as { stderr: string }).stderr);
  }
  expect(status).toBe(2);
  expect(stderr).toMatch(/^usage: node-floor\.mjs/);
});
