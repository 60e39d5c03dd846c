/**
 * How the bench's numbers are written in the Markdown, the JUnit messages and the baseline's
 * sentences, in one place so that the three say the same "66.7%". Rates are percentages with
 * one decimal (a bench of a few dozen trials has no second decimal to speak of); a missing
 * value is an en dash, never "NaN" or "null".
 */
import { formatDuration } from '../spec/duration.js';
import type { Interval } from './stats.js';

export const NONE = '–';

export function percent(rate: number | null): string {
  return rate === null ? NONE : `${(rate * 100).toFixed(1)}%`;
}

/** A difference of rates in percentage points, signed: `+16.7 pp`. */
export function points(difference: number | null): string {
  if (difference === null) return NONE;
  const value = difference * 100;
  const rounded = value.toFixed(1);
  return `${value > 0 && rounded !== '0.0' ? '+' : ''}${rounded === '-0.0' ? '0.0' : rounded} pp`;
}

export function percentInterval(interval: Interval | null): string {
  return interval === null ? NONE : `[${percent(interval.low)}, ${percent(interval.high)}]`;
}

export function pointsInterval(interval: Interval | null): string {
  return interval === null ? NONE : `[${points(interval.low)}, ${points(interval.high)}]`;
}

/** Dollars: cents from $1 on, tenths of a cent below (a trial often costs a few cents), four decimals under a cent. */
export function usd(value: number | null): string {
  if (value === null) return NONE;
  const size = Math.abs(value);
  return `$${value.toFixed(size >= 1 || size === 0 ? 2 : size >= 0.01 ? 3 : 4)}`;
}

/** An unsigned size of a change of rates, in percentage points: `10.0 pp`. */
export function pointsSize(difference: number): string {
  return `${(Math.abs(difference) * 100).toFixed(1)} pp`;
}

/** A trial that tampered, in the words every report uses: "tampered: 2 frozen paths, first test/a.test.mjs". */
export function tamperedWords(paths: readonly string[]): string {
  return `tampered: ${paths.length} frozen path${paths.length === 1 ? '' : 's'}, first ${paths[0] ?? NONE}`;
}

export function duration(ms: number | null): string {
  return ms === null ? NONE : formatDuration(ms);
}
