/**
 * Waiting on real processes in tests: polling, never timing. A loaded CI machine is slow, so
 * the budget is generous; a run that ends before the condition fails the wait at once.
 */
import { readFileSync } from 'node:fs';

/** Has this process exited? A zombie waiting to be reaped has. */
export function processIsGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z') ?? true;
  } catch {
    return true;
  }
}

export interface WaitOptions {
  /** Returns a description of how bestof ended, once it has: the wait then fails at once. */
  readonly ended?: () => string | undefined;
  /** Polls of 100 ms. @default 900 */
  readonly attempts?: number;
}

/** Polls `predicate` (which may throw while what it reads is not there yet) every 100 ms. */
export async function waitUntil(predicate: () => boolean, what: string, options: WaitOptions = {}): Promise<void> {
  for (let i = 0; i < (options.attempts ?? 900); i++) {
    try {
      if (predicate()) return;
    } catch {
      // not there yet
    }
    const end = options.ended?.();
    if (end !== undefined) throw new Error(`bestof ended before ${what}:\n${end}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`gave up waiting for ${what}`);
}
