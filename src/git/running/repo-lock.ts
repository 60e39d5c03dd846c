/**
 * A lock per repository, across bestof processes and inside one: `<gitDir>/bestof-<name>.lock`.
 *
 * Why: git itself does not serialize some steps that touch state shared by all worktrees. Two
 * `git worktree add` at once race (one reads the other's half-written `worktrees/<name>/commondir`
 * and dies with "failed to read ...: Success"), and two merges into one checkout trip over each
 * other's MERGE_HEAD. Every bestof process that does such a step holds the lock while it does.
 *
 * How:
 * - inside one process, waiters queue on a promise chain per lock file: they never poll each other;
 * - across processes, the file is created exclusively (a hard link of a file already holding the
 *   holder's pid, host and process start, so that no reader ever sees it empty) and removed when
 *   the holder's function settles, also when it throws; a waiter polls with backoff;
 * - a lock whose holder is dead (its pid is gone on this host, a zombie, or was reused by a process
 *   that started later) is stale, and one waiter breaks it. Breaking is itself guarded by an
 *   exclusive `<lock>.break` file, and a waiter deletes the lock only if it still holds exactly the
 *   content it judged stale, so two waiters can never both take it over. (The one window left: a
 *   breaker killed with SIGKILL inside its few-microsecond break, while two others wait.)
 *
 * Not re-entrant: `fn` must not take the same lock again (it would wait for itself).
 */
import { randomBytes } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { link, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { readProcStat } from '../../proc-stat.js';

/** What a lock file holds. */
interface LockOwner {
  readonly pid: number;
  readonly hostname: string;
  /** The holder process's start, in clock ticks since boot (Linux `/proc/<pid>/stat`): tells a reused pid apart. */
  readonly processStart?: number;
  /** When the lock was taken (ms since the epoch), for people reading the file. */
  readonly acquiredAt: number;
  /** Unique per acquisition: a breaker deletes the file only if it still holds this one. */
  readonly nonce: string;
}

/** A lock file that cannot be read as a LockOwner is judged stale once it is this old (a person's or a tool's garbage). */
const GARBLED_STALE_AFTER_MS = 10_000;
const FIRST_POLL_MS = 5;
const MAX_POLL_MS = 200;

/** Per lock file: the tail of this process's queue of holders and waiters. */
const queues = new Map<string, Promise<void>>();

/** Runs fn while holding the lock `<gitDir>/bestof-<name>.lock`; waits (polling with backoff) while another holder has it. */
export async function withRepoLock<T>(gitDir: string, name: string, fn: () => Promise<T>, opts?: { signal?: AbortSignal }): Promise<T> {
  const signal = opts?.signal;
  signal?.throwIfAborted();
  // Synchronously, so that waiters join the queue in the order they called (an await here let a later
  // caller's realpath resolve first and overtake an earlier one).
  const path = join(canonicalDir(gitDir), `bestof-${name}.lock`);

  // Inside this process: wait for the previous holder or waiter, in order.
  const previous = queues.get(path) ?? Promise.resolve();
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => (leave = resolve));
  const tail = previous.then(() => mine);
  queues.set(path, tail);
  try {
    await untilSettledOrAborted(previous, signal);
    const owner = await acquireFile(path, signal);
    try {
      return await fn();
    } finally {
      await releaseFile(path, owner);
    }
  } finally {
    leave();
    if (queues.get(path) === tail) queues.delete(path);
  }
}

/** The lock folder as one string per folder, so that two spellings of it share one in-process queue. */
function canonicalDir(dir: string): string {
  try {
    return realpathSync(dir);
  } catch {
    return resolve(dir);
  }
}

