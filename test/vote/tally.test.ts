/** Borda, approval, plurality and Copeland on hand-worked ballots (src/vote/tally.ts). */
import { describe, expect, it } from 'vitest';
import { countVotes, judgementCount, tallyPairwise, tallyRankings } from '../../src/vote/tally.js';
import type { PairJudgement, RankingBallot, ScoredCandidate } from '../../src/vote/types.js';

const THREE: ScoredCandidate[] = [
  { id: 'c1', checkScore: 7 },
  { id: 'c2', checkScore: 9 },
  { id: 'c3', checkScore: 8 },
];

/** A jury of three, each ranking all three. */
const JURY: RankingBallot[] = [
  { voter: 'j1', ranking: ['c1', 'c2', 'c3'] },
  { voter: 'j2', ranking: ['c2', 'c1', 'c3'] },
  { voter: 'j3', ranking: ['c2', 'c3', 'c1'] },
];

const points = (t: ReturnType<typeof tallyRankings>): Record<string, [number, number]> =>
  Object.fromEntries(t.scores.map((s) => [s.candidate, [s.points, Math.round(s.normalised * 1000) / 1000]]));

describe('tallyRankings', () => {
  it('borda: c1 2+1+0 = 3, c2 1+2+2 = 5, c3 0+0+1 = 1 points (shares 0.5, 0.833, 0.167): c2, c1, c3', () => {
    const t = tallyRankings('borda', THREE, JURY);
    expect(points(t)).toEqual({ c1: [3, 0.5], c2: [5, 0.833], c3: [1, 0.167] });
    expect(t.ranking).toEqual(['c2', 'c1', 'c3']);
    expect(t.steps[0]).toEqual({
      kind: 'ballot',
      voter: 'j1',
      contributions: [
        { candidate: 'c1', points: 2, share: 1 },
        { candidate: 'c2', points: 1, share: 0.5 },
        { candidate: 'c3', points: 0, share: 0 },
      ],
    });
    expect(t.tieBreaks).toEqual([]);
  });

  it('approval (each approves its top ceil(3/2) = 2): c1 2, c2 3, c3 1: c2, c1, c3', () => {
    const t = tallyRankings('approval', THREE, JURY);
    expect(points(t)).toEqual({ c1: [2, 0.667], c2: [3, 1], c3: [1, 0.333] });
    expect(t.ranking).toEqual(['c2', 'c1', 'c3']);
  });

  it('plurality: c1 1 first place, c2 2, c3 0: c2, c1, c3', () => {
    const t = tallyRankings('plurality', THREE, JURY);
    expect(points(t)).toEqual({ c1: [1, 0.333], c2: [2, 0.667], c3: [0, 0] });
    expect(t.ranking).toEqual(['c2', 'c1', 'c3']);
  });

  it('recusal, a Condorcet cycle of n-1 ballots (c1: c2>c3, c2: c3>c1, c3: c1>c2): all tie at 1 point, check scores order them c2 (9), c3 (8), c1 (7)', () => {
    const t = tallyRankings('borda', THREE, [
      { voter: 'c1', ranking: ['c2', 'c3'] },
      { voter: 'c2', ranking: ['c3', 'c1'] },
      { voter: 'c3', ranking: ['c1', 'c2'] },
    ]);
    expect(points(t)).toEqual({ c1: [1, 0.5], c2: [1, 0.5], c3: [1, 0.5] });
    expect(t.ranking).toEqual(['c2', 'c3', 'c1']);
    expect(t.tieBreaks).toEqual([
      'c2 and c3 tie on vote score (0.5): c2 goes first on its higher check score (9 against 8)',
      'c3 and c1 tie on vote score (0.5): c3 goes first on its higher check score (8 against 7)',
    ]);
  });

  it("recusal with c3's voter missing: c2 and c3 both have 1 point, but c2 got it on its only ballot (1.0) and c3 on one of two (0.5): c2 wins despite c3's higher check score", () => {
    const c3Better = [
      { id: 'c1', checkScore: 7 },
      { id: 'c2', checkScore: 8 },
      { id: 'c3', checkScore: 9 },
    ];
    const t = tallyRankings('borda', c3Better, [
      { voter: 'c1', ranking: ['c2', 'c3'] },
      { voter: 'c2', ranking: ['c3', 'c1'] },
    ]);
    expect(t.scores).toEqual([
      { candidate: 'c1', points: 0, ballots: 1, normalised: 0 },
      { candidate: 'c2', points: 1, ballots: 1, normalised: 1 },
      { candidate: 'c3', points: 1, ballots: 2, normalised: 0.5 },
    ]);
    expect(t.ranking).toEqual(['c2', 'c3', 'c1']);
  });

  it('equal votes and equal check scores end by the tie-break order c3, c1, c2, then by id', () => {
    const equal = THREE.map((c) => ({ ...c, checkScore: 5 }));
    const ballots = [
      { voter: 'j1', ranking: ['c1', 'c2', 'c3'] },
      { voter: 'j2', ranking: ['c3', 'c2', 'c1'] },
    ];
    const t = tallyRankings('borda', equal, ballots, ['c3', 'c1', 'c2']);
    // c1 2+0, c2 1+1, c3 0+2: all 2 points.
    expect(t.ranking).toEqual(['c3', 'c1', 'c2']);
    expect(t.tieBreaks[0]).toBe('c3 and c1 tie on vote score (0.5) and check score (5): c3 goes first by the tie-break order');
    expect(tallyRankings('borda', equal, ballots).ranking).toEqual(['c1', 'c2', 'c3']);
  });

  it('a ballot of one candidate (two candidates voting for each other) counts for nothing in every method', () => {
    const two = THREE.slice(0, 2);
    const ballots = [
      { voter: 'c1', ranking: ['c2'] },
      { voter: 'c2', ranking: ['c1'] },
    ];
    for (const method of ['borda', 'approval', 'plurality'] as const) {
      const t = tallyRankings(method, two, ballots);
      expect(t.scores.map((s) => s.ballots)).toEqual([0, 0]);
      expect(t.ranking).toEqual(['c2', 'c1']); // by check score 9 over 7
    }
  });

  it('throws on a ballot naming a candidate that is not in the vote (a bug of the caller)', () => {
    expect(() => tallyRankings('borda', THREE, [{ voter: 'j1', ranking: ['c9', 'c1'] }])).toThrow(/c9/);
  });
});

