/** Check scores and votes mixed by weight (src/vote/combine.ts). */
import { describe, expect, it } from 'vitest';
import { combineScores } from '../../src/vote/combine.js';
import { tallyRankings } from '../../src/vote/tally.js';

/**
 * The worked example. Checks: c1 10, c2 4, c3 8 (normalised 1, 0.4, 0.8).
 * Votes: c1 0, c2 0.5, c3 0.4 (normalised by the best, 0.5: 0, 1, 0.8).
 *   weight 0:   c1 1,   c2 0.4, c3 0.8  -> c1 (checks only)
 *   weight 0.5: c1 0.5, c2 0.7, c3 0.8  -> c3 (good at both)
 *   weight 1:   c1 0,   c2 1,   c3 0.8  -> c2 (votes only)
 */
const candidates = [
  { id: 'c1', checkScore: 10 },
  { id: 'c2', checkScore: 4 },
  { id: 'c3', checkScore: 8 },
];
const votes = new Map([
  ['c1', 0],
  ['c2', 0.5],
  ['c3', 0.4],
]);

describe('combineScores', () => {
  it('weight 0 ranks by checks only: c1 (1), c3 (0.8), c2 (0.4)', () => {
    const r = combineScores({ candidates, votes, weight: 0 });
    expect(r.winner).toBe('c1');
    expect(r.entries.map((e) => [e.candidate, e.combined])).toEqual([
      ['c1', 1],
      ['c3', 0.8],
      ['c2', 0.4],
    ]);
  });

  it('weight 0.5 picks c3, second at both but best overall (0.8 against c2 0.7 and c1 0.5)', () => {
    const r = combineScores({ candidates, votes, weight: 0.5 });
    expect(r.winner).toBe('c3');
    expect(r.entries.map((e) => e.candidate)).toEqual(['c3', 'c2', 'c1']);
    expect(r.entries[0]).toEqual({ candidate: 'c3', rank: 1, checkScore: 8, checkNormalised: 0.8, vote: 0.4, voteNormalised: 0.8, combined: 0.8 });
    expect(r.entries[1]?.combined).toBeCloseTo(0.7, 12);
  });

  it('weight 1 ranks by votes only: c2 (1), c3 (0.8), c1 (0)', () => {
    const r = combineScores({ candidates, votes, weight: 1 });
    expect(r.winner).toBe('c2');
    expect(r.entries.map((e) => e.candidate)).toEqual(['c2', 'c3', 'c1']);
  });

  it('weight 1 with equal votes falls back to the check score, then the tie-break order', () => {
    const equal = new Map([
      ['c1', 0.5],
      ['c2', 0.5],
      ['c3', 0.5],
    ]);
    const r = combineScores({ candidates, votes: equal, weight: 1 });
    expect(r.entries.map((e) => e.candidate)).toEqual(['c1', 'c3', 'c2']);
    expect(r.tieBreaks[0]).toBe('c1 and c3 tie on combined score (1): c1 goes first on its higher check score (10 against 8)');
    const sameChecks = candidates.map((c) => ({ ...c, checkScore: 3 }));
    expect(combineScores({ candidates: sameChecks, votes: equal, weight: 1, tieBreakOrder: ['c2', 'c3', 'c1'] }).winner).toBe('c2');
  });

  it('all check scores 0 and no votes: every candidate 0, ordered by the tie-break order', () => {
    const zero = candidates.map((c) => ({ ...c, checkScore: 0 }));
    const r = combineScores({ candidates: zero, votes: new Map(), weight: 0.5, tieBreakOrder: ['c3', 'c2', 'c1'] });
    expect(r.entries.map((e) => [e.candidate, e.combined])).toEqual([
      ['c3', 0],
      ['c2', 0],
      ['c1', 0],
    ]);
  });

  it('is degraded, and says who is missing, when a voter timed out; not degraded otherwise', () => {
    const missing = [{ voter: 'c2', reason: 'timed out after 10m' }];
    expect(combineScores({ candidates, votes, weight: 0.5, missingVoters: missing })).toMatchObject({ degraded: true, missingVoters: missing });
    expect(combineScores({ candidates, votes, weight: 0.5 }).degraded).toBe(false);
  });

  it('takes a tally as it is: a jury borda vote of c2>c3>c1 twice, weight 0.5: c2 0.7, c3 0.65, c1 0.5', () => {
    const tally = tallyRankings('borda', candidates, [
      { voter: 'j1', ranking: ['c2', 'c3', 'c1'] },
      { voter: 'j2', ranking: ['c2', 'c3', 'c1'] },
    ]);
    // Votes c2 1, c3 0.5, c1 0; combined c1 0.5, c2 0.7, c3 0.65.
    const r = combineScores({ candidates, votes: new Map(tally.scores.map((s) => [s.candidate, s.normalised])), weight: 0.5 });
    expect(r.entries.map((e) => e.candidate)).toEqual(['c2', 'c3', 'c1']);
  });

  it('refuses a weight outside 0..1 as a bug (the spec validates it)', () => {
    expect(() => combineScores({ candidates, votes, weight: 1.5 })).toThrow(/weight 1.5/);
  });
});
