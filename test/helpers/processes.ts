/**
 * Finding processes by a marker in their command line or environment (Linux /proc). Inside
 * bestof's sandbox an agent lives in its own PID namespace: the `$$` and `$!` it can write
 * down are that namespace's numbers, not the host's, so tests find its processes by a marker
 * instead. Zombies count as gone.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { readProcStat } from '../../src/proc-stat.js';

function alive(pid: string): boolean {
  const state = readProcStat(Number(pid))?.state;
  return state !== undefined && state !== 'Z';
}

function read(path: string): string {
  try {
    return readFileSync(path, 'latin1');
  } catch {
    return '';
  }
}

/** Host PIDs of live processes whose command line contains `marker`. */
export function processesWithArg(marker: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .filter((pid) => read(`/proc/${pid}/cmdline`).includes(marker) && alive(pid))
    .map(Number);
}

/** Host PIDs of live processes whose environment has `name=value` exactly. */
export function processesWithEnv(name: string, value: string): number[] {
  const entry = `${name}=${value}`;
  return readdirSync('/proc')
    .filter((pid) => /^\d+$/.test(pid) && Number(pid) !== process.pid)
    .filter((pid) => read(`/proc/${pid}/environ`).split('\0').includes(entry) && alive(pid))
    .map(Number);
}

/** When the process started (clock ticks after boot); undefined: gone. */
function startTime(pid: number): number | undefined {
  return readProcStat(pid)?.startTicks;
}

/**
 * The pids a test saw, each with when it started: a pid is reused once its process is gone
 * (these machines count to 32768, and a busy test run wraps around in minutes), and killAll must
 * never kill the stranger that got it (it once killed another test's, or a benchmark's, bestof).
 */
export class SeenProcesses extends Set<number> {
  private readonly started = new Map<number, number | undefined>();

  override add(pid: number): this {
    if (!this.started.has(pid)) this.started.set(pid, startTime(pid));
    return super.add(pid);
  }

  /** Is `pid` still the process that was seen? */
  same(pid: number): boolean {
    const then = this.started.get(pid);
    return then !== undefined && startTime(pid) === then;
  }

  override clear(): void {
    this.started.clear();
    super.clear();
  }
}

/** SIGKILLs every pid of `pids` that is still the process seen and empties the set: for an afterEach, so that what a failing test saw never outlives it. */
export function killAll(pids: SeenProcesses): void {
  for (const pid of pids) {
    if (!pids.same(pid)) continue; // gone, as it should be, or its pid is another process's now
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  pids.clear();
}

/**
 * Process groups a test started (each child leads one of its own), each with when its leader
 * started. killAll SIGKILLs every group that may still be the test's: never one whose id is now
 * another process's pid (a pid is not reused while a group has its id, so the test's group is gone
 * then, and the id may lead a stranger's: another test's bestof, a benchmark).
 */
export class StartedGroups {
  private readonly groups: { readonly pid: number; readonly started: number | undefined }[] = [];

  add(pid: number | undefined): void {
    if (pid !== undefined) this.groups.push({ pid, started: startTime(pid) });
  }

  /** For an afterEach. */
  killAll(): void {
    for (const { pid, started } of this.groups.splice(0)) {
      const now = startTime(pid);
      if (now !== undefined && now !== started) continue;
      try {
        process.kill(-pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
}
