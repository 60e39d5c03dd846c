/**
 * The tmux commands every part of the driver runs (./tmux.ts says what the driver is): tmux
 * found once on PATH, `tmux -S <socket> -f /dev/null`-style calls through runProcess that never
 * reject, and the `=name` targets.
 */
import type { Env } from '../env.js';
import { err, ok, type Result } from '../result.js';
import { findOnPath } from './find-on-path.js';
import { runProcess } from './run-process.js';
import type { ProcessResult } from './types.js';

export interface TmuxSession {
  readonly socket: string;
  readonly name: string;
}

/** tmux commands answer in milliseconds; this only bounds a wedged server on a loaded machine. */
export const COMMAND_TIMEOUT_MS = 10_000;
const INSTALL_HINT = 'install tmux 3.0 or newer (Debian/Ubuntu: apt-get install tmux; Fedora: dnf install tmux; macOS: brew install tmux)';

/** tmux on PATH and its version ("3.3a"), or why not. */
export async function probeTmux(env: Env = process.env): Promise<Result<{ binary: string; version: string }>> {
  const binary = await findOnPath('tmux', env.PATH ?? '');
  if (binary === undefined) return err(`tmux is not on PATH: ${INSTALL_HINT}`);
  const result = await runProcess(binary, ['-V'], { cwd: '/', env: {}, timeoutMs: COMMAND_TIMEOUT_MS });
  const version = /^tmux\s+(\S+)/.exec(result.stdout.trim())?.[1];
  if (!result.ok || version === undefined) {
    return err(`${binary} -V did not print a tmux version (${describeFailure(result)}): ${INSTALL_HINT}`);
  }
  const major = /^(?:next-)?(\d+)\./.exec(version)?.[1];
  // A build from git says "master" or "next-3.5": no number to compare, take it as new enough.
  if (major !== undefined && Number(major) < 3) {
    return err(`tmux ${version} (${binary}) is too old: bestof needs 3.0 or newer; ${INSTALL_HINT}`);
  }
  return ok({ binary, version });
}

/** The tmux binary of this process's PATH, looked up once. */
let tmuxBinary: Promise<Result<{ binary: string; version: string }>> | undefined;
export function tmux(): Promise<Result<{ binary: string; version: string }>> {
  tmuxBinary ??= probeTmux();
  return tmuxBinary;
}

/** Runs `tmux -S socket ...args`; never rejects. */
export async function runTmux(
  socket: string,
  args: readonly string[],
  options: { input?: string; signal?: AbortSignal } = {},
): Promise<ProcessResult | undefined> {
  const found = await tmux();
  if (!found.ok) return undefined;
  return runProcess(found.value.binary, ['-S', socket, ...args], {
    cwd: '/',
    env: {},
    timeoutMs: COMMAND_TIMEOUT_MS,
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(options.signal !== undefined ? { signal: options.signal } : {}),
  });
}

export function describeFailure(result: ProcessResult | undefined): string {
  if (result === undefined) return 'tmux is missing';
  if (result.spawnError !== undefined) return result.spawnError;
  if (result.timedOut) return `no answer in ${COMMAND_TIMEOUT_MS / 1000} s`;
  if (result.canceled) return 'cancelled';
  const said = result.stderr.trim() || result.stdout.trim();
  const status = result.exitCode !== undefined ? `exit ${result.exitCode}` : `signal ${result.signal ?? '?'}`;
  return said !== '' ? `${said} (${status})` : status;
}

export const target = (session: TmuxSession): string => `=${session.name}`;
/** The session's (only) pane: `=name:` is its current window, whose current pane is the one. */
export const paneTarget = (session: TmuxSession): string => `=${session.name}:`;

export async function sessionAlive(session: TmuxSession): Promise<boolean> {
  return (await runTmux(session.socket, ['has-session', '-t', target(session)]))?.ok ?? false;
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
