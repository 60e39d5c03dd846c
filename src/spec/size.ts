/**
 * Sizes in a spec: "10MB", "500KB", "1.5GB", "2048" or a bare number (bytes), or "off". Units
 * are binary (1 KB = 1024 bytes), as git's own sizes (`core.bigFileThreshold = 512m`) are, and
 * case does not matter; `K`, `KiB` and `KB` are the same.
 */
const UNIT_BYTES: Record<string, number> = { '': 1, b: 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
const SIZE = /^(\d+(?:\.\d+)?)\s*(?:([kmg])(?:i?b)?|(b))?$/i;

/** The size in bytes (a whole number), `'off'`, or undefined when the text is not a size. */
export function parseSize(value: string | number): number | 'off' | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? Math.round(value) : undefined;
  const text = value.trim();
  if (text.toLowerCase() === 'off') return 'off';
  const match = SIZE.exec(text);
  if (!match) return undefined;
  const unit = (match[2] ?? match[3] ?? '').toLowerCase();
  return Math.round(Number(match[1]) * (UNIT_BYTES[unit] as number));
}
