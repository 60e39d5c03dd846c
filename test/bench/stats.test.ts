/** The bench statistics on values worked out by hand (src/bench/stats.ts). */
import { describe, expect, it } from 'vitest';
import { mean, pairedEstimate, passAtK, percentile, tQuantile975, wilsonInterval, Z95 } from '../../src/bench/stats.js';

const four = (n: number | null | undefined): number | null => (n === null || n === undefined ? null : Math.round(n * 10_000) / 10_000);

describe('wilsonInterval', () => {
  it('5 of 6: [0.4365, 0.9699]', () => {
    // z^2 = 1.959964^2 = 3.841459; z^2/n = 0.640243, so the denominator is 1.640243.
    // centre = (5/6 + z^2/12) / 1.640243 = (0.833333 + 0.320122) / 1.640243 = 0.703222
    // half = (z / 1.640243) * sqrt(p(1-p)/n + z^2/(4n^2)) = 1.194923 * sqrt(0.023148 + 0.026677)
    //      = 1.194923 * 0.223215 = 0.266725
    const w = wilsonInterval(5, 6);
    expect([four(w?.low), four(w?.high)]).toEqual([0.4365, 0.9699]);
  });

  it('0 of 3 starts at 0 and 3 of 3 ends at 1, neither of zero width (where the normal interval fails)', () => {
    // n = 3: denominator 1 + 3.841459/3 = 2.280486; centre (0 + 3.841459/6) / 2.280486 = 0.280749,
    // half = (1.959964 / 2.280486) * sqrt(0 + 3.841459/36) = 0.859453 * 0.326664 = 0.280749.
    expect(wilsonInterval(0, 3)).toEqual({ low: 0, high: expect.closeTo(0.561497, 6) });
    const all = wilsonInterval(3, 3);
    expect([four(all?.low), all?.high]).toEqual([0.4385, 1]);
  });

  it('no trials: no interval', () => {
    expect(wilsonInterval(0, 0)).toBeNull();
    expect(Z95).toBe(1.959964);
  });
});

describe('passAtK', () => {
  it('matches 1 - C(n-c,k)/C(n,k) by hand', () => {
    // n=3, c=1, k=2: 1 - C(2,2)/C(3,2) = 1 - 1/3 = 2/3 (product: 1 - (1 - 2/3) = 2/3).
    expect(four(passAtK(3, 1, 2))).toBe(0.6667);
    // n=5, c=2, k=2: 1 - C(3,2)/C(5,2) = 1 - 3/10 = 0.7 (product: 1 - (1-2/4)(1-2/5) = 1 - 0.5*0.6).
    expect(four(passAtK(5, 2, 2))).toBe(0.7);
    // pass@1 is c/n.
    expect(four(passAtK(3, 2, 1))).toBe(0.6667);
    // n - c < k: every draw of k holds a success.
    expect(passAtK(3, 2, 2)).toBe(1);
    expect(passAtK(3, 0, 3)).toBe(0);
  });

  it('stays exact where the binomials would overflow a double: n=2000, c=1, k=1000 is 1/2', () => {
    // C(1999,1000)/C(2000,1000) = 1000/2000, so pass@1000 = 0.5.
    expect(passAtK(2000, 1, 1000)).toBeCloseTo(0.5, 12);
  });

  it('a k past n is a bug of the caller', () => {
    expect(() => passAtK(2, 1, 3)).toThrow(/bug: pass@3 asked of 2 trials/);
  });
});

describe('percentile (nearest rank)', () => {
  it('p50 of 6 values is the 3rd, p90 the 6th (ceil(5.4)); p50 of 5 values the 3rd, p90 the 5th (ceil(4.5))', () => {
    expect(percentile([60, 10, 50, 20, 40, 30], 50)).toBe(30);
    expect(percentile([60, 10, 50, 20, 40, 30], 90)).toBe(60);
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(percentile([5, 1, 4, 2, 3], 90)).toBe(5);
    expect(percentile([7], 90)).toBe(7);
    expect(percentile([], 50)).toBeNull();
    expect(mean([])).toBeNull();
  });
});

describe('tQuantile975', () => {
  it('is the table below 31 degrees of freedom and within 1e-6 of the exact quantile above', () => {
    expect(tQuantile975(1)).toBe(12.706205);
    expect(tQuantile975(4)).toBe(2.776445);
    expect(tQuantile975(30)).toBe(2.042272);
    // Exact values (scipy.stats.t.ppf(0.975, df)): 31 -> 2.039513, 60 -> 2.000298, 1000 -> 1.962339.
    expect(tQuantile975(31)).toBeCloseTo(2.039513, 6);
    expect(tQuantile975(60)).toBeCloseTo(2.000298, 6);
    expect(tQuantile975(1000)).toBeCloseTo(1.962339, 6);
  });
});

describe('pairedEstimate', () => {
  it('5 tasks with differences 0, 1/3, 1/3, 2/3, 2/3: mean 0.4, interval [0.0537, 0.7463]', () => {
    // mean = 2/5 = 0.4; deviations -0.4, -1/15, -1/15, 4/15, 4/15;
    // sample variance = (0.16 + 2/225 + 32/225) / 4 = (70/225) / 4 = 7/90 = 0.077778;
    // SE = sqrt(7/90) / sqrt(5) = 0.124722; t(0.975, 4) = 2.776445; half = 0.346284.
    const e = pairedEstimate([0, 1 / 3, 1 / 3, 2 / 3, 2 / 3]);
    expect([four(e?.mean), four(e?.standardError), four(e?.halfWidth)]).toEqual([0.4, 0.1247, 0.3463]);
    expect([four(e?.interval?.low), four(e?.interval?.high), e?.clamped]).toEqual([0.0537, 0.7463, false]);
  });

  it('one task: a mean, no interval; no task: nothing', () => {
    expect(pairedEstimate([0.5])).toEqual({ mean: 0.5, tasks: 1, standardError: null, halfWidth: null, interval: null, clamped: false });
    expect(pairedEstimate([])).toBeNull();
  });

  it('clamps to [-1, 1] and says so', () => {
    // mean 0.5, SE = |1 - 0| / 2 = 0.5, half = 12.706205 * 0.5 = 6.353: far past both ends.
    const e = pairedEstimate([1, 0]);
    expect(e?.interval).toEqual({ low: -1, high: 1 });
    expect(e?.clamped).toBe(true);
  });
});
