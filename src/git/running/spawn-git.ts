/**
 * Starting one git process and collecting what it says: the only file of src/git that touches
 * node:child_process (an architecture test checks it). Everything else in src/git goes through
 * exec.ts, which adds the guards every call needs.
 *
 * Why not simple-git, which did this before: when a git process prints nothing (update-ref,
 * symbolic-ref, `reset --quiet`, `worktree add --quiet` ...), simple-git's completion plugin waits
 * another 50 ms after the process has closed before it answers, and no option turns that off. Most
 * of bestof's calls print nothing: about 15 of the 37 git calls of a candidate, 0.75 s of its 1.4 s
 * on a 500-file repository (scripts/bench-overhead.mjs). Nothing else of simple-git was used: its
 * argument screening was switched off (bestof itself sets the keys it refuses, to switch the
 * repository's programs off), errors were turned back into exit codes, and loading it cost startup
 * time (`bestof ls` 1.5x `node -e 0` for simple-git alone).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface GitRun {
  /** git's exit code; -1 when it was killed by a signal or could not start (stderr says which). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** The signal that ended git, when one did (code is then -1). */
  readonly killedBy?: NodeJS.Signals;
}

/**
 * Runs `git <args>` in `cwd` with exactly `env`; stdin is `input` when given, else empty. Resolves when the process has closed
 * its output, with what it printed. git leads a process group of its own. Rejects (an AbortError)
 * only when `signal` ended the call: then git gets SIGTERM, on which it removes its lock files and
 * stops what it started, and the promise settles as soon as git has exited (a program git started
 * may still hold the output open).
 */
export async function spawnGit(
  cwd: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  signal?: AbortSignal,
  input?: string,
): Promise<GitRun> {
  const run = await startGit(cwd, args, env, signal, input);
  // Once only: a git that someone kills again is a failure to report (failures.ts isGitKilledBySignal).
  return run.killedBy !== undefined && GROUP_STOP_SIGNALS.has(run.killedBy) ? startGit(cwd, args, env, signal, input) : run;
}

/**
 * The signals a person, a terminal or a supervisor sends bestof's whole process group to stop it
 * (Ctrl-C, systemd's or a CI runner's stop, a closed terminal). git leads a process group of its
 * own, but only from the instant after its fork: a git that bestof was starting just then is still
 * in bestof's group, gets the signal too and dies before it has run anything (3 times in 300
 * SIGTERMs to a run's group at random instants). bestof handles the signal itself (a cancel, or
 * nothing for SIGHUP), and the git call is made once more. A git that someone else kills with one
 * of them while it runs is started again too: git removes its lock files when it is killed so, and
 * a step it had completed fails the second time and says so.
 */
const GROUP_STOP_SIGNALS: ReadonlySet<NodeJS.Signals> = new Set(['SIGINT', 'SIGTERM', 'SIGHUP']);

function startGit(cwd: string, args: readonly string[], env: Readonly<Record<string, string>>, signal?: AbortSignal, input?: string): Promise<GitRun> {
  if (signal?.aborted) return Promise.reject(abortError(args, signal));
  return new Promise((resolve, reject) => {
    // A process group of its own, as every other child of bestof has (src/process/run-process.ts):
    // a signal to bestof's group (a terminal's Ctrl-C, `bestof bench` cancelling a trial) is
    // bestof's to handle; it reached git too, and a git killed in the middle of a candidate's
    // commit made that candidate fail with an internal error instead of ending cancelled with its
    // work kept. git stops when `signal` says so, or finishes its short call.
    const child =
      input === undefined
        ? spawn('git', [...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
        : spawn('git', [...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    if (input !== undefined && child.stdin) {
      // A git that exits before reading all of it (it refused the first line) is not an error here (EPIPE): its exit code says what happened.
      child.stdin.on('error', () => undefined);
      child.stdin.end(input);
    }
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let startError: Error | undefined;
    let aborted = false;
    let settled = false;
    const onAbort = (): void => {
      aborted = true;
      child.kill('SIGTERM');
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const settleAborted = (): void => {
      if (settled || !signal) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      child.stdout.destroy();
      child.stderr.destroy();
      reject(abortError(args, signal));
    };
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', (error) => {
      // Could not start (no git on PATH, no such folder, no more processes), or could not be signalled.
      startError ??= error;
    });
    child.on('exit', () => {
      if (aborted) settleAborted();
    });
    child.on('close', (code, killedBy) => {
      if (aborted) return settleAborted();
      if (settled) return;
      settled = true;
      signal?.removeEventListener('abort', onAbort);
      const said = Buffer.concat(stderr).toString('utf8');
      if (code !== null && startError === undefined) {
        resolve({ code, stdout: Buffer.concat(stdout).toString('utf8'), stderr: said });
        return;
      }
      const why = startError ? cannotStart(cwd, startError) : `git was killed by ${killedBy ?? 'a signal'}`;
      resolve({
        code: -1,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: said === '' ? why : `${said}\n${why}`,
        ...(!startError && killedBy ? { killedBy } : {}),
      });
    });
  });
}

function cannotStart(cwd: string, error: Error): string {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
    return existsSync(cwd) ? 'git could not be started: it is not installed or not on PATH' : `git could not be started in ${cwd}: the folder does not exist`;
  }
  return `git could not be started: ${error.message}`;
}

/** The error of a call that `signal` ended, naming git's subcommand. */
function abortError(args: readonly string[], signal: AbortSignal): Error {
  const err = new Error(`git ${subcommandOf(args) ?? ''} was aborted`, { cause: signal.reason });
  err.name = 'AbortError';
  return err;
}

/** The git subcommand in `args` (after global options such as `-c k=v`), lowercased. */
export function subcommandOf(args: readonly string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg.toLowerCase();
  }
  return undefined;
}
