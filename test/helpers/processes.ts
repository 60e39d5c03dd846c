/**
 * Finding processes by a marker in their command line or environment (Linux /proc). Inside
 * bestof's sandbox an agent lives in its own PID namespace: the `$$` and `$!` it can write
 * down are that namespace's numbers, not the host's, so tests find its processes by a marker
 * instead. Zombies count as gone.
 */
import { readdirSync, readFileSync } from 'node:fs';

function alive(pid: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return false;
  }
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

/** SIGKILLs every pid of `pids` that is still there and empties the set: for an afterEach, so that what a failing test saw never outlives it. */
export function killAll(pids: Set<number>): void {
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  pids.clear();
}
