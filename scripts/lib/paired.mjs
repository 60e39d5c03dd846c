/**
 * Paired, alternated measurements for the benchmark scripts.
 *
 * Why paired: on a shared machine the load changes from one minute to the next, so the two sides
 * of a comparison are timed back to back in the same round and compared by their ratio in that
 * round; the summary is the median of those per-round ratios, with the smallest and the largest
 * (a ratio of the two medians would pair a fast round of one side with a slow round of the other).
 *
 * Why alternated: whichever runs first in a round finds colder caches (and a different load), so
 * the first side runs first in odd rounds and second in even ones.
 */

/** The median of a non-empty list of numbers (the mean of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) throw new Error('median: no values');
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The order of the two sides in round `round` (1-based): as given in odd rounds, swapped in even ones. */
export function alternatedOrder(round, sides) {
  if (!Number.isInteger(round) || round < 1) throw new Error(`alternatedOrder: rounds count from 1, got ${round}`);
  if (sides.length !== 2) throw new Error(`alternatedOrder: expected two sides, got ${sides.length}`);
  return round % 2 === 1 ? [sides[0], sides[1]] : [sides[1], sides[0]];
}

/**
 * Runs `rounds` rounds of the two sides of `runs` (an object of two functions `(round) => Promise`,
 * the first key first in odd rounds), one side after the other, never at the same time.
 * Resolves with one `{ round, order, results }` per round, `results` keyed by side.
 * `onRound` is called after each round (to print it while the benchmark goes on).
 */
export async function runAlternated(rounds, runs, onRound = () => {}) {
  const sides = Object.keys(runs);
  const done = [];
  for (let round = 1; round <= rounds; round++) {
    const order = alternatedOrder(round, sides);
    const results = {};
    for (const side of order) results[side] = await runs[side](round);
    const record = { round, order, results };
    done.push(record);
    onRound(record);
  }
  return done;
}

/**
 * The summary of paired times, one `{ reference, measured }` per round: each side's median, and
 * `measured / reference` per round with its median, minimum and maximum.
 */
export function summarizePairs(pairs) {
  if (pairs.length === 0) throw new Error('summarizePairs: no rounds');
  for (const { reference, measured } of pairs) {
    if (!(reference > 0) || !(measured > 0)) throw new Error(`summarizePairs: times must be positive, got reference ${reference} and measured ${measured}`);
  }
  const ratios = pairs.map(({ reference, measured }) => measured / reference);
  return {
    rounds: pairs.length,
    reference: median(pairs.map((p) => p.reference)),
    measured: median(pairs.map((p) => p.measured)),
    ratios,
    ratio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
  };
}

/** `1.57x [1.40, 1.80]`: a ratio summary as the reports print it. */
export function formatRatio({ median: mid, min, max }) {
  return `${mid.toFixed(2)}x [${min.toFixed(2)}, ${max.toFixed(2)}]`;
}

/**
 * A comma-separated list of whole numbers, each from 1 to `max`, for an option such as
 * `--files 500,5000`; duplicates dropped, order kept. Throws a message that names the option.
 */
export function parseCountList(option, raw, max = Number.MAX_SAFE_INTEGER) {
  const parts = String(raw)
    .split(',')
    .map((part) => part.trim().replace(/_/g, ''));
  const range = max === Number.MAX_SAFE_INTEGER ? 'of at least 1' : `from 1 to ${max}`;
  const counts = [];
  for (const part of parts) {
    const n = Number(part);
    if (part === '' || !Number.isInteger(n) || n < 1 || n > max) {
      throw new Error(`--${option}: expected whole numbers ${range} separated by commas (like 1,8), got ${JSON.stringify(String(raw))}`);
    }
    if (!counts.includes(n)) counts.push(n);
  }
  return counts;
}
