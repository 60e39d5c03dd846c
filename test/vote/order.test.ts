/** Per-voter labels and orders from a seed, recusal, pairwise questions (src/vote/order.ts). */
import { describe, expect, it } from 'vitest';
import { deanonymiseRanking, labelAt, labelForCandidate, pairwiseQuestions, seededRandom, seededShuffle, voterViews } from '../../src/vote/order.js';

const CANDIDATES = ['c1', 'c2', 'c3', 'c4'];
const VOTERS = [{ id: 'c1', candidate: 'c1' }, { id: 'c2', candidate: 'c2' }, { id: 'c3', candidate: 'c3' }, { id: 'c4', candidate: 'c4' }, { id: 'j1' }];

describe('seededRandom', () => {
  it('gives the same numbers for the same seed and different ones for another seed, all in [0, 1)', () => {
    const take = (seed: string): number[] => {
      const r = seededRandom(seed);
      return Array.from({ length: 50 }, () => r());
    };
    expect(take('s1')).toEqual(take('s1'));
    expect(take('s1')).not.toEqual(take('s2'));
    expect(take('s1').every((x) => x >= 0 && x < 1)).toBe(true);
  });

  it('is not biased to one position: over 4000 shuffles of 4 items each item is first between 800 and 1200 times', () => {
    const r = seededRandom('uniformity');
    const firsts = new Map<string, number>();
    for (let i = 0; i < 4000; i++) {
      const first = seededShuffle(CANDIDATES, r)[0] as string;
      firsts.set(first, (firsts.get(first) ?? 0) + 1);
    }
    expect([...firsts.values()].every((n) => n > 800 && n < 1200)).toBe(true);
  });
});

describe('labelAt', () => {
  it('labels 0, 1, 25, 26, 27 as A, B, Z, AA, AB', () => {
    expect([0, 1, 25, 26, 27].map(labelAt)).toEqual(['A', 'B', 'Z', 'AA', 'AB']);
  });
});

describe('voterViews', () => {
  const views = voterViews('seed-42', CANDIDATES, VOTERS);

  it('never shows a candidate its own work: c1..c4 each see the 3 others, the jury voter j1 sees all 4', () => {
    for (const view of views.slice(0, 4)) {
      expect(view.recused).toBe(view.voter);
      expect(view.shown.map((s) => s.candidate).sort()).toEqual(CANDIDATES.filter((c) => c !== view.voter));
    }
    expect(views[4]?.recused).toBeUndefined();
    expect(views[4]?.shown.map((s) => s.candidate).sort()).toEqual(CANDIDATES);
  });

  it('labels each voter A, B, C… in the order it is shown them', () => {
    for (const view of views) expect(view.shown.map((s) => s.label)).toEqual(['A', 'B', 'C', 'D'].slice(0, view.shown.length));
  });

  it('gives different voters different orders: five voters do not all see the same candidate first', () => {
    const firsts = new Set(views.map((v) => v.shown[0]?.candidate));
    expect(firsts.size).toBeGreaterThan(1);
    // Label A means different candidates to different voters.
    expect(new Set(views.map((v) => v.shown.find((s) => s.label === 'A')?.candidate)).size).toBeGreaterThan(1);
  });

  it('gives five jury voters who see the same 4 candidates at least two different orders', () => {
    const jury = voterViews(
      'seed-42',
      CANDIDATES,
      ['j1', 'j2', 'j3', 'j4', 'j5'].map((id) => ({ id })),
    );
    expect(new Set(jury.map((v) => v.shown.map((s) => s.candidate).join(','))).size).toBeGreaterThan(1);
  });

  it('reproduces every view from the same seed, and another seed changes them', () => {
    expect(voterViews('seed-42', CANDIDATES, VOTERS)).toEqual(views);
    expect(voterViews('seed-43', CANDIDATES, VOTERS)).not.toEqual(views);
  });

  it("gives a voter the same order whatever the other voters are (a voter's order depends on the seed and its id only)", () => {
    expect(voterViews('seed-42', CANDIDATES, [{ id: 'j1' }])[0]).toEqual(views[4]);
  });

  it('does not recuse a voter whose candidate is not in the vote (it was not eligible): it sees all', () => {
    const [view] = voterViews('s', ['c2', 'c3'], [{ id: 'c1', candidate: 'c1' }]);
    expect(view?.recused).toBeUndefined();
    expect(view?.shown).toHaveLength(2);
  });

  it('turns a ballot of labels back into candidate ids, and finds a candidate label', () => {
    const view = {
      voter: 'c1',
      recused: 'c1',
      shown: [
        { label: 'A', candidate: 'c3' },
        { label: 'B', candidate: 'c2' },
      ],
    };
    expect(deanonymiseRanking(view, ['B', 'A'])).toEqual(['c2', 'c3']);
    expect(labelForCandidate(view, 'c2')).toBe('B');
    expect(() => deanonymiseRanking(view, ['C'])).toThrow(/label C/);
  });
});

describe('pairwiseQuestions', () => {
  it('asks each of the 3 pairs of a 3-candidate view in both orders: 6 questions, reproducible from the seed', () => {
    const [view] = voterViews('p', ['c1', 'c2', 'c3'], [{ id: 'j1' }]);
    if (!view) throw new Error('no view');
    const questions = pairwiseQuestions('p', view);
    expect(questions).toHaveLength(6);
    const asked = questions.map((q) => `${q.first.candidate}>${q.second.candidate}`).sort();
    expect(asked).toEqual(['c1>c2', 'c1>c3', 'c2>c1', 'c2>c3', 'c3>c1', 'c3>c2']);
    expect(pairwiseQuestions('p', view)).toEqual(questions);
  });
});
