/**
 * Finding and killing processes by an entry of their environment (`NAME=value`).
 *
 * A process group is not enough to find what a child left behind: a `setsid` daemon leaves
 * its group, and once bestof itself is killed nothing remembers the groups at all. What does
 * survive both is the environment a process was started with, which its children inherit:
 * runProcess tags each child with BESTOF_PROCESS_TAG, and the engine gives every process of a
 * run BESTOF_RUN_KEY. A process that empties its own environment (`env -i`) escapes this; one
 * that stays in its parent's group is still taken by the group kill.
 *
 * Linux: `/proc/<pid>/environ` of every process we may read (those of other users cannot be
 * read and are skipped). macOS: `ps -E`, which prints the environment after the command line,
 * for our own processes; if `ps` fails there, nothing is found. Elsewhere nothing is found.
 *
 * Never signalled: PID 1, this process and its ancestors (a bestof started from a process
 * that carries a key must not kill its own parent); and no group kill ever reaches this
 * process's own group.
 *
 * Cost, measured on the shared 2-core Linux dev machine (Node 20) with ~200 processes, run as
 * root so that every environ is read: one scan takes 2.5-3 ms (readdir of /proc, then
 * open/read/close per process into one reused buffer; readFileSync took 4-6 ms). A user who
 * is not root reads only their own processes (the others fail at open, which is cheaper). runProcess scans after every
 * child all the same, because it must: a `setsid` daemon is not in the child's group, so "the
 * group kill found survivors" says nothing about it; and 3 ms is little next to starting an
 * agent, a check or a setup command. On macOS a scan runs `ps` (not measured here: there is
 * no macOS machine; expect tens of ms).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, readFileSync, readSync } from 'node:fs';
import { readProcStat } from '../proc-stat.js';

/** The variable runProcess sets on every child it starts (one random value per child). */
export const PROCESS_TAG_VAR = 'BESTOF_PROCESS_TAG';

/** A fresh random tag value. */
export function newProcessTag(): string {
  return randomBytes(8).toString('hex');
}

/**
 * A kill pass finds what the previous one missed: a process that forked between a scan and
 * its SIGKILL. SIGKILL stops forking at once, so a second pass nearly always finds nothing.
 */
const MAX_KILL_PASSES = 5;

/** PIDs of live processes whose environment has `name=<one of values>`, minus the untouchables above. */
export function processesWithEnv(name: string, values: Iterable<string>): number[] {
  const entries = [...values].map((value) => `${name}=${value}`);
  if (entries.length === 0) return [];
  const found = process.platform === 'linux' ? scanProc(entries) : process.platform === 'darwin' ? scanPs(entries) : [];
  if (found.length === 0) return found;
  const spared = untouchable();
  return found.filter((pid) => !spared.has(pid));
}

/**
 * Sends `signal` to every process found by processesWithEnv, and to the process group each of
 * them leads (a daemon's own children that dropped the variable stay in its group). Scans
 * again until a pass finds no process it has not signalled. Returns the processes signalled.
 * Synchronous, so that it also works right before `process.exit`.
 */
export function signalProcessesWithEnv(name: string, values: Iterable<string>, signal: NodeJS.Signals): number[] {
  const list = [...values];
  const signalled = new Set<number>();
  for (let pass = 0; pass < MAX_KILL_PASSES; pass++) {
    const fresh = processesWithEnv(name, list).filter((pid) => !signalled.has(pid));
    if (fresh.length === 0) break;
    for (const pid of fresh) {
      signalProcessAndGroup(pid, signal);
      signalled.add(pid);
    }
  }
  return [...signalled];
}

/** Has this process exited? A zombie waiting for its parent counts as gone. */
export function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
  if (process.platform !== 'linux') return false;
  const stat = readProcStat(pid);
  return stat === undefined || stat.state === 'Z';
}

function signalProcessAndGroup(pid: number, signal: NodeJS.Signals): void {
  // kill(-pid) reaches a group only if `pid` leads one; a live pid that does not lead a group
  // cannot be the id of another group (the kernel does not reuse a pid still used as a pgid).
  if (process.platform === 'linux' && pid !== ownGroup()) {
    try {
      process.kill(-pid, signal);
      return;
    } catch {
      // not a group leader (ESRCH): signal the process alone
    }
  }
  try {
    process.kill(pid, signal);
  } catch {
    // gone already, or not ours to signal
  }
}

