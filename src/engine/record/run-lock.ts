/**
 * `run.pid` in the run folder while a run is in progress, so that `bestof clean` never
 * touches the worktrees of a run that is still working. A run killed with SIGKILL leaves
 * the file behind, but its process is gone, which is what counts: a live process of that pid that
 * started after the file was written is another one (the pid was reused).
 */
import { readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readProcStat, startedAtMs } from '../../proc-stat.js';

const LOCK = 'run.pid';

export function markRunAlive(runDir: string): void {
  writeFileSync(join(runDir, LOCK), `${process.pid}\n`);
}

export function markRunFinished(runDir: string): void {
  rmSync(join(runDir, LOCK), { force: true });
}

export function runIsAlive(runDir: string): boolean {
  const file = join(runDir, LOCK);
  let pid: number;
  let writtenMs: number;
  try {
    pid = Number(readFileSync(file, 'utf8').trim());
    writtenMs = statSync(file).mtimeMs;
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  // A process that has ended but was not reaped yet (a zombie) still answers signal 0: a bestof run
  // inside a mount namespace (src/process/namespace.ts) whose outer process was killed is
  // reparented to whatever reaps orphans, which in a container may be slow to do it or never do it.
  const stat = readProcStat(pid);
  if (stat === undefined) return true; // no /proc (not Linux), or it just went: signal 0 is all there is
  if (stat.state === 'Z' || stat.state === 'X') return false;
  // A pid is reused once its process is gone (some machines count only to 32768; a reboot starts
  // again from 1): a process that started after run.pid was written is not the run's bestof.
  const startedMs = startedAtMs(stat);
  return startedMs === undefined || startedMs <= writtenMs + START_SLACK_MS;
}

/** /proc/stat's boot time has whole seconds; the start time, ticks. */
const START_SLACK_MS = 2000;
