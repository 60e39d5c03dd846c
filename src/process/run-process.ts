/**
 * Runs child processes (agents, checks, setup commands) as values: runProcess never rejects
 * for anything the child does. See ./types.ts for the contract.
 *
 * Every child leads its own process group (`detached: true`). Timeout and abort send SIGTERM
 * to the group, then SIGKILL after a grace period; and once the child itself has exited,
 * whatever is left of its group is SIGKILLed, so background grandchildren cannot outlive it.
 * A grandchild that left the group (`setsid`) is found by the random BESTOF_PROCESS_TAG every
 * child gets in its environment, which its descendants inherit, and SIGKILLed as well
 * (./tagged-processes.ts).
 *
 * The children started and not yet reaped are kept in a set, so that bestof can kill them
 * all synchronously right before it exits (killAllChildrenNow: a second Ctrl-C).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { performance } from 'node:perf_hooks';
import { MAX_ARG_BYTES } from './arg-limit.js';
import { openCappedLog, type CappedLog } from './capped-log.js';
import { killGroup } from './kill-tree.js';
import { LineSplitter } from './line-splitter.js';
import { newProcessTag, PROCESS_TAG_VAR, signalProcessesWithEnv } from './tagged-processes.js';
import { withoutCapabilities } from './capabilities.js';
import type { ProcessResult, RunProcessOptions } from './types.js';

const DEFAULT_KILL_GRACE_MS = 1000;
const DEFAULT_MAX_BUFFER_TAIL = 65_536;
/**
 * After the child exited and its group and tagged processes were killed, the pipes normally
 * reach EOF at once. Only a grandchild that escaped both (setsid and a cleared environment)
 * can still hold them open; we wait this long for it and then stop reading.
 */
const DRAIN_MS = 500;

/**
 * Runs `bash -c command`. Only for the spec author's own commands (checks and setup), which
 * are shell snippets by design; never pass text that came from an agent or a model here.
 */
export async function runShell(command: string, options: RunProcessOptions): Promise<ProcessResult> {
  return runProcess('bash', ['-c', command], options);
}

/** Children started and not yet swept after their exit: process group id -> tag. */
const liveChildren = new Map<number, string>();

/**
 * SIGKILLs, synchronously, every child runProcess has started and not yet reaped, its whole
 * group, and every process carrying its tag (daemons it started). For a bestof that must
 * exit now; the runProcess calls still pending then see their child killed by a signal.
 */
export function killAllChildrenNow(): void {
  for (const pid of liveChildren.keys()) killGroup(pid, 'SIGKILL');
  if (liveChildren.size > 0) signalProcessesWithEnv(PROCESS_TAG_VAR, liveChildren.values(), 'SIGKILL');
}

/** The child is gone: whatever is left of its group, and whatever carries its tag (a daemon that left the group), goes with it. */
function sweepAfterExit(pid: number, tag: string): void {
  killGroup(pid, 'SIGKILL');
  signalProcessesWithEnv(PROCESS_TAG_VAR, [tag], 'SIGKILL');
  liveChildren.delete(pid);
}

type Outcome = { kind: 'exit'; code: number | null; signal: NodeJS.Signals | null } | { kind: 'spawnError'; message: string };