async function untilSettledOrAborted(wait: Promise<void>, signal: AbortSignal | undefined): Promise<void> {
  if (!signal) return wait;
  signal.throwIfAborted();
  let onAbort!: () => void;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(abortReason(signal));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([wait, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** Takes the lock file, waiting (and breaking a stale lock) as long as needed. */
async function acquireFile(path: string, signal: AbortSignal | undefined): Promise<LockOwner> {
  const owner: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    ...optional('processStart', processStartTicks(process.pid)),
    acquiredAt: Date.now(),
    nonce: randomBytes(8).toString('hex'),
  };
  let delay = FIRST_POLL_MS;
  for (;;) {
    signal?.throwIfAborted();
    if (await createExclusive(path, owner)) return owner;
    const seen = await readOwner(path);
    if (seen === 'missing') continue; // released between our attempt and our look
    // Broken: try again at once, the lock is free now.
    if ((await isStale(path, seen)) && (await breakStaleLock(path, seen))) continue;
    await sleep(delay * (0.75 + Math.random() / 2), signal);
    delay = Math.min(MAX_POLL_MS, delay * 2);
  }
}

/**
 * Creates `path` holding `owner`, only if it does not exist. The content is written to a file of
 * our own first and then hard-linked into place, so the lock never exists empty (a holder killed
 * between an O_EXCL open and its write would leave a file nobody could judge).
 */
async function createExclusive(path: string, owner: LockOwner): Promise<boolean> {
  const temp = `${path}.${owner.pid}.${owner.nonce}.tmp`;
  const content = `${JSON.stringify(owner)}\n`;
  await writeFile(temp, content, { flag: 'wx' });
  try {
    await link(temp, path);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw error;
    // A file system without hard links: a plain exclusive create (a kill between open and write leaves a garbled lock, judged by its age).
    try {
      await writeFile(path, content, { flag: 'wx' });
      return true;
    } catch (fallback) {
      if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw fallback;
    }
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/** The lock's owner; 'garbled' when the file holds something else; 'missing' when there is no lock. */
async function readOwner(path: string): Promise<LockOwner | 'garbled' | 'missing'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as Partial<LockOwner>;
    if (typeof parsed.pid === 'number' && typeof parsed.hostname === 'string' && typeof parsed.nonce === 'string') return parsed as LockOwner;
  } catch {
    // fall through
  }
  return 'garbled';
}

async function isStale(path: string, seen: LockOwner | 'garbled'): Promise<boolean> {
  if (seen === 'garbled') {
    try {
      return Date.now() - (await stat(path)).mtimeMs > GARBLED_STALE_AFTER_MS;
    } catch {
      return false;
    }
  }
  // A lock of another host (a repository on a shared disk) cannot be judged from here: it is live.
  if (seen.hostname !== hostname()) return false;
  // Our own pid: this process's queue says nobody here holds it (we are at the head), so it is a leftover.
  if (seen.pid === process.pid) return seen.processStart === undefined || seen.processStart === processStartTicks(process.pid);
  return !processIsAlive(seen.pid, seen.processStart);
}

/** Is `pid` a live process that started when the holder did? EPERM: alive, someone else's. */
export function processIsAlive(pid: number, processStart?: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  const stat = readProcStat(pid);
  if (stat === undefined) return true; // not Linux, or it just went: assume the holder lives
  if (stat.state === 'Z') return false; // a zombie holds nothing
  return processStart === undefined || stat.startTicks === processStart;
}

/**
 * Deletes the lock if it still holds exactly what was judged stale; one breaker at a time. False
 * when another waiter is breaking it right now (wait a little, then look again).
 */
async function breakStaleLock(path: string, seen: LockOwner | 'garbled'): Promise<boolean> {
  const guard = `${path}.break`;
  const breaker: LockOwner = {
    pid: process.pid,
    hostname: hostname(),
    ...optional('processStart', processStartTicks(process.pid)),
    acquiredAt: Date.now(),
    nonce: randomBytes(8).toString('hex'),
  };
  if (!(await createExclusive(guard, breaker))) {
    // Someone else is breaking it; a breaker that died doing so is broken in turn (its guard is never in use for long).
    const other = await readOwner(guard);
    if (other !== 'missing' && (await isStale(guard, other))) await unlinkIfSame(guard, other);
    return false;
  }
  try {
    await unlinkIfSame(path, seen);
    return true;
  } finally {
    await unlink(guard).catch(() => undefined);
  }
}

async function unlinkIfSame(path: string, seen: LockOwner | 'garbled'): Promise<void> {
  const now = await readOwner(path);
  const same = seen === 'garbled' ? now === 'garbled' : now !== 'missing' && now !== 'garbled' && now.nonce === seen.nonce;
  if (same) await unlink(path).catch(() => undefined);
}

async function releaseFile(path: string, owner: LockOwner): Promise<void> {
  // Only our own: were it ever broken wrongly, the file now belongs to the one who took it over.
  await unlinkIfSame(path, owner);
}

function processStartTicks(pid: number): number | undefined {
  return readProcStat(pid)?.startTicks;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? Object.assign(new Error('the wait for a lock was aborted'), { name: 'AbortError' });
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal as AbortSignal));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
