/**
 * A failure that says the disk (or the user's quota on it) is full: a write of bestof's (ENOSPC,
 * EDQUOT), a process that could not start for it (its log file), or git's words for the same.
 * Nothing a candidate did, nothing retrying fixes, and every candidate meets it next: the run
 * stops, every candidate's work kept, to be resumed once there is room
 * (src/engine/run/stages/candidates.ts, src/engine/run/run.ts).
 */
export function isDiskFull(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ENOSPC' || code === 'EDQUOT' || /\bENOSPC\b|\bEDQUOT\b|no space left on device|disk quota exceeded/i.test(String(message));
}
