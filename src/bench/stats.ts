/**
 * The statistics of a bench, each small enough to check by hand (the tests do, in comments).
 *
 * - **Wilson score interval** at 95% (z = 1.959964) for a resolved rate: unlike the normal
 *   ("Wald") interval it stays inside [0, 1] and is not zero-width at 0/n or n/n, which is where
 *   a bench of few trials lives. It treats trials as independent; trials of one task are not
 *   (an agent that solves a task tends to solve it again), so it is narrower than a
 *   task-clustered interval would be. The paired differences below are clustered by task.
 * - **Unbiased pass@k** (Chen et al. 2021, as Terminal-Bench computes it): for a task with n
 *   trials of which c resolved, 1 - C(n-c, k) / C(n, k), the chance that k trials drawn without
 *   replacement hold at least one success. Computed as 1 - prod_{i=n-c+1..n} (1 - k/i), which
 *   never forms a binomial coefficient (no overflow, no cancellation); 1 when n - c < k.
 * - **Percentiles** are nearest-rank: the p-th percentile of n sorted values is the value at
 *   rank ceil(p/100 * n) (1-based). It is always a value that occurred (a cost someone paid),
 *   needs no interpolation rule, and with few trials says plainly "the slowest of 6" for p90.
 * - **Paired difference** of two agents' resolved rates, clustered by task and paired
 *   ("Adding Error Bars to Evals", Miller 2024: clustered standard errors, paired analysis): per task, the difference of
 *   the two agents' rates on that task; the estimate is their mean over tasks, its standard error
 *   the sample standard deviation of the per-task differences over sqrt(T). Pairing removes the
 *   task-difficulty variance the two agents share; working on per-task means accounts for the
 *   correlation of trials within a task. The interval uses **Student's t with T - 1 degrees of
 *   freedom**, not z: Miller's z assumes hundreds of questions, a team's bench has a handful of
 *   tasks, and with T = 5 the z interval would be 30% too narrow (2.776 against 1.960). With one
 *   task there is no spread to estimate: no interval. The interval is clamped to [-1, 1], the
 *   range a difference of rates can take (and the record says when it was).
 */

/** The z of a two-sided 95% interval. */
export const Z95 = 1.959964;

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/** Wilson score interval for `successes` of `n` at 95%; `null` when n = 0 (nothing to estimate). */
export function wilsonInterval(successes: number, n: number, z = Z95): Interval | null {
  if (n === 0) return null;
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z / denominator) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  // At 0/n and n/n the bound is exactly 0 or 1; rounding would leave 5e-17 and "0.0%" unequal to 0.
  return { low: successes === 0 ? 0 : Math.max(0, centre - half), high: successes === n ? 1 : Math.min(1, centre + half) };
}

/** Unbiased pass@k of one task: n trials, c resolved. `k` must be in 1..n (a bug otherwise). */
export function passAtK(n: number, c: number, k: number): number {
  if (!Number.isInteger(k) || k < 1 || k > n) throw new Error(`bug: pass@${k} asked of ${n} trials`);
  if (n - c < k) return 1;
  let allFail = 1;
  for (let i = n - c + 1; i <= n; i++) allFail *= 1 - k / i;
  return 1 - allFail;
}

export function mean(values: readonly number[]): number | null {
  return values.length === 0 ? null : values.reduce((s, v) => s + v, 0) / values.length;
}

/** Nearest-rank percentile (p in (0, 100]); `null` of no values. */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

/** Student's t quantile at 0.975 for df 1..30 (to 6 decimals), from the standard tables. */
const T975 = [
  12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139, 2.200985, 2.178813, 2.160369, 2.144787, 2.13145,
  2.119905, 2.109816, 2.100922, 2.093024, 2.085963, 2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.04523, 2.042272,
];

/**
 * The 0.975 quantile of Student's t with `df` degrees of freedom: the table up to 30, then the
 * Cornish-Fisher expansion around z (Abramowitz & Stegun 26.7.5), which is within 3e-8 of the
 * exact value from df = 31 on.
 */
