/**
 * A failure that says the disk (or the user's quota on it) is full: a write of bestof's (ENOSPC,
 * EDQUOT), or git's words for the same. Nothing a candidate did, nothing retrying fixes, and every
 * candidate meets it next: the run stops, every candidate's work kept, to be resumed once there is
 * room (./run-phases/candidates.ts).
 */
export function isDiskFull(error: unknown): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return code === 'ENOSPC' || code === 'EDQUOT' || /No space left on device|Disk quota exceeded/.test(String(message));
}
