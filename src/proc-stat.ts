/**
 * A process's line of `/proc/<pid>/stat` (Linux): what bestof reads to tell a live process from a
 * gone one, and a process from another that got its pid later (pids are reused; some machines
 * count only to 32768): the repository lock's holder (src/git/running/repo-lock.ts), a run's bestof
 * (src/engine/record/run-lock.ts), a process tree walked to stop it (src/process/tagged-processes.ts).
 * A leaf module, like result.ts, so that all three layers read it the same way (src/git may not
 * import src/process).
 */
import { readFileSync } from 'node:fs';

export interface ProcStat {
  /** R, S, D, T, Z (a zombie: ended, not reaped yet), X ... */
  readonly state: string;
  readonly ppid: number;
  readonly pgrp: number;
  /** When it started, in clock ticks since boot (field 22): the same pid with another start is another process. */
  readonly startTicks: number;
}

/** Fields 3, 4, 5 and 22, or undefined when the process is gone or this is not Linux. */
export function readProcStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    // latin1: the command name may hold any bytes; the fields after it are ASCII.
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces and ')': fields are counted after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgrp, startTicks] = [fields[0], Number(fields[1]), Number(fields[2]), Number(fields[19])];
  if (!state || !Number.isInteger(ppid) || !Number.isInteger(pgrp) || !Number.isInteger(startTicks)) return undefined;
  return { state, ppid, pgrp, startTicks };
}

/** Clock ticks per second of /proc's times (USER_HZ: 100 on every Linux that bestof runs on). */
const TICKS_PER_SECOND = 100;

/**
 * When the process started, in ms since the epoch: the boot time of `/proc/stat` (whole seconds)
 * plus its start in ticks. Undefined when the boot time cannot be read.
 */
export function startedAtMs(stat: ProcStat): number | undefined {
  let boot: RegExpExecArray | null;
  try {
    boot = /^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
  } catch {
    return undefined;
  }
  return boot ? Number(boot[1]) * 1000 + (stat.startTicks * 1000) / TICKS_PER_SECOND : undefined;
}
