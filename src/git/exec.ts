/**
 * The one way this package runs git: simple-git's `raw`, but with the exit code kept.
 *
 * simple-git only turns a non-zero exit into an error when git also wrote to stderr,
 * so `git merge` with conflicts or `git diff --quiet` would look like success. Here every
 * call returns `{ code, stdout, stderr }` and the caller decides what a non-zero code
 * means; `gitOut` is the strict variant for calls whose failure is a bug.
 *
 * Private to src/git: every other folder calls the named functions of src/git (an
 * architecture test checks it), so what git is asked to do stays in one place.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GitPluginError, simpleGit } from 'simple-git';

export interface GitRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface GitCallOptions {
  signal?: AbortSignal | undefined;
}

/** A git call that should not fail did: a bug or a broken environment, never a user situation. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(
    readonly args: readonly string[],
    readonly cwd: string,
    readonly run: GitRun,
  ) {
    super(`git ${args.join(' ')} failed in ${cwd} (exit ${run.code}): ${gitMessage(run.stderr || run.stdout)}`);
  }
}

function abortError(args: readonly string[], signal: AbortSignal): Error {
  const err = new Error(`git ${args[0] ?? ''} was aborted`, { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/** Runs `git <args>` in `cwd`. Resolves with the exit code; throws only on abort or when git cannot run. */
export async function runGit(cwd: string, args: readonly string[], opts: GitCallOptions = {}): Promise<GitRun> {
  const { signal } = opts;
  if (signal?.aborted) throw abortError(args, signal);
  let captured: { stdOut: Buffer[]; stdErr: Buffer[]; exitCode: number } | undefined;
  const git = simpleGit({
    baseDir: cwd,
    ...(signal ? { abort: signal } : {}),
    // simple-git's default ends a call 50 ms after the process *exits*, even if stdout has not been
    // read to the end: on a busy machine that silently truncates output (a diff missing files).
    // Wait for the streams to close. No exit-based fallback: simple-git never clears that
    // timer, so every git call would keep bestof alive for its full length after the run.
    completion: { onClose: true, onExit: false },
    // Keep the raw result and never turn an exit code into an error; only plugin
    // rejections (abort, blocked argument, timeout) still throw.
    errors: (error, result) => {
      captured = result;
      return error instanceof GitPluginError ? error : undefined;
    },
  });
  try {
    await git.raw([...args]);
  } catch (err) {
    if (signal?.aborted) throw abortError(args, signal);
    throw err;
  }
  // A signal that fires after git finished does not undo what git did: report the real result.
  if (!captured) throw new Error(`git ${args.join(' ')}: simple-git returned no result`);
  const run: GitRun = {
    code: captured.exitCode,
    stdout: Buffer.concat(captured.stdOut).toString('utf8'),
    stderr: Buffer.concat(captured.stdErr).toString('utf8'),
  };
  if (typeof run.code !== 'number' || run.code < 0) {
    // Killed by a signal, or git could not be spawned at all (not installed?).
    throw new GitCommandError(args, cwd, run);
  }
  return run;
}

/** Runs git and returns stdout; a non-zero exit throws GitCommandError (use for calls that must work). */
export async function gitOut(cwd: string, args: readonly string[], opts: GitCallOptions = {}): Promise<string> {
  const run = await runGit(cwd, args, opts);
  if (run.code !== 0) throw new GitCommandError(args, cwd, run);
  return run.stdout;
}

/**
 * What git said, on one line, for a user-facing message: `fatal:`/`error:` prefixes and `hint:`
 * lines dropped, the rest joined (so a list of files git names stays in), capped at 400 characters.
 */
export function gitMessage(text: string): string {
  const joined = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('hint:'))
    .map((l) => l.replace(/^(fatal|error|warning):\s*/, ''))
    .join(' ');
  return joined.length > 400 ? `${joined.slice(0, 399)}…` : joined;
}

/** Splits NUL-separated output (`-z`), dropping the trailing empty element. */
export function splitNul(text: string): string[] {
  const parts = text.split('\0');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Splits newline-separated output, dropping empty lines. */
export function splitLines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}

/**
 * Writes `pathspecs` NUL-separated to a temp file outside any worktree and hands the
 * `--pathspec-from-file=<f> --pathspec-file-nul` arguments to `fn`, so that thousands of
 * paths (or paths with newlines) never hit the command-line length limit.
 */
export async function withPathspecFile<T>(pathspecs: readonly string[], fn: (args: string[]) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'bestof-pathspec-'));
  try {
    const file = join(dir, 'pathspec');
    await writeFile(file, pathspecs.map((p) => `${p}\0`).join(''));
    return await fn([`--pathspec-from-file=${file}`, '--pathspec-file-nul']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `-c` arguments that give git an identity when the user has none configured, so commits in a
 * fresh container or CI box do not fail with "Please tell me who you are". An identity from the
 * environment (GIT_AUTHOR_EMAIL, ...) still wins over `-c`.
 */
export async function identityArgs(cwd: string, opts: GitCallOptions = {}): Promise<string[]> {
  const [email, name] = await Promise.all([
    runGit(cwd, ['config', 'user.email'], opts),
    runGit(cwd, ['config', 'user.name'], opts),
  ]);
  if (email.stdout.trim() === '') return ['-c', 'user.name=bestof', '-c', 'user.email=bestof@localhost'];
  if (name.stdout.trim() === '') return ['-c', 'user.name=bestof'];
  return [];
}
