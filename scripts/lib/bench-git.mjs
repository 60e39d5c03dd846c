/**
 * What the worktree benchmarks (scripts/bench-worktrees.mjs, scripts/bench-cow-run.mjs) share:
 * running a command as a value, a fixture repository, the aim's pair (one plain `git worktree add`
 * of the repository, timed), and waiting for what bestof deletes after a run (scripts/bench-overhead.mjs too).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFixtureFiles } from './fixture-files.mjs';

/** `command args` in `options.cwd` (default /), with `options.env` (default this process's): { code, stdout, stderr }, never a rejection. */
export function run(command, args, options = {}) {
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, { cwd: options.cwd ?? '/', env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', (error) => resolvePromise({ code: -1, stdout, stderr: error.message }));
    child.on('close', (code) => resolvePromise({ code: code ?? -1, stdout, stderr }));
  });
}

/** `run`, throwing (with the end of what the command said) unless it exits 0; resolves with its stdout. */
export async function must(command, args, options) {
  const result = await run(command, args, options);
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(' ')} failed (${result.code}): ${(result.stderr.trim() || result.stdout.trim()).slice(-2000)}`);
  return result.stdout;
}

export const git = (cwd, args) => must('git', args, { cwd });

export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/** A repository at `repo` with `files` generated files (scripts/lib/fixture-files.mjs) in one commit, on `main`. */
export async function createRepo(repo, files) {
  mkdirSync(repo, { recursive: true });
  await git(repo, ['init', '--quiet', '--initial-branch=main']);
  for (const [key, value] of [
    ['user.name', 'bench'],
    ['user.email', 'bench@localhost'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgsign', 'false'],
    ['core.autocrlf', 'false'],
  ]) {
    await git(repo, ['config', key, value]);
  }
  writeFixtureFiles(repo, files);
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '--quiet', '--no-verify', '-m', 'fixture']);
}

/** The aim's pair: one plain `git worktree add -b` of `ctx.repo` under `ctx.wtRoot`, timed (ms), then removed untimed. */
export async function singlePlainAdd(ctx, round) {
  const path = join(ctx.wtRoot, `single-${round}`);
  const t0 = performance.now();
  await git(ctx.repo, ['worktree', 'add', '--quiet', '-b', `bench/single-${round}`, path, 'HEAD']);
  const ms = performance.now() - t0;
  await git(ctx.repo, ['worktree', 'remove', '--force', path]);
  await git(ctx.repo, ['branch', '-D', '--quiet', `bench/single-${round}`]);
  return ms;
}

/**
 * bestof deletes the files of the worktrees it removed at the end of a run in a process of its own
 * that outlives it (`<worktree>.removing`, `.bestof-trash/`): untimed, nothing else runs until that
 * is done, or it would slow whatever is timed next.
 */
export async function untilDeletedAfterTheRun(worktrees) {
  const removing = (run) => {
    try {
      return readdirSync(join(worktrees, run)).some((name) => /\.removing(-\d+)?$/.test(name));
    } catch {
      return false; // a file, or gone
    }
  };
  const pending = () => existsSync(join(worktrees, '.bestof-trash')) || readdirSync(worktrees).some(removing);
  const deadline = performance.now() + 600_000;
  while (existsSync(worktrees) && pending()) {
    if (performance.now() > deadline) throw new Error(`the worktrees under ${worktrees} were not deleted within 10 minutes of the run`);
    await new Promise((resolvePromise) => setTimeout(resolvePromise, 50));
  }
}
