/** Voter agreement, order flips, length correlation and the too-close-to-call rule (src/vote/agreement.ts). */
import { describe, expect, it } from 'vitest';
import {
  judgementsByVoter,
  kendallW,
  lengthCorrelation,
  orderFlipRate,
  pairwiseAgreement,
  preferencesFromJudgements,
  preferencesFromRankings,
  tooCloseToCall,
} from '../../src/vote/agreement.js';
import { tallyRankings } from '../../src/vote/tally.js';
import type { PairJudgement, RankingBallot } from '../../src/vote/types.js';

const ballot = (voter: string, ...ranking: string[]): RankingBallot => ({ voter, ranking });

describe('kendallW', () => {
  it('complete rankings a>b>c, a>b>c, c>b>a: rank sums 5, 6, 7, S = 2, W = 12*2 / (9*24) = 1/9', () => {
    const w = kendallW([ballot('v1', 'a', 'b', 'c'), ballot('v2', 'a', 'b', 'c'), ballot('v3', 'c', 'b', 'a')]);
    expect(w?.w).toBeCloseTo(1 / 9, 12);
    expect(w?.meanSpearman).toBeCloseTo(-1 / 3, 12);
    expect(w?.voterPairs).toBe(3);
  });

  it('two opposite rankings give W = 0, identical ones W = 1', () => {
    expect(kendallW([ballot('v1', 'a', 'b', 'c'), ballot('v2', 'c', 'b', 'a')])?.w).toBeCloseTo(0, 12);
    expect(kendallW([ballot('v1', 'a', 'b', 'c'), ballot('v2', 'a', 'b', 'c')])?.w).toBeCloseTo(1, 12);
  });

  it('recusal, 4 candidates each ranking the 3 others consistently with c1>c2>c3>c4: W = 1 over 6 voter pairs', () => {
    const ballots = [ballot('c1', 'c2', 'c3', 'c4'), ballot('c2', 'c1', 'c3', 'c4'), ballot('c3', 'c1', 'c2', 'c4'), ballot('c4', 'c1', 'c2', 'c3')];
    expect(kendallW(ballots)).toEqual({ w: 1, meanSpearman: 1, voterPairs: 6 });
  });

  it('recusal, c4 reverses its ballot: its 3 pairs have rho -1, the 3 others +1, mean 0, W = (3*0 + 1)/4 = 0.25', () => {
    const ballots = [ballot('c1', 'c2', 'c3', 'c4'), ballot('c2', 'c1', 'c3', 'c4'), ballot('c3', 'c1', 'c2', 'c4'), ballot('c4', 'c3', 'c2', 'c1')];
    expect(kendallW(ballots)?.w).toBeCloseTo(0.25, 12);
  });

  it('is undefined when no two voters share two candidates (3 candidates voting with recusal)', () => {
    expect(kendallW([ballot('c1', 'c2', 'c3'), ballot('c2', 'c3', 'c1'), ballot('c3', 'c1', 'c2')])).toBeUndefined();
  });
});

describe('pairwiseAgreement', () => {
  it('a>b>c, a>b>c, c>b>a: each of the 3 pairs has 1 agreeing voter pair of 3, agreement 3/9', () => {
    const prefs = preferencesFromRankings([ballot('v1', 'a', 'b', 'c'), ballot('v2', 'a', 'b', 'c'), ballot('v3', 'c', 'b', 'a')]);
    expect(pairwiseAgreement(prefs)).toEqual({ agreement: 1 / 3, comparisons: 9 });
  });

  it('works on the recused ballots Kendall cannot use: c1: c2>c3, c2: c3>c1, c3: c1>c2 share no pair, so it is undefined; a jury ballot c2>c3>c1 adds 3 comparisons, 2 of them agreeing (2/3)', () => {
    const cycle = [ballot('c1', 'c2', 'c3'), ballot('c2', 'c3', 'c1'), ballot('c3', 'c1', 'c2')];
    expect(pairwiseAgreement(preferencesFromRankings(cycle))).toBeUndefined();
    // j1's c2>c3 agrees with c1's; c3>c1 with c2's; c2>c1 disagrees with c3's c1>c2.
    expect(pairwiseAgreement(preferencesFromRankings([...cycle, ballot('j1', 'c2', 'c3', 'c1')]))).toEqual({ agreement: 2 / 3, comparisons: 3 });
  });

  it('counts only pairwise judgements whose two orders agreed, ties included', () => {
    const j = (voter: string, aFirst: PairJudgement['aFirst'], bFirst: PairJudgement['bFirst']): PairJudgement => ({ voter, a: 'c1', b: 'c2', aFirst, bFirst });
    const prefs = preferencesFromJudgements([
      j('j1', { winner: 'c1' }, { winner: 'c1' }),
      j('j2', { winner: 'c1' }, { winner: 'c1' }),
      j('j3', { winner: 'c1' }, { winner: 'c2' }),
      j('j4', { tie: true }, { tie: true }),
    ]);
    // j1-j2 agree, j1-j4 and j2-j4 do not; j3 flipped and is left out.
    expect(pairwiseAgreement(prefs)).toEqual({ agreement: 1 / 3, comparisons: 3 });
  });
});