export async function runProcess(file: string, args: readonly string[], options: RunProcessOptions): Promise<ProcessResult> {
  const start = performance.now();
  const maxTail = options.maxBufferTail ?? DEFAULT_MAX_BUFFER_TAIL;
  const notStarted = (extra: Partial<ProcessResult>): ProcessResult => notStartedResult(start, extra);
  if (options.signal?.aborted) return notStarted({ canceled: true });

  const opened = await openRawLog(options);
  if ('error' in opened) return notStarted({ spawnError: opened.error });
  const { log, redactor, writeLog } = opened;

  // A throwing line callback is a bug in our code: kill the child and rethrow at the end.
  let callbackError: unknown;
  const guard = (fn: ((line: string) => void) | undefined) => (line: string) => {
    if (fn === undefined || callbackError !== undefined) return;
    try {
      fn(line);
    } catch (error) {
      callbackError = error;
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
    }
  };
  const out = new OutputSink(maxTail, guard(options.onStdoutLine), writeLog);
  const err = new OutputSink(maxTail, guard(options.onStderrLine), writeLog);

  const launch = withoutCapabilities(file, args, options.env.PATH ?? process.env.PATH);
  if (launch === undefined) return notStarted({ spawnError: `cannot start ${file}: not found (ENOENT)` });
  const tag = newProcessTag();
  let child: ChildProcess;
  try {
    child = spawn(launch.file, launch.args, {
      cwd: options.cwd,
      env: { ...options.env, [PROCESS_TAG_VAR]: tag },
      detached: true,
      stdio: [options.input !== undefined ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // Node throws at once, instead of emitting 'error', for an argument it refuses (one with a NUL
    // byte) and for what the system refuses other than ENOENT, EACCES, EAGAIN, EMFILE and ENFILE:
    // E2BIG, an argument over 128 KiB (a prompt passed as `{prompt}`) or arguments and environment
    // over the system's limit. Still a process that did not start: a value, not an exception.
    if (log !== undefined) await log.close();
    return notStarted({ spawnError: spawnErrorMessage(file, options.cwd, error as NodeJS.ErrnoException) });
  }
  if (child.pid !== undefined) liveChildren.set(child.pid, tag);
  connectStreams(child, out, err, options.input);

  const outcome = outcomeOf(child, file, options.cwd);
  const termination = watchForTermination(child, options);
  const result = await outcome;
  const durationMs = performance.now() - start;
  termination.stop();
  // The child is gone; take whatever it left behind with it (before draining: a daemon holding the pipes then closes them).
  if (child.pid !== undefined) sweepAfterExit(child.pid, tag);

  await Promise.all([drain(child.stdout), drain(child.stderr)]);
  out.end();
  err.end();
  if (log !== undefined) {
    if (redactor) log.write(redactor.end());
    await log.close();
  }
  if (callbackError !== undefined) throw callbackError;

  const { timedOut, canceled } = termination;
  const exitCode = result.kind === 'exit' ? (result.code ?? undefined) : undefined;
  const spawnError = result.kind === 'spawnError' ? result.message : undefined;
  return {
    exitCode,
    signal: result.kind === 'exit' ? (result.signal ?? undefined) : undefined,
    timedOut,
    canceled,
    spawnError,
    durationMs,
    stdout: out.tail(),
    stderr: err.tail(),
    ok: exitCode === 0 && !timedOut && !canceled && spawnError === undefined,
  };
}

/** The result of a child that never started (canceled before, or refused): nothing ran, nothing to read. */
function notStartedResult(start: number, extra: Partial<ProcessResult>): ProcessResult {
  return {
    exitCode: undefined,
    signal: undefined,
    timedOut: false,
    canceled: false,
    spawnError: undefined,
    durationMs: performance.now() - start,
    stdout: '',
    stderr: '',
    ok: false,
    ...extra,
  };
}

interface RawLog {
  readonly log: CappedLog | undefined;
  readonly redactor: RunProcessOptions['logRedactor'];
  readonly writeLog: ((chunk: Uint8Array) => void) | undefined;
}

/**
 * The raw log keeps the first and the last MB of the output (./capped-log.ts: an agent that prints
 * gigabytes does not fill the disk) and never fails the run; what goes into it passes the
 * caller's secret redaction first, which holds back the end of a chunk until the next one so that
 * a secret cut across two chunks is still found. A log that cannot be opened is an error value.
 */
async function openRawLog(options: RunProcessOptions): Promise<RawLog | { readonly error: string }> {
  let log: CappedLog | undefined;
  if (options.logFile !== undefined) {
    try {
      log = await openCappedLog(options.logFile);
    } catch (error) {
      return { error: `cannot open log file ${options.logFile}: ${(error as Error).message}` };
    }
  }
  const redactor = log !== undefined ? options.logRedactor : undefined;
  const writeLog = log === undefined ? undefined : (chunk: Uint8Array): void => log.write(redactor ? redactor.push(chunk) : chunk);
  return { log, redactor, writeLog };
}

/** The child's output into the sinks, and its input (if any) into its stdin, which is then closed. */
function connectStreams(child: ChildProcess, out: OutputSink, err: OutputSink, input: string | undefined): void {
  child.stdout?.on('data', (chunk: Uint8Array) => out.push(chunk));
  child.stderr?.on('data', (chunk: Uint8Array) => err.push(chunk));
  if (input !== undefined && child.stdin) {
    // A child that exits without reading all of its input is not an error of ours (EPIPE).
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  }
}

/** How the child ended: its exit, or the error that kept it from starting. */
function outcomeOf(child: ChildProcess, file: string, cwd: string): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    // Resolve on 'exit', not on 'close': that one also waits for the pipes to close, which a
    // grandchild holding them open would delay forever.
    child.once('exit', (code, signal) => resolve({ kind: 'exit', code, signal }));
    // The child could not be started (ENOENT, EACCES, no such folder): no 'exit' comes then.
    // An 'error' of a started child (a failed kill) leaves the outcome to 'exit'.
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (child.pid === undefined) resolve({ kind: 'spawnError', message: spawnErrorMessage(file, cwd, error) });
    });
  });
}

