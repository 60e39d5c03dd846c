/**
 * The step's order applied to the selection's ranking (src/engine/select/distinguish-order.ts):
 * the finalists that can still win take their own places in the step's order; everyone else,
 * and a finalist that git's evidence made ineligible since, stays where it was.
 */
import { describe, expect, it } from 'vitest';
import type { DistinguishResult } from '../../src/distinguish/types.js';
import type { RankEntry } from '../../src/engine/record/run-types.js';
import { applyDistinguish, chooseFinalists } from '../../src/engine/select/distinguish-order.js';

const entry = (candidate: string, rank: number, eligible = true): RankEntry => ({
  candidate,
  rank,
  score: 1,
  maxScore: 1,
  costUsd: rank / 100,
  diffSize: 1,
  durationMs: 1,
  iterations: 1,
  eligible,
});

const result = (order: string[], passed: Record<string, number>, kept = ['t1', 't2']): DistinguishResult => ({
  kept,
  dropped: [],
  groups: [],
  order,
  passed,
  decided: '',
});

describe('applyDistinguish', () => {
  it('puts the finalists in the step order in the places they held, and says what each passed', () => {
    const ranking = [entry('c1', 1), entry('c3', 2), entry('c2', 3), entry('c4', 4, false)];
    const out = applyDistinguish(ranking, result(['c2', 'c1', 'c3'], { c1: 1, c2: 2, c3: 0 }));
    expect(out.map((e) => [e.rank, e.candidate, e.distinguish?.passed])).toEqual([
      [1, 'c2', 2],
      [2, 'c1', 1],
      [3, 'c3', 0],
      [4, 'c4', undefined],
    ]);
    expect(out[0]?.distinguish).toEqual({ passed: 2, of: 2 });
  });

  it('leaves a finalist that became ineligible (its ref moved) where the ranking put it', () => {
    const ranking = [entry('c1', 1), entry('c3', 2), entry('c2', 3, false)];
    const out = applyDistinguish(ranking, result(['c2', 'c3', 'c1'], { c1: 0, c2: 2, c3: 1 }));
    expect(out.map((e) => e.candidate)).toEqual(['c3', 'c1', 'c2']);
    expect(out[2]?.eligible).toBe(false);
  });

  it('changes nothing when the step kept no test, or did not decide', () => {
    const ranking = [entry('c1', 1), entry('c2', 2)];
    expect(applyDistinguish(ranking, result(['c2', 'c1'], { c1: 0, c2: 0 }, []))).toEqual(ranking);
    expect(applyDistinguish(ranking, undefined)).toEqual(ranking);
  });
});

describe('chooseFinalists', () => {
  const scored = (candidate: string, score: number, eligible = true): RankEntry => ({ ...entry(candidate, 1, eligible), score });
  const ranking = [scored('c4', 5, false), scored('c2', 3), scored('c1', 3), scored('c5', 3), scored('c3', 2)];

  it('"tie": the candidates that can win and share the top score, at most max_finalists, in the ranking\'s order', () => {
    expect(chooseFinalists(ranking, 'tie', 4)).toEqual(['c2', 'c1', 'c5']);
    expect(chooseFinalists(ranking, 'tie', 2)).toEqual(['c2', 'c1']);
  });

  it('"always": the top ones that can win, whatever their scores', () => {
    expect(chooseFinalists(ranking, 'always', 4)).toEqual(['c2', 'c1', 'c5', 'c3']);
  });

  it('none that can win: no finalist', () => {
    expect(chooseFinalists([scored('c1', 3, false)], 'always', 4)).toEqual([]);
  });
});
