/**
 * How long to wait after the n-th rate limit in a row: exponential from the spec's
 * `loop.rate_limit_backoff`, capped at five minutes, with ±20% jitter so that candidates
 * limited together do not all come back at the same moment. A provider's own retry-after
 * is a floor.
 */
export const MAX_BACKOFF_MS = 5 * 60_000;

export function backoffDelay(baseMs: number, attempt: number, retryAfterMs?: number, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** Math.max(0, attempt - 1));
  const jittered = exponential * (0.8 + 0.4 * random());
  return Math.round(Math.max(jittered, retryAfterMs ?? 0));
}
