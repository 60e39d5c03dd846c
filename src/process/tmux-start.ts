/**
 * Starting a program in a new detached tmux session with exactly the environment it is given
 * (the launcher and its spec file: see ./tmux.ts and ./tmux-launcher.ts), and reading the exit
 * status the launcher writes.
 */
import type { Env } from '../env.js';
import { access, constants, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { err, ok, type Result } from '../result.js';
import { findOnPath } from './find-on-path.js';
import { runProcess } from './run-process.js';
import { COMMAND_TIMEOUT_MS, describeFailure, runTmux, sessionAlive, sleep, target, tmux, type TmuxSession } from './tmux-command.js';
import { killSession } from './tmux-kill.js';
import { LAUNCHER_SOURCE, type LaunchSpec } from './tmux-launcher.js';

export interface StartOptions {
  /** Absolute path of the server's socket; its folder is created (0700). Keep it under ~100 bytes (a Unix socket path limit). */
  readonly socket: string;
  /** Session name, e.g. "c1": letters, digits, `_` and `-`. */
  readonly name: string;
  readonly cwd: string;
  /** Absolute path of the program (may be bwrap). */
  readonly command: string;
  readonly args: readonly string[];
  /**
   * The program's WHOLE environment. tmux does not pass the caller's environment to a new
   * session's programs and its global environment may hold stale variables: nothing but this
   * reaches the program (not even TERM: put one in, e.g. `tmux-256color`, what tmux emulates).
   */
  readonly env: Env;
  /** Pane size. Wide panes (>= 160 columns) open a side panel in Claude Code. @default 120 */
  readonly width?: number;
  /** @default 40 */
  readonly height?: number;
  /**
   * When the program ends, its exit status is written here: a decimal number and a newline, 128+N
   * when signal N ended it (a shell's `$?`), 127 when it could not be started (readExitStatus).
   * A stale file is removed at start. Not written when the launcher itself is SIGKILLed.
   */
  readonly exitFile: string;
  readonly signal?: AbortSignal;
}

const DEFAULT_WIDTH = 120;
const DEFAULT_HEIGHT = 40;
/** The launcher is a fresh Node process: on a loaded machine its start can take seconds. */
const LAUNCH_TIMEOUT_MS = 20_000;
/** Linux allows 108 bytes in a Unix socket path, macOS 104. */
const MAX_SOCKET_PATH_BYTES = 100;
const SESSION_NAME = /^[A-Za-z0-9_-]{1,64}$/;

async function checkStartOptions(options: StartOptions): Promise<Result<void>> {
  if (!SESSION_NAME.test(options.name)) {
    return err(`tmux session name "${options.name}" is not allowed: use 1-64 letters, digits, "_" or "-"`);
  }
  if (!isAbsolute(options.socket)) return err(`tmux socket path ${options.socket} must be absolute`);
  const bytes = Buffer.byteLength(options.socket);
  if (bytes > MAX_SOCKET_PATH_BYTES) {
    return err(`tmux socket path ${options.socket} is ${bytes} bytes long; Unix sockets allow about ${MAX_SOCKET_PATH_BYTES}: choose a shorter folder`);
  }
  if (!isAbsolute(options.command)) return err(`the program to start in tmux must be an absolute path, got "${options.command}"`);
  try {
    await access(options.command, constants.X_OK);
  } catch {
    return err(`cannot start ${options.command} in tmux: it does not exist or is not executable`);
  }
  try {
    if (!(await stat(options.cwd)).isDirectory()) return err(`cannot start ${options.command} in tmux: ${options.cwd} is not a folder`);
  } catch {
    return err(`cannot start ${options.command} in tmux: working directory ${options.cwd} not found`);
  }
  return ok();
}

/**
 * Starts `command args` in a new detached session (starting the socket's server if none runs)
 * and returns once the program has been spawned (its environment file read and deleted).
 */
export async function startSession(options: StartOptions): Promise<Result<TmuxSession>> {
  const checked = await checkStartOptions(options);
  if (!checked.ok) return checked;
  const found = await tmux();
  if (!found.ok) return found;
  if (options.signal?.aborted) return err(`starting tmux session ${options.name} was cancelled`);

  const session: TmuxSession = { socket: options.socket, name: options.name };
  const folder = dirname(options.socket);
  let specFolder: string;
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
    await mkdir(dirname(options.exitFile), { recursive: true });
    await rm(options.exitFile, { force: true });
    // A folder of our own even when the socket's folder is shared: the file holds secrets.
    specFolder = await mkdtemp(join(folder, '.start-'));
  } catch (error) {
    return err(`cannot start tmux session ${options.name}: cannot prepare ${folder} or ${options.exitFile}: ${(error as Error).message}`);
  }
  const specFile = join(specFolder, 'spec.json');
  try {
    const spec: LaunchSpec = {
      command: options.command,
      args: [...options.args],
      cwd: options.cwd,
      env: definedEntries(options.env),
      exitFile: options.exitFile,
    };
    const launcher = join(specFolder, 'launcher.cjs');
    try {
      await writeFile(specFile, JSON.stringify(spec), { mode: 0o600, flag: 'wx' });
      await writeFile(launcher, LAUNCHER_SOURCE, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      return err(`cannot start tmux session ${options.name}: cannot write its start files in ${specFolder}: ${(error as Error).message}`);
    }

    const serverEnv = ['BESTOF_RUN_KEY', 'BESTOF_PROCESS_TAG'].filter((name) => options.env[name] !== undefined).map((name) => `${name}=${options.env[name]}`);
    const envBinary = (await findOnPath('env', process.env.PATH ?? '')) ?? '/usr/bin/env';
    const width = String(options.width ?? DEFAULT_WIDTH);
    const height = String(options.height ?? DEFAULT_HEIGHT);
    const created = await runProcess(
      envBinary,
      [
        '-i',
        ...serverEnv,
        found.value.binary,
        '-f',
        '/dev/null',
        '-S',
        options.socket,
        'new-session',
        '-d',
        '-s',
        options.name,
        '-x',
        width,
        '-y',
        height,
        '--',
        process.execPath,
        launcher,
        specFile,
      ],
      { cwd: '/', env: {}, timeoutMs: COMMAND_TIMEOUT_MS, ...(options.signal !== undefined ? { signal: options.signal } : {}) },
    );
    if (!created.ok) {
      if (created.canceled) return err(`starting tmux session ${options.name} was cancelled`);
      return err(`cannot start tmux session ${options.name} on ${options.socket}: ${describeFailure(created)}`);
    }
    // A person who attaches must not resize the pane: what the program draws, and so what
    // bestof reads from the screen, stays the same whoever watches.
    await runTmux(options.socket, ['set-option', '-t', target(session), 'window-size', 'manual']);

    const launched = await waitForLaunch(session, specFile, options);
    if (!launched.ok) {
      await killSession(session);
      return launched;
    }
    return ok(session);
  } finally {
    await rm(specFolder, { recursive: true, force: true });
  }
}

function definedEntries(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) if (value !== undefined) out[name] = value;
  return out;
}