function scanProc(entries: readonly string[]): number[] {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [];
  }
  const needles = entries.map((entry) => Buffer.from(entry));
  const found: number[] = [];
  for (const name of names) {
    const first = name.charCodeAt(0);
    if (first < 48 || first > 57) continue;
    const pid = Number(name);
    if (pid === 1 || pid === process.pid) continue;
    // Another user's process (EACCES), or one that just ended (ENOENT / ESRCH): skipped.
    // A zombie's environ is empty, so a dead process is never found.
    const environ = readProcFile(`/proc/${name}/environ`);
    if (environ !== undefined && needles.some((needle) => hasEntry(environ, needle))) found.push(pid);
  }
  return found;
}

/** Reused across reads: readFileSync allocates per file and costs about twice as much here. */
let readBuffer = Buffer.alloc(1 << 16);

/** The whole file as a view of readBuffer (valid until the next call), or undefined if it cannot be read. */
function readProcFile(path: string): Buffer | undefined {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return undefined;
  }
  try {
    let size = 0;
    for (;;) {
      if (size === readBuffer.length) {
        const bigger = Buffer.alloc(readBuffer.length * 2);
        readBuffer.copy(bigger);
        readBuffer = bigger;
      }
      const read = readSync(fd, readBuffer, size, readBuffer.length - size, null);
      if (read === 0) return readBuffer.subarray(0, size);
      size += read;
    }
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** `needle` (`NAME=value`) is one whole NUL-separated entry of `environ`. */
function hasEntry(environ: Buffer, needle: Buffer): boolean {
  for (let at = environ.indexOf(needle); at >= 0; at = environ.indexOf(needle, at + 1)) {
    const end = at + needle.length;
    if ((at === 0 || environ[at - 1] === 0) && (end === environ.length || environ[end] === 0)) return true;
  }
  return false;
}

/**
 * macOS: `ps -E` appends the environment to the command line, space-separated, for processes
 * of our own user. A command-line argument equal to the entry would match as well; our values
 * are random hex, so only a process that copied one on purpose would.
 */
function scanPs(entries: readonly string[]): number[] {
  let output: string;
  try {
    output = execFileSync('ps', ['-A', '-E', '-ww', '-o', 'pid=,uid=,command='], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
      maxBuffer: 256 * 1024 * 1024,
    });
  } catch {
    return [];
  }
  return parsePsEnvironment(output, entries, process.getuid?.());
}

/** Exported for tests: the pids of `ps -o pid=,uid=,command=` lines (with -E) of user `uid` that hold one of `entries`. */
export function parsePsEnvironment(output: string, entries: readonly string[], uid: number | undefined): number[] {
  const found: number[] = [];
  for (const line of output.split('\n')) {
    const match = /^\s*(\d+)\s+(\d+)\s(.*)$/.exec(line);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid === 1 || pid === process.pid || (uid !== undefined && Number(match[2]) !== uid)) continue;
    const words = new Set((match[3] ?? '').split(' '));
    if (entries.some((entry) => words.has(entry))) found.push(pid);
  }
  return found;
}

/** PID 1, this process and its ancestors. */
function untouchable(): Set<number> {
  const spared = new Set([1, process.pid]);
  let pid = process.ppid;
  while (pid > 1 && !spared.has(pid)) {
    spared.add(pid);
    const parent = parentOf(pid);
    if (parent === undefined) break;
    pid = parent;
  }
  return spared;
}

function parentOf(pid: number): number | undefined {
  if (process.platform === 'linux') return readProcStat(pid)?.ppid;
  try {
    const out = execFileSync('ps', ['-o', 'ppid=', '-p', String(pid)], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 5000 });
    const ppid = Number(out.trim());
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

let cachedOwnGroup: number | undefined;
/** This process's group (Linux), which a group kill must never reach. */
function ownGroup(): number | undefined {
  cachedOwnGroup ??= readProcStat(process.pid)?.pgrp;
  return cachedOwnGroup;
}

/** A process's argv joined by NUL bytes (Linux: /proc/<pid>/cmdline), or undefined when it cannot be read (gone, or not Linux). */
export function processCommandLine(pid: number): string | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'latin1');
  } catch {
    return undefined;
  }
}
