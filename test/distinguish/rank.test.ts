/**
 * The agreement ranking (src/distinguish/rank.ts), worked by hand: which tests are dropped, how
 * the finalists group, and why a group of agreeing finalists beats a lone one that passes more.
 */
import { describe, expect, it } from 'vitest';
import { rankByAgreement } from '../../src/distinguish/rank.js';
import type { GeneratedTest, TestRun } from '../../src/distinguish/types.js';

const tests = (n: number): GeneratedTest[] => Array.from({ length: n }, (_, i) => ({ id: `t${i + 1}`, file: `f${i + 1}.test.mjs`, digest: 'x', bytes: 1 }));

/** Runs from a table: `{ c1: 'PF.', ... }`, one letter per test: P passed, F failed, T timed out, . not run. */
function runs(table: Record<string, string>): TestRun[] {
  const outcome = { P: 'passed', F: 'failed', T: 'timed_out' } as const;
  return Object.entries(table).flatMap(([target, cells]) =>
    [...cells].flatMap((cell, i) => (cell === '.' ? [] : [{ test: `t${i + 1}`, target, outcome: outcome[cell as 'P' | 'F' | 'T'] }])),
  );
}

describe('rankByAgreement', () => {
  it('ranks the configs/examples/distinguish.toml run as its header works it out', () => {
    // t1 broken (fails everywhere), t2 even, t3 odd, t4 single, t5 two digits.
    const result = rankByAgreement({
      finalists: ['c1', 'c3', 'c2'],
      tests: tests(5),
      runs: runs({ c1: 'FFPPP', c2: 'FPPPP', c3: 'FPPPF', base: 'FFFFF' }),
    });
    expect(result.kept).toEqual(['t2', 't3', 't4', 't5']);
    expect(result.dropped).toEqual([{ test: 't1', reason: 'it fails on every finalist' }]);
    expect(result.passed).toEqual({ c1: 3, c2: 4, c3: 3 });
    expect(result.groups).toEqual([
      { members: ['c2'], passed: 4, score: 4 },
      { members: ['c1'], passed: 3, score: 3 },
      { members: ['c3'], passed: 3, score: 3 },
    ]);
    // c1 and c3 tie at 3: the ranking before the step (c1 first, the cheaper) keeps them in order.
    expect(result.order).toEqual(['c2', 'c1', 'c3']);
    expect(result.decided).toBe('c2 won: passed 4 of 4 distinguishing tests, c1 and c3 passed 3');
  });

  it('a group of two that agree beats a lone finalist that passes more (2 x 3 = 6 against 1 x 4)', () => {
    const result = rankByAgreement({ finalists: ['c3', 'c1', 'c2'], tests: tests(4), runs: runs({ c1: 'PPPF', c2: 'PPPF', c3: 'PPPP' }) });
    expect(result.groups).toEqual([
      { members: ['c1', 'c2'], passed: 3, score: 6 },
      { members: ['c3'], passed: 4, score: 4 },
    ]);
    expect(result.order).toEqual(['c1', 'c2', 'c3']);
    expect(result.decided).toBe('c1 won by the tie-break: c1 and c2 each passed 3 of 4 distinguishing tests the same way, c3 passed 4');
  });

  it('drops a test that timed out anywhere (base too) or did not run on every finalist', () => {
    const result = rankByAgreement({
      finalists: ['c1', 'c2'],
      tests: tests(4),
      runs: runs({ c1: 'PTP.', c2: 'FPPP', base: 'FFTF' }),
    });
    expect(result.kept).toEqual(['t1']);
    expect(result.dropped).toEqual([
      { test: 't2', reason: 'it timed out' },
      { test: 't3', reason: 'it timed out' },
      { test: 't4', reason: 'it did not run on every finalist' },
    ]);
    expect(result.order).toEqual(['c1', 'c2']);
    expect(result.decided).toBe('c1 won: passed 1 of 1 distinguishing test, c2 passed 0');
  });

  it('says so when no test was kept, and keeps the order before the step', () => {
    const result = rankByAgreement({ finalists: ['c2', 'c1'], tests: tests(2), runs: runs({ c1: 'FF', c2: 'FF' }) });
    expect(result.kept).toEqual([]);
    expect(result.order).toEqual(['c2', 'c1']);
    expect(result.decided).toBe('the generated tests decided nothing (none was kept): c2 is first by the tie-break');
  });

  it('finalists that pass every kept test alike are one group, and the tie-break orders them', () => {
    const result = rankByAgreement({ finalists: ['c2', 'c1', 'c3'], tests: tests(2), runs: runs({ c1: 'PP', c2: 'PP', c3: 'PF' }) });
    expect(result.groups[0]).toEqual({ members: ['c2', 'c1'], passed: 2, score: 4 });
    expect(result.order).toEqual(['c2', 'c1', 'c3']);
  });
});

describe('rankByAgreement with rival tests (cross_tests)', () => {
  const rival = (id: string, author: string): GeneratedTest => ({ id, file: `${id}.test.mjs`, digest: 'x', bytes: 1, author });

  it('counts a rival test as passed for its author, never run there; drops one that only its author passes', () => {
    // x1 by c2 (even count): c1 fails it, c3 passes it. x2 by c1: every rival fails it.
    const result = rankByAgreement({
      finalists: ['c1', 'c2', 'c3'],
      tests: [...tests(1), rival('x1', 'c2'), rival('x2', 'c1')],
      runs: [
        ...runs({ c1: 'P', c2: 'P', c3: 'P' }),
        ...[
          { test: 'x1', target: 'c1', outcome: 'failed' as const },
          { test: 'x1', target: 'c3', outcome: 'passed' as const },
          { test: 'x2', target: 'c2', outcome: 'failed' as const },
          { test: 'x2', target: 'c3', outcome: 'failed' as const },
        ],
      ],
    });
    expect(result.kept).toEqual(['t1', 'x1']);
    expect(result.dropped).toEqual([{ test: 'x2', reason: 'it fails on every finalist but its author, c1' }]);
    expect(result.passed).toEqual({ c1: 1, c2: 2, c3: 2 });
    expect(result.groups[0]).toEqual({ members: ['c2', 'c3'], passed: 2, score: 4 });
    expect(result.order).toEqual(['c2', 'c3', 'c1']);
  });
});
