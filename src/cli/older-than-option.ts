/** `--older-than` of `bestof clean --runs`: how long ago a run must have started to be removed. */
import { parseDuration } from '../spec/duration.js';
import { UsageError } from './usage-error.js';

const DAY_MS = 86_400_000;

/** `--older-than`: "30d", "12h", "2w", "1d12h"; a bare number is refused (seconds? days?). */
export function parseAge(text: string): number {
  const weeks = /^(\d+)w$/.exec(text.trim());
  const ms = weeks ? Number(weeks[1]) * 7 * DAY_MS : /^\d+(\.\d+)?$/.test(text.trim()) ? undefined : parseDuration(text);
  if (ms === undefined || ms <= 0) {
    throw new UsageError(`clean: --older-than ${JSON.stringify(text)} is not an age; say how long ago the runs started, with a unit: 30d, 12h, 2w`);
  }
  return ms;
}
