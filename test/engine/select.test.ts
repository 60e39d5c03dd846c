/** Selection's rules as a pure function of the run's state and what git says (src/engine/select.ts). */
import { describe, expect, it } from 'vitest';
import { frozenChanges, ineligibility, rankCandidates, type SelectionPolicy } from '../../src/engine/select.js';
import type { CandidateState } from '../../src/engine/run-state.js';

function candidate(id: string, index: number, over: Partial<CandidateState> = {}): CandidateState {
  return {
    id, index, label: id, provider: 'script', model: undefined, branch: `bestof/r/${id}`, ref: `refs/bestof/r/${id}/kept`, worktree: `/w/${id}`,
    status: 'done', iteration: 1, score: 10, maxScore: 10, costUsd: 0, usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    commit: 'a'.repeat(40), diff: { files: 1, insertions: 1, deletions: 0 }, durationMs: 1, lastActivity: '', messages: [], iterations: [], tampered: [],
    ...over,
  };
}
const policy: SelectionPolicy = { minScore: 0, tieBreak: ['cost'] };

describe('ineligibility', () => {
  it('a candidate that changed a frozen path cannot win, unless allow_tampered', () => {
    const cheater = candidate('c1', 1, { tampered: [{ path: 'test/a.test.js', change: 'modified' }] });
    expect(ineligibility(cheater, policy)).toBe('changed frozen paths: test/a.test.js (select.allow_tampered = true would let it win with them reverted)');
    expect(ineligibility(cheater, { ...policy, allowTampered: true })).toBeUndefined();
  });

  it('counts what git says about the final commit, not only the record; editable-rule changes may win', () => {
    const c = candidate('c1', 1, { tampered: [{ path: 'README.md', change: 'modified', rule: 'editable' }] });
    expect(ineligibility(c, policy)).toBeUndefined();
    const evidence = { tampered: [{ path: 't/b.js', change: 'added' as const, rule: 'frozen' as const }, { path: 't/a.js', change: 'deleted' as const }] };
    expect(frozenChanges(c, evidence)).toEqual(['t/a.js', 't/b.js']);
    expect(ineligibility(c, policy, evidence)).toMatch(/^changed frozen paths: t\/a\.js, t\/b\.js /);
  });

  it('lists at most three paths', () => {
    const c = candidate('c1', 1, { tampered: ['a', 'b', 'c', 'd', 'e'].map((path) => ({ path, change: 'modified' as const })) });
    expect(ineligibility(c, policy)).toMatch(/^changed frozen paths: a, b, c and 2 more /);
  });

  it('a candidate whose record git does not vouch for cannot win, whatever its score', () => {
    expect(ineligibility(candidate('c1', 1), policy, { untrusted: 'its kept ref moved' })).toBe('its kept ref moved');
    expect(ineligibility(candidate('c1', 1, { commit: undefined }), policy)).toBe('made no changes');
  });
});

describe('rankCandidates', () => {
  it('an ineligible cheater ranks below a lower-scoring honest candidate', () => {
    const ranking = rankCandidates(
      [candidate('c1', 1, { score: 10 }), candidate('c2', 2, { score: 5 })],
      policy,
      new Map([['c1', { tampered: [{ path: 'test/a.test.js', change: 'modified' as const }] }]]),
    );
    expect(ranking.map((r) => [r.candidate, r.eligible])).toEqual([['c2', true], ['c1', false]]);
  });
});

describe('rankCandidates with a vote', () => {
  const vote = (rank: number, score: number, combined: number) => ({ vote: { rank, score, combined } });

  it("orders the candidates the vote judged by its combined ranking, before the check score's tie-breaks", () => {
    // Same scores; c1 is cheaper, so without the vote it would win.
    const c1 = candidate('c1', 1, { costUsd: 0.1, ...vote(2, 0.25, 0.6) });
    const c2 = candidate('c2', 2, { costUsd: 0.9, ...vote(1, 0.75, 1) });
    expect(rankCandidates([c1, c2], policy).map((r) => [r.candidate, r.vote, r.combined])).toEqual([
      ['c2', 0.75, 1],
      ['c1', 0.25, 0.6],
    ]);
    expect(rankCandidates([{ ...c1, vote: undefined }, { ...c2, vote: undefined }], policy).map((r) => r.candidate)).toEqual(['c1', 'c2']);
  });

  it('an ineligible candidate stays below every eligible one, whatever the vote said', () => {
    const c1 = candidate('c1', 1, { score: 2, ...vote(1, 1, 1) });
    const c2 = candidate('c2', 2, { score: 8, ...vote(2, 0, 0.5) });
    expect(rankCandidates([c1, c2], { ...policy, minScore: 5 }).map((r) => [r.candidate, r.eligible])).toEqual([
      ['c2', true],
      ['c1', false],
    ]);
  });

  it('the `votes` tie-break compares the vote score', () => {
    const c1 = candidate('c1', 1, { vote: { rank: 1, score: 0.2, combined: 1 } });
    const c2 = candidate('c2', 2, { vote: { rank: 1, score: 0.8, combined: 1 } });
    expect(rankCandidates([c1, c2], { minScore: 0, tieBreak: ['votes'] }).map((r) => r.candidate)).toEqual(['c2', 'c1']);
    expect(rankCandidates([c1, c2], { minScore: 0, tieBreak: [] }).map((r) => r.candidate)).toEqual(['c1', 'c2']);
  });
});