/** Why the child was stopped, if it was; `stop` clears the timers and the abort listener once it has exited. */
interface Termination {
  readonly timedOut: boolean;
  readonly canceled: boolean;
  stop(): void;
}

/**
 * The timeout and the caller's abort: either sends SIGTERM to the child's group, then SIGKILL
 * after the grace period. The first one to come is the reason recorded.
 */
function watchForTermination(child: ChildProcess, options: RunProcessOptions): Termination {
  let timedOut = false;
  let canceled = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const terminate = (reason: 'timeout' | 'abort') => {
    if (timedOut || canceled || child.pid === undefined) return;
    if (reason === 'timeout') timedOut = true;
    else canceled = true;
    killGroup(child.pid, 'SIGTERM');
    const pid = child.pid;
    graceTimer = setTimeout(() => killGroup(pid, 'SIGKILL'), options.killGraceMs ?? DEFAULT_KILL_GRACE_MS);
  };
  const timeoutTimer = options.timeoutMs !== undefined ? setTimeout(() => terminate('timeout'), options.timeoutMs) : undefined;
  const onAbort = () => terminate('abort');
  // The signal may have been aborted while we were opening the log file.
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  return {
    get timedOut() {
      return timedOut;
    },
    get canceled() {
      return canceled;
    },
    stop() {
      clearTimeout(timeoutTimer);
      clearTimeout(graceTimer);
      options.signal?.removeEventListener('abort', onAbort);
    },
  };
}

/** Line splitting, raw logging and a bounded tail for one output stream. */
class OutputSink {
  private readonly lines: LineSplitter;
  private chunks: Uint8Array[] = [];
  private size = 0;

  constructor(
    private readonly maxTail: number,
    onLine: (line: string) => void,
    private readonly writeLog: ((chunk: Uint8Array) => void) | undefined,
  ) {
    this.lines = new LineSplitter(onLine, Math.max(maxTail, 1 << 16));
  }

  push(chunk: Uint8Array): void {
    this.writeLog?.(chunk);
    this.lines.push(chunk);
    if (this.maxTail <= 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Drop whole chunks while the rest still covers the tail; the last cut happens in tail().
    while (this.chunks.length > 1 && this.size - this.chunks[0]!.length >= this.maxTail) {
      this.size -= this.chunks.shift()!.length;
    }
  }

  end(): void {
    this.lines.end();
  }

  tail(): string {
    let bytes = Buffer.concat(this.chunks);
    if (bytes.length > this.maxTail) {
      bytes = bytes.subarray(bytes.length - this.maxTail);
      // Don't start in the middle of a UTF-8 character (skip continuation bytes 10xxxxxx).
      let skip = 0;
      while (skip < 3 && skip < bytes.length && (bytes[skip]! & 0xc0) === 0x80) skip++;
      bytes = bytes.subarray(skip);
    }
    return bytes.toString('utf8');
  }
}

/** Waits until what is already in the pipe has been read (EOF), at most DRAIN_MS. */
async function drain(stream: Readable | null): Promise<void> {
  if (stream === null || stream.closed || stream.destroyed) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      stream.destroy();
      resolve();
    }, DRAIN_MS);
    stream.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function spawnErrorMessage(file: string, cwd: string, error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOENT' && !existsSync(cwd)) {
    return `cannot start ${file}: working directory ${cwd} not found (ENOENT)`;
  }
  const reasons: Record<string, string> = {
    ENOENT: 'not found',
    EACCES: 'permission denied',
    E2BIG: `its arguments are too long for the system (one argument may be at most ${MAX_ARG_BYTES / 1024} KiB on Linux, and all of them with the environment at most a few MB)`,
    ERR_INVALID_ARG_VALUE: 'an argument or a value of its environment holds a NUL byte, which no program can be given',
  };
  const reason = (error.code !== undefined ? reasons[error.code] : undefined) ?? error.message;
  return `cannot start ${file}: ${reason}${error.code !== undefined ? ` (${error.code})` : ''}`;
}