/** Waits until the launcher has read and deleted the spec file, i.e. the program was spawned. */
async function waitForLaunch(session: TmuxSession, specFile: string, options: StartOptions): Promise<Result<void>> {
  const deadline = Date.now() + LAUNCH_TIMEOUT_MS;
  for (let poll = 0; ; poll++) {
    if (!(await exists(specFile))) return ok();
    if (options.signal?.aborted) return err(`starting tmux session ${session.name} was cancelled`);
    if (poll % 10 === 9 && !(await sessionAlive(session))) {
      const status = await readExitStatus(options.exitFile);
      return err(`tmux session ${session.name} ended before it started ${options.command}${status !== undefined ? ` (exit status ${status})` : ''}`);
    }
    if (Date.now() > deadline) {
      return err(`tmux session ${session.name} did not start ${options.command} within ${LAUNCH_TIMEOUT_MS / 1000} s`);
    }
    await sleep(25, options.signal);
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** The exit status the launcher wrote to `exitFile`, or undefined while the program runs (or when it was SIGKILLed with its launcher). */
export async function readExitStatus(exitFile: string): Promise<number | undefined> {
  try {
    const text = (await readFile(exitFile, 'utf8')).trim();
    return /^\d+$/.test(text) ? Number(text) : undefined;
  } catch {
    return undefined;
  }
}
