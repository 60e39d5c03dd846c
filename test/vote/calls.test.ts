/** The number of voter calls a vote plans (src/vote/calls.ts). */
import { describe, expect, it } from 'vitest';
import { plannedVoterCalls } from '../../src/vote/calls.js';
import { voterViews } from '../../src/vote/order.js';

describe('plannedVoterCalls', () => {
  const views = voterViews(
    's',
    ['c1', 'c2', 'c3'],
    [{ id: 'c1', candidate: 'c1' }, { id: 'c2', candidate: 'c2' }, { id: 'c3', candidate: 'c3' }, { id: 'j1' }],
  );

  it('borda with cross-review: 3 recused voters and 1 juror make 2 calls each, 8 in all, 16 at most', () => {
    expect(plannedVoterCalls(views, { method: 'borda', crossReview: true })).toEqual({
      expected: 8,
      atMost: 16,
      perVoter: [
        { voter: 'c1', calls: 2 },
        { voter: 'c2', calls: 2 },
        { voter: 'c3', calls: 2 },
        { voter: 'j1', calls: 2 },
      ],
    });
  });

  it('pairwise without cross-review: a recused voter asks 1 pair twice (2 calls), the juror 3 pairs twice (6): 12 in all', () => {
    expect(plannedVoterCalls(views, { method: 'pairwise', crossReview: false }).perVoter.map((v) => v.calls)).toEqual([2, 2, 2, 6]);
    expect(plannedVoterCalls(views, { method: 'pairwise', crossReview: false }).expected).toBe(12);
  });

  it('a voter shown a single candidate has nothing to rank: no ballot call', () => {
    const two = voterViews('s', ['c1', 'c2'], [{ id: 'c1', candidate: 'c1' }]);
    expect(plannedVoterCalls(two, { method: 'borda', crossReview: false }).expected).toBe(0);
  });
});