export function tQuantile975(df: number): number {
  if (!Number.isInteger(df) || df < 1) throw new Error(`bug: t quantile of ${df} degrees of freedom`);
  const tabled = T975[df - 1];
  if (tabled !== undefined) return tabled;
  const z = 1.959963984540054;
  const v = df;
  return (
    z +
    (z ** 3 + z) / (4 * v) +
    (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v ** 2) +
    (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * v ** 3) +
    (79 * z ** 9 + 776 * z ** 7 + 1482 * z ** 5 - 1920 * z ** 3 - 945 * z) / (92160 * v ** 4)
  );
}

export interface PairedEstimate {
  /** The mean of the per-task differences. */
  readonly mean: number;
  /** How many tasks it is over. */
  readonly tasks: number;
  /** sd / sqrt(T); `null` with one task. */
  readonly standardError: number | null;
  /** t(0.975, T-1) * standardError, before clamping; `null` with one task. */
  readonly halfWidth: number | null;
  /** mean -/+ halfWidth, clamped to [-1, 1]; `null` with one task. */
  readonly interval: Interval | null;
  /** The unclamped interval went past -1 or 1. */
  readonly clamped: boolean;
}

/** Mean, standard error and 95% t interval of per-task differences (see the module comment). */
export function pairedEstimate(differences: readonly number[]): PairedEstimate | null {
  const T = differences.length;
  const m = mean(differences);
  if (m === null) return null;
  if (T === 1) return { mean: m, tasks: 1, standardError: null, halfWidth: null, interval: null, clamped: false };
  const variance = differences.reduce((s, d) => s + (d - m) ** 2, 0) / (T - 1);
  const standardError = Math.sqrt(variance) / Math.sqrt(T);
  const halfWidth = tQuantile975(T - 1) * standardError;
  const low = m - halfWidth;
  const high = m + halfWidth;
  return {
    mean: m,
    tasks: T,
    standardError,
    halfWidth,
    interval: { low: Math.max(-1, low), high: Math.min(1, high) },
    clamped: low < -1 || high > 1,
  };
}

/**
 * Two selection policies scored on the same trials: per trial, whether A's pick passes the oracle
 * and whether B's does. `aOnly` and `bOnly` count the discordant trials (McNemar's b and c): only
 * they tell the policies apart.
 */
export interface PairedProportionDifference {
  /** (aOnly - bOnly) / trials: A's pick rate minus B's. */
  readonly mean: number;
  readonly trials: number;
  readonly aOnly: number;
  readonly bOnly: number;
  readonly standardError: number;
  /** mean -/+ z * standardError, clamped to [-1, 1]. */
  readonly interval: Interval;
  readonly clamped: boolean;
}

/**
 * The paired difference of two pick rates over the same trials, by the normal approximation
 * (Wald's interval for paired proportions, as Agresti gives it): the per-trial differences d are
 * -1, 0 or 1, their mean is (b - c) / n, their variance (b + c) / n - mean², and the standard error
 * sqrt(variance / n). Chosen over an exact McNemar test because it gives an interval on the
 * difference itself, in the same units as the rates; it is crude with few discordant trials (with
 * none it is [0, 0]), which is why the reports show b and c beside it: a reader can run the exact
 * test (a binomial test of b against b + c at one half) from them. Trials are treated as
 * independent, as the Wilson intervals do. `null` without a trial.
 */
export function pairedProportionDifference(pairs: readonly (readonly [boolean, boolean])[], z = Z95): PairedProportionDifference | null {
  const n = pairs.length;
  if (n === 0) return null;
  const aOnly = pairs.filter(([a, b]) => a && !b).length;
  const bOnly = pairs.filter(([a, b]) => !a && b).length;
  const m = (aOnly - bOnly) / n;
  const variance = Math.max(0, (aOnly + bOnly) / n - m * m);
  const standardError = Math.sqrt(variance / n);
  const low = m - z * standardError;
  const high = m + z * standardError;
  return {
    mean: m,
    trials: n,
    aOnly,
    bOnly,
    standardError,
    interval: { low: Math.max(-1, low), high: Math.min(1, high) },
    clamped: low < -1 || high > 1,
  };
}
