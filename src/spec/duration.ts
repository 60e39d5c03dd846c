/**
 * Durations in a spec are strings like "90s", "15m", "2h", "1h30m" or "500ms".
 * A bare number is read as seconds, because that is what people type by accident
 * and there is only one sensible reading of it.
 */
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/** Returns the duration in milliseconds, or undefined when the text is not a duration. */
export function parseDuration(value: string | number): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value * 1000) : undefined;
  const text = value.trim();
  if (text === '') return undefined;
  if (/^\d+(?:\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  PART.lastIndex = 0;
  let total = 0;
  let consumed = 0;
  for (let match = PART.exec(text); match; match = PART.exec(text)) {
    total += Number(match[1]) * (UNIT_MS[match[2] as string] as number);
    consumed = PART.lastIndex;
  }
  return consumed === text.length ? Math.round(total) : undefined;
}

/** "1h 2m 3s" style, for messages and reports. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)}ms`;
  const totalSeconds = Math.round(ms / 1000);
  const h = Math.floor(totalSeconds / 3600);
  const m = Math.floor((totalSeconds % 3600) / 60);
  const s = totalSeconds % 60;
  if (h > 0) return `${h}h${m > 0 ? ` ${m}m` : ''}`;
  if (m > 0) return `${m}m${s > 0 ? ` ${s}s` : ''}`;
  return `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)}s`;
}
