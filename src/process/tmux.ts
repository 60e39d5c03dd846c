/**
 * A tmux driver: programs in detached tmux sessions that a person can watch or take over, and
 * that bestof reads (the screen) and types into (keys, bracketed paste). It knows nothing of
 * what runs in the pane.
 *
 * Every call is `tmux -S <socket> ...` through runProcess, so a run's sessions live on a tmux
 * server of its own and never touch the user's (nor read the user's ~/.tmux.conf: `-f
 * /dev/null`). Targets are written `=name` so that session "c1" never matches "c10".
 *
 * The program's environment. tmux gives a pane's program the server's global environment (the
 * environment of whichever client started the server, plus anything `set-environment -g` put
 * there later), never the environment of the client that asked for the session. So the program
 * is not started by tmux directly: tmux starts a small Node launcher (./tmux-launcher.ts) that
 * reads a JSON file holding the program, its argv, its cwd and its WHOLE environment, deletes
 * the file, and spawns the program with exactly that environment. The file is 0600 in a fresh
 * 0700 folder next to the socket, and startSession returns only once the launcher has deleted
 * it, then removes the folder: the secrets in the environment (API keys) never appear in any
 * argv (`ps`) nor in tmux's environment, and are on disk only for the launcher's start-up. The
 * argv goes through the file too: tmux would read an argument that ends in `;` as a command
 * separator. The launcher stays as the program's parent to write its exit status to
 * `exitFile` (a pane's own `pane_dead_status` is unreliable: tmux may leave the program a
 * zombie with an empty status).
 *
 * The server is started by the first session's `new-session` under `env -i` with nothing but
 * BESTOF_RUN_KEY and BESTOF_PROCESS_TAG (when the session's env has them): bestof finds a killed
 * run's leftovers by those variables (./tagged-processes.ts), and the server, the launchers and
 * the programs all carry them. (runProcess gives each tmux client a tag of its own and kills
 * whatever carries it once the client exits; `env -i` keeps that tag away from the server, which
 * outlives the client on purpose.)
 *
 * Killing: `kill-session` closes the pane's terminal, which hangs up its programs (SIGHUP); what
 * ignores that is SIGKILLed with its process group (the pane's program leads one) after a grace.
 */
import { randomBytes } from 'node:crypto';
import { access, constants, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, isAbsolute, join } from 'node:path';
import { err, ok, type Result } from '../result.js';
import { findOnPath } from './find-on-path.js';
import { killGroup } from './kill-tree.js';
import { runProcess } from './run-process.js';
import { LAUNCHER_SOURCE, type LaunchSpec } from './tmux-launcher.js';
import type { ProcessResult } from './types.js';

export interface TmuxSession {
  readonly socket: string;
  readonly name: string;
}

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
  readonly env: Readonly<Record<string, string | undefined>>;
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
/** tmux commands answer in milliseconds; this only bounds a wedged server on a loaded machine. */
const COMMAND_TIMEOUT_MS = 10_000;
/** The launcher is a fresh Node process: on a loaded machine its start can take seconds. */
const LAUNCH_TIMEOUT_MS = 20_000;
/** After kill-session, how long the pane's programs get to end on their SIGHUP before SIGKILL. */
const KILL_GRACE_MS = 1_000;
/** Linux allows 108 bytes in a Unix socket path, macOS 104. */
const MAX_SOCKET_PATH_BYTES = 100;
const SESSION_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const INSTALL_HINT = 'install tmux 3.0 or newer (Debian/Ubuntu: apt-get install tmux; Fedora: dnf install tmux; macOS: brew install tmux)';

