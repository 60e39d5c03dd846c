/** The arithmetic and the round order of the benchmarks' paired measurements (scripts/lib/paired.mjs). */
import { describe, expect, it } from 'vitest';
import { alternatedOrder, formatRatio, median, parseCountList, runAlternated, summarizePairs } from '../../scripts/lib/paired.mjs';

describe('median', () => {
  it('the middle value of an odd count, the mean of the middle two of an even count, whatever the order', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });

  it('no values: an error, not NaN', () => {
    expect(() => median([])).toThrow('median: no values');
  });
});

describe('summarizePairs', () => {
  it('the median of the per-round ratios, with min and max: not the ratio of the medians', () => {
    // Ratios 3/2 = 1.5, 5/4 = 1.25, 4/1 = 4: median 1.5. The medians are 2 and 4, whose ratio (2.0)
    // pairs round 1's reference with round 3's measured time.
    const summary = summarizePairs([
      { reference: 2, measured: 3 },
      { reference: 4, measured: 5 },
      { reference: 1, measured: 4 },
    ]);
    expect(summary).toEqual({ rounds: 3, reference: 2, measured: 4, ratios: [1.5, 1.25, 4], ratio: { median: 1.5, min: 1.25, max: 4 } });
  });

  it('an even number of rounds: the mean of the two middle ratios', () => {
    // 2/1 = 2, 3/1 = 3, 0.5/1 = 0.5, 10/4 = 2.5: sorted 0.5, 2, 2.5, 3, median (2 + 2.5) / 2 = 2.25.
    const summary = summarizePairs([
      { reference: 1, measured: 2 },
      { reference: 1, measured: 3 },
      { reference: 1, measured: 0.5 },
      { reference: 4, measured: 10 },
    ]);
    expect(summary.ratio).toEqual({ median: 2.25, min: 0.5, max: 3 });
  });

  it('a time of zero or less, or no rounds, is an error (a ratio against it means nothing)', () => {
    expect(() => summarizePairs([{ reference: 0, measured: 1 }])).toThrow('times must be positive');
    expect(() => summarizePairs([{ reference: 1, measured: -1 }])).toThrow('times must be positive');
    expect(() => summarizePairs([{ reference: Number.NaN, measured: 1 }])).toThrow('times must be positive');
    expect(() => summarizePairs([])).toThrow('no rounds');
  });
});

describe('formatRatio', () => {
  it('two decimals, the range in brackets', () => {
    expect(formatRatio({ median: 1.5, min: 1.254, max: 4 })).toBe('1.50x [1.25, 4.00]');
  });
});

describe('alternatedOrder', () => {
  it('the first side first in odd rounds, second in even ones', () => {
    expect([1, 2, 3, 4].map((round) => alternatedOrder(round, ['baseline', 'bestof']))).toEqual([
      ['baseline', 'bestof'],
      ['bestof', 'baseline'],
      ['baseline', 'bestof'],
      ['bestof', 'baseline'],
    ]);
  });

  it('rounds count from 1, and there are two sides', () => {
    expect(() => alternatedOrder(0, ['a', 'b'])).toThrow('rounds count from 1');
    expect(() => alternatedOrder(1, ['a', 'b', 'c'])).toThrow('expected two sides');
  });
});

describe('runAlternated', () => {
  it('runs the sides one after the other, alternating which goes first, and keys the results by side', async () => {
    const log: string[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const side = (name: string) => async (round: number) => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      log.push(`${name} ${round} starts`);
      // Give the other side every chance to start meanwhile, were it started without waiting.
      await new Promise((resolve) => setImmediate(resolve));
      log.push(`${name} ${round} ends`);
      running--;
      return `${name}@${round}`;
    };
    const printed: number[] = [];
    const rounds = await runAlternated(3, { baseline: side('baseline'), bestof: side('bestof') }, ({ round }) => printed.push(round));

    expect(log).toEqual([
      'baseline 1 starts',
      'baseline 1 ends',
      'bestof 1 starts',
      'bestof 1 ends',
      'bestof 2 starts',
      'bestof 2 ends',
      'baseline 2 starts',
      'baseline 2 ends',
      'baseline 3 starts',
      'baseline 3 ends',
      'bestof 3 starts',
      'bestof 3 ends',
    ]);
    expect(mostAtOnce).toBe(1);
    expect(printed).toEqual([1, 2, 3]);
    expect(rounds.map((r) => [r.round, r.order, r.results])).toEqual([
      [1, ['baseline', 'bestof'], { baseline: 'baseline@1', bestof: 'bestof@1' }],
      [2, ['bestof', 'baseline'], { baseline: 'baseline@2', bestof: 'bestof@2' }],
      [3, ['baseline', 'bestof'], { baseline: 'baseline@3', bestof: 'bestof@3' }],
    ]);
  });

  it('a side that fails ends the rounds with its error', async () => {
    const ran: string[] = [];
    const failing = runAlternated(3, {
      baseline: async (round) => {
        ran.push(`baseline ${round}`);
        return 1;
      },
      bestof: async (round) => {
        ran.push(`bestof ${round}`);
        if (round === 2) throw new Error('bestof exited with code 1');
        return 1;
      },
    });
    await expect(failing).rejects.toThrow('bestof exited with code 1');
    expect(ran).toEqual(['baseline 1', 'bestof 1', 'bestof 2']);
  });
});

describe('parseCountList', () => {
  it.each([
    ['500,5000', [500, 5000]],
    ['50_000', [50_000]],
    [' 1, 8 ,8', [1, 8]],
    ['64', [64]],
  ])('%j -> %j', (raw, expected) => {
    expect(parseCountList('files', raw, 64 * 1000)).toEqual(expected);
  });

  it.each(['0', '1,,8', '', 'x', '1.5', '-1', '65'])('%j is refused with a message naming the option', (raw) => {
    expect(() => parseCountList('candidates', raw, 64)).toThrow(
      `--candidates: expected whole numbers from 1 to 64 separated by commas (like 1,8), got ${JSON.stringify(raw)}`,
    );
  });

  it('without a maximum, the message says "at least 1"', () => {
    expect(() => parseCountList('files', '0')).toThrow('--files: expected whole numbers of at least 1 separated by commas');
  });
});