const judgement = (voter: string, a: string, b: string, aFirst: string | undefined, bFirst: string | undefined): PairJudgement => {
  const outcome = (x: string | undefined) => (x === undefined ? undefined : x === 'tie' ? ({ tie: true } as const) : { winner: x });
  return { voter, a, b, aFirst: outcome(aFirst), bFirst: outcome(bFirst) };
};

describe('tallyPairwise (Copeland)', () => {
  const candidates: ScoredCandidate[] = [
    { id: 'c1', checkScore: 5 },
    { id: 'c2', checkScore: 6 },
    { id: 'c3', checkScore: 5 },
  ];
  const judgements = [
    judgement('j1', 'c1', 'c2', 'c1', 'c1'),
    judgement('j1', 'c1', 'c3', 'c1', 'c3'), // flipped: does not count
    judgement('j1', 'c2', 'c3', 'c2', 'c2'),
    judgement('j2', 'c1', 'c2', 'c2', 'c2'),
    judgement('j2', 'c1', 'c3', 'c1', 'c1'),
    judgement('j2', 'c2', 'c3', 'tie', 'tie'),
  ];

  it('c1-c2 1:1 tie, c1 beats c3 1:0 (the flipped one not counted), c2 beats c3 1:0 with a tie: c1 1.5, c2 1.5, c3 0; c2 first on check score 6', () => {
    const t = tallyPairwise(candidates, judgements);
    expect(t.scores.map((s) => [s.candidate, s.points, s.normalised])).toEqual([
      ['c1', 1.5, 0.75],
      ['c2', 1.5, 0.75],
      ['c3', 0, 0],
    ]);
    expect(t.ranking).toEqual(['c2', 'c1', 'c3']);
    expect(t.steps.filter((s) => s.kind === 'pair')).toEqual([
      { kind: 'pair', a: 'c1', b: 'c2', winsA: 1, winsB: 1, ties: 0, pointsA: 0.5, pointsB: 0.5 },
      { kind: 'pair', a: 'c1', b: 'c3', winsA: 1, winsB: 0, ties: 0, pointsA: 1, pointsB: 0 },
      { kind: 'pair', a: 'c2', b: 'c3', winsA: 1, winsB: 0, ties: 1, pointsA: 1, pointsB: 0 },
    ]);
    expect(t.steps.filter((s) => s.kind === 'judgement').map((s) => (s.kind === 'judgement' ? s.counted : ''))).toEqual([
      'c1',
      'flipped',
      'c2',
      'c2',
      'c1',
      'tie',
    ]);
  });

  it('a judgement whose two orders disagree counts for neither: c1 then c2 first-shown wins leaves the pair tied', () => {
    const t = tallyPairwise(candidates.slice(0, 2), [judgement('j1', 'c1', 'c2', 'c1', 'c2')]);
    expect(t.scores.map((s) => s.points)).toEqual([0.5, 0.5]);
  });

  it('a judgement with one order unanswered is incomplete and does not count', () => {
    expect(judgementCount(judgement('j1', 'c1', 'c2', 'c1', undefined))).toBe('incomplete');
    const t = tallyPairwise(candidates.slice(0, 2), [judgement('j1', 'c1', 'c2', 'c1', undefined)]);
    expect(t.scores.map((s) => s.points)).toEqual([0.5, 0.5]);
  });
});

describe('countVotes', () => {
  it('dispatches on the method: borda on the jury ballots gives c2, c1, c3; pairwise on one agreed judgement c3 over c1 puts c3 first', () => {
    expect(countVotes({ method: 'borda', ballots: JURY }, THREE).ranking).toEqual(['c2', 'c1', 'c3']);
    const t = countVotes({ method: 'pairwise', judgements: [judgement('j1', 'c1', 'c3', 'c3', 'c3')] }, THREE);
    expect(t.method).toBe('pairwise');
    // c3 1 + 0.5 (no judgement on c2-c3) = 1.5; c2 0.5 + 0.5 = 1; c1 0 + 0.5 = 0.5.
    expect(t.ranking).toEqual(['c3', 'c2', 'c1']);
  });
});