/** tmux on PATH and its version ("3.3a"), or why not. */
export async function probeTmux(
  env: Readonly<Record<string, string | undefined>> = process.env,
): Promise<Result<{ binary: string; version: string }>> {
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
function tmux(): Promise<Result<{ binary: string; version: string }>> {
  tmuxBinary ??= probeTmux();
  return tmuxBinary;
}

/** Runs `tmux -S socket ...args`; never rejects. */
async function runTmux(
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

function describeFailure(result: ProcessResult | undefined): string {
  if (result === undefined) return 'tmux is missing';
  if (result.spawnError !== undefined) return result.spawnError;
  if (result.timedOut) return `no answer in ${COMMAND_TIMEOUT_MS / 1000} s`;
  if (result.canceled) return 'cancelled';
  const said = result.stderr.trim() || result.stdout.trim();
  const status = result.exitCode !== undefined ? `exit ${result.exitCode}` : `signal ${result.signal ?? '?'}`;
  return said !== '' ? `${said} (${status})` : status;
}

const target = (session: TmuxSession): string => `=${session.name}`;
/** The session's (only) pane: `=name:` is its current window, whose current pane is the one. */
const paneTarget = (session: TmuxSession): string => `=${session.name}:`;

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

    const serverEnv = ['BESTOF_RUN_KEY', 'BESTOF_PROCESS_TAG']
      .filter((name) => options.env[name] !== undefined)
      .map((name) => `${name}=${options.env[name]}`);
    const envBinary = (await findOnPath('env', process.env.PATH ?? '')) ?? '/usr/bin/env';
    const width = String(options.width ?? DEFAULT_WIDTH);
    const height = String(options.height ?? DEFAULT_HEIGHT);
    const created = await runProcess(
      envBinary,
      ['-i', ...serverEnv, found.value.binary, '-f', '/dev/null', '-S', options.socket,
        'new-session', '-d', '-s', options.name, '-x', width, '-y', height,
        '--', process.execPath, launcher, specFile],
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

function definedEntries(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
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

/** The visible screen as text (capture-pane -p), or "" when the session is gone. */
export async function capturePane(session: TmuxSession): Promise<string> {
  const result = await runTmux(session.socket, ['capture-pane', '-p', '-t', paneTarget(session)]);
  return result?.ok ? result.stdout : '';
}

/** Bracketed paste (load-buffer from stdin + paste-buffer -p -d), so several lines arrive as one prompt. Does not press Enter. */
export async function pasteText(session: TmuxSession, text: string): Promise<Result<void>> {
  const buffer = `bestof-paste-${randomBytes(6).toString('hex')}`;
  const loaded = await runTmux(session.socket, ['load-buffer', '-b', buffer, '-'], { input: text });
  if (!loaded?.ok) return err(`cannot paste into tmux session ${session.name}: ${describeFailure(loaded)}`);
  // -p: the program gets the text between ESC[200~ and ESC[201~ when it asked for bracketed
  // paste (and plain otherwise); newlines arrive as carriage returns, as from a terminal.
  const pasted = await runTmux(session.socket, ['paste-buffer', '-p', '-d', '-b', buffer, '-t', paneTarget(session)]);
  if (!pasted?.ok) {
    await runTmux(session.socket, ['delete-buffer', '-b', buffer]);
    return err(`cannot paste into tmux session ${session.name}: ${describeFailure(pasted)}`);
  }
  return ok();
}

/** send-keys of key names ("Enter", "C-c", "Escape", "Down"). */
export async function sendKeys(session: TmuxSession, ...keys: string[]): Promise<Result<void>> {
  if (keys.length === 0) return ok();
  const sent = await runTmux(session.socket, ['send-keys', '-t', paneTarget(session), ...keys.map(notASeparator)]);
  return sent?.ok ? ok() : err(`cannot send ${keys.join(' ')} to tmux session ${session.name}: ${describeFailure(sent)}`);
}

/** Types `text` literally, as keystrokes (send-keys -l). The text is in tmux's argv for a moment: no secrets. */
export async function typeText(session: TmuxSession, text: string): Promise<Result<void>> {
  if (text === '') return ok();
  const sent = await runTmux(session.socket, ['send-keys', '-l', '-t', paneTarget(session), '--', notASeparator(text)]);
  return sent?.ok ? ok() : err(`cannot type into tmux session ${session.name}: ${describeFailure(sent)}`);
}

/**
 * tmux reads an argument that ends in `;` as the end of a command (and drops the `;`), even
 * after `--`; one that ends in `\;` stands for a literal `;`.
 */
function notASeparator(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

export async function sessionAlive(session: TmuxSession): Promise<boolean> {
  return (await runTmux(session.socket, ['has-session', '-t', target(session)]))?.ok ?? false;
}

/**
 * Polls the screen until `ready(screen)` is true; on timeout or abort: err with the last
 * screen's text (trimmed), so the caller can show where it is stuck. `gone`: the session ended.
 */
export async function waitForScreen(
  session: TmuxSession,
  ready: (screen: string) => boolean,
  options: { timeoutMs: number; intervalMs?: number; signal?: AbortSignal },
): Promise<Result<string, { screen: string; reason: 'timeout' | 'aborted' | 'gone' }>> {
  const deadline = Date.now() + options.timeoutMs;
  let screen = '';
  for (;;) {
    if (options.signal?.aborted) return err({ screen: screen.trim(), reason: 'aborted' });
    const captured = await runTmux(session.socket, ['capture-pane', '-p', '-t', paneTarget(session)], {
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    if (captured?.ok) {
      screen = captured.stdout;
      if (ready(screen)) return ok(screen);
    } else if (options.signal?.aborted) {
      return err({ screen: screen.trim(), reason: 'aborted' });
    } else if (captured === undefined || (!captured.timedOut && !(await sessionAlive(session)))) {
      // A capture that failed because the machine is slow is retried; a session that is gone is not.
      return err({ screen: screen.trim(), reason: 'gone' });
    }
    if (Date.now() >= deadline) return err({ screen: screen.trim(), reason: 'timeout' });
    await sleep(Math.min(options.intervalMs ?? 100, Math.max(0, deadline - Date.now())), options.signal);
  }
}

/** Kills the session and its programs (SIGKILL after a grace to what ignores the hangup). Idempotent, never rejects. */
export async function killSession(session: TmuxSession): Promise<void> {
  try {
    const panes = await panePids(session.socket, ['-s', '-t', target(session)]);
    await runTmux(session.socket, ['kill-session', '-t', target(session)]);
    await endGroups(panes);
  } catch {
    // never rejects: there is nothing a caller could do about it
  }
}

/** Kills the server, every session on it and their programs, and removes the socket file. Idempotent, never rejects. */
export async function killServer(socket: string): Promise<void> {
  try {
    const panes = await panePids(socket, ['-a']);
    await runTmux(socket, ['kill-server']);
    await endGroups(panes);
  } catch {
    // as above
  }
  await rm(socket, { force: true }).catch(() => undefined);
}

/** The argv a person runs to watch (readOnly: `attach -r`) or take over the session. */
export function attachArgs(session: TmuxSession, options: { readOnly: boolean }): string[] {
  return ['tmux', '-S', session.socket, 'attach-session', ...(options.readOnly ? ['-r'] : []), '-t', target(session)];
}

/** The pane programs' pids (each leads a process group: tmux starts it in a session of its own). */
async function panePids(socket: string, scope: readonly string[]): Promise<number[]> {
  const listed = await runTmux(socket, ['list-panes', ...scope, '-F', '#{pane_pid}']);
  if (!listed?.ok) return [];
  return listed.stdout.split('\n').filter((line) => /^\d+$/.test(line)).map(Number).filter((pid) => pid > 1);
}

/** Waits up to the grace for each group to empty, then SIGKILLs what is left. */
async function endGroups(groups: readonly number[]): Promise<void> {
  const deadline = Date.now() + KILL_GRACE_MS;
  let left = groups.filter(groupAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(25);
    left = left.filter(groupAlive);
  }
  for (const pgid of left) killGroup(pgid, 'SIGKILL');
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
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
