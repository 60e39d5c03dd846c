/**
 * `run.pid` in the run folder while a run is in progress, so that `bestof clean` never
 * touches the worktrees of a run that is still working. A run killed with SIGKILL leaves
 * the file behind, but its process is gone, which is what counts.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LOCK = 'run.pid';

export function markRunAlive(runDir: string): void {
  writeFileSync(join(runDir, LOCK), `${process.pid}\n`);
}

export function markRunFinished(runDir: string): void {
  rmSync(join(runDir, LOCK), { force: true });
}

export function runIsAlive(runDir: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(join(runDir, LOCK), 'utf8').trim());
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A process that has ended but was not reaped yet still answers signal 0: a bestof run inside a
 * mount namespace (src/process/namespace.ts) whose outer process was killed is reparented to
 * whatever reaps orphans, which in a container may be slow to do it or never do it.
 */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state === 'Z' || state === 'X';
  } catch {
    return false; // no /proc (not Linux): signal 0 is all there is
  }
}
