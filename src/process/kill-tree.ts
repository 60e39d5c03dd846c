/**
 * Signals a whole process tree. Children are started with `detached: true`, so each leads
 * its own process group (pgid === pid) and everything it forks stays in that group unless
 * it deliberately calls setsid/setpgid.
 */

/** Sends `signal` to the process group led by `pid`. A group that is already gone is fine. */
export function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ESRCH: nothing left in the group. EPERM: only members we may not signal remain
    // (e.g. a setuid program); there is nothing more we can do about those.
    if (code !== 'ESRCH' && code !== 'EPERM') throw error;
  }
}