describe('orderFlipRate', () => {
  it('1 flipped of 4 answered in both orders = 0.25; the incomplete one is left out', () => {
    const j = (aFirst: string | undefined, bFirst: string | undefined): PairJudgement => ({
      voter: 'j1',
      a: 'c1',
      b: 'c2',
      aFirst: aFirst === undefined ? undefined : { winner: aFirst },
      bFirst: bFirst === undefined ? undefined : { winner: bFirst },
    });
    expect(orderFlipRate([j('c1', 'c1'), j('c1', 'c2'), j('c2', 'c2'), j('c1', 'c1'), j('c1', undefined)])).toEqual({ rate: 0.25, flipped: 1, judged: 4 });
    expect(orderFlipRate([j('c1', undefined)])).toBeUndefined();
  });
});

describe('lengthCorrelation', () => {
  it('lengths 100, 200, 300 with votes 0, 0.5, 1 give r = 1; reversed r = -1; votes 0, 1, 0 give r = 0', () => {
    expect(
      lengthCorrelation([
        { length: 100, vote: 0 },
        { length: 200, vote: 0.5 },
        { length: 300, vote: 1 },
      ]),
    ).toBeCloseTo(1, 12);
    expect(
      lengthCorrelation([
        { length: 100, vote: 1 },
        { length: 200, vote: 0.5 },
        { length: 300, vote: 0 },
      ]),
    ).toBeCloseTo(-1, 12);
    expect(
      lengthCorrelation([
        { length: 100, vote: 0 },
        { length: 200, vote: 1 },
        { length: 300, vote: 0 },
      ]),
    ).toBeCloseTo(0, 12);
  });

  it('is undefined for two candidates or votes that do not vary', () => {
    expect(
      lengthCorrelation([
        { length: 1, vote: 0 },
        { length: 2, vote: 1 },
      ]),
    ).toBeUndefined();
    expect(
      lengthCorrelation([
        { length: 1, vote: 0.5 },
        { length: 2, vote: 0.5 },
        { length: 3, vote: 0.5 },
      ]),
    ).toBeUndefined();
  });
});

describe('tooCloseToCall', () => {
  const two = [
    { id: 'c1', checkScore: 1 },
    { id: 'c2', checkScore: 1 },
  ];
  const bordaScores = (ballots: readonly RankingBallot[]): Map<string, number> =>
    new Map(tallyRankings('borda', two, ballots).scores.map((s) => [s.candidate, s.normalised]));

  it('5 jurors all c2>c1: margin 1, c2 ahead in every resample, not too close', () => {
    const units = ['j1', 'j2', 'j3', 'j4', 'j5'].map((v) => ballot(v, 'c2', 'c1'));
    const call = tooCloseToCall({ seed: 's', units, score: bordaScores, winner: 'c2', runnerUp: 'c1' });
    expect(call).toEqual({ tooClose: false, winner: 'c2', runnerUp: 'c1', margin: 1, resamples: 1000, notAhead: 0, interval: [1, 1] });
  });

  it('3 jurors c2>c1 against 2 c1>c2: margin 0.2, but c2 is not ahead in about P(Bin(5, 0.6) <= 2) = 32% of resamples: too close', () => {
    const units = [ballot('j1', 'c2', 'c1'), ballot('j2', 'c2', 'c1'), ballot('j3', 'c2', 'c1'), ballot('j4', 'c1', 'c2'), ballot('j5', 'c1', 'c2')];
    const call = tooCloseToCall({ seed: 's', units, score: bordaScores, winner: 'c2', runnerUp: 'c1' });
    expect(call.tooClose).toBe(true);
    expect(call.margin).toBeCloseTo(0.2, 12);
    expect(call.notAhead).toBeGreaterThan(250);
    expect(call.notAhead).toBeLessThan(390);
    expect(tooCloseToCall({ seed: 's', units, score: bordaScores, winner: 'c2', runnerUp: 'c1' })).toEqual(call);
  });

  it('a margin of 0 is too close whatever the resamples say, and so is a vote without ballots', () => {
    const tied = [ballot('j1', 'c2', 'c1'), ballot('j2', 'c1', 'c2')];
    expect(tooCloseToCall({ seed: 's', units: tied, score: bordaScores, winner: 'c2', runnerUp: 'c1' }).tooClose).toBe(true);
    expect(tooCloseToCall({ seed: 's', units: [], score: bordaScores, winner: 'c2', runnerUp: 'c1' })).toMatchObject({ tooClose: true, resamples: 0 });
  });

  it('resamples pairwise judgements by voter: j1 gives 2 judgements, j2 one', () => {
    const j = (voter: string, b: string): PairJudgement => ({ voter, a: 'c1', b, aFirst: { winner: 'c1' }, bFirst: { winner: 'c1' } });
    expect(judgementsByVoter([j('j1', 'c2'), j('j2', 'c2'), j('j1', 'c3')]).map((g) => g.length)).toEqual([2, 1]);
  });
});
