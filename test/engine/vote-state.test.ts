/** The vote's events folded into the run's state (src/engine/record/run-state.ts): what selection and the report read. */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { decideVote } from '../../src/vote/decide.js';

const t = '2026-01-01T00:00:00.000Z';
const started: RunEvent = {
  t,
  type: 'run.started',
  runId: 'r',
  name: 'n',
  repo: '/r',
  base: 'main',
  baseCommit: 'b'.repeat(40),
  runDir: '/r/.bestof/runs/r',
  specPath: '/r/spec.toml',
  candidates: ['c1', 'c2', 'c3'].map((id, i) => ({
    id,
    index: i + 1,
    label: id,
    provider: 'script' as const,
    model: undefined,
    branch: `bestof/r/${id}`,
    ref: `refs/bestof/r/${id}/kept`,
    worktree: `/w/${id}`,
  })),
  checks: [],
  maxScore: 2,
  scoreThreshold: 2,
  maxIterations: 1,
  mergeMode: 'branch',
};
const voteStarted: RunEvent = {
  t,
  type: 'vote.started',
  seed: 's',
  method: 'borda',
  weight: 0.5,
  voters: [{ id: 'j1', kind: 'command' }],
  eligible: ['c1', 'c2', 'c3'],
  views: [],
  materials: [],
};
const result = decideVote({
  seed: 's',
  method: 'borda',
  weight: 0.5,
  candidates: ['c1', 'c2', 'c3'].map((id) => ({ id, checkScore: 2 })),
  tieBreakOrder: ['c3', 'c2', 'c1'],
  ballots: [
    { voter: 'j1', ranking: ['c1', 'c2', 'c3'] },
    { voter: 'j2', ranking: ['c2', 'c3', 'c1'] },
    { voter: 'j3', ranking: ['c1', 'c3', 'c2'] },
  ],
  judgements: [],
  missingVoters: [],
  lengths: new Map([
    ['c1', 300],
    ['c2', 200],
    ['c3', 100],
  ]),
});

describe('the vote in the run state', () => {
  it('decideVote gives the hand-worked Borda result, the checks-only ranking and the statistics', () => {
    expect(result.combined.entries.map((e) => [e.candidate, e.rank, Math.round(e.combined * 1000) / 1000])).toEqual([
      ['c1', 1, 1],
      ['c2', 2, 0.875],
      ['c3', 3, 0.75],
    ]);
    expect(result.checksOnly).toEqual(['c3', 'c2', 'c1']);
    expect(result.stats.kendallW?.w).toBeCloseTo(1 / 9);
    expect(result.stats.lengthCorrelation).toBeCloseTo(1);
    expect(result.closeCall?.tooClose).toBe(true);
  });

  it('vote.finished gives each judged candidate its place; the calls are kept in order', () => {
    const state = foldEvents([
      started,
      voteStarted,
      { t, type: 'vote.call', voter: 'j1', purpose: 'ranking', answers: ['FINAL RANKING:\nA'], ranking: ['c1', 'c2', 'c3'], costUsd: 0 },
      { t, type: 'vote.finished', result, message: 'm' },
    ]);
    expect(state.vote?.calls.map((c) => [c.voter, c.purpose])).toEqual([['j1', 'ranking']]);
    expect(state.vote?.result?.combined.winner).toBe('c1');
    expect(state.candidates.c1?.vote).toEqual({ rank: 1, score: 2 / 3, combined: 1 });
    expect(state.candidates.c3?.vote?.rank).toBe(3);
  });

  it('a vote that starts again (resume) or is skipped forgets the places of an earlier one, and keeps its seed', () => {
    const decided = [started, voteStarted, { t, type: 'vote.finished', result, message: 'm' } as RunEvent];
    const again = foldEvents([...decided, voteStarted]);
    expect(again.candidates.c1?.vote).toBeUndefined();
    expect(again.vote?.result).toBeUndefined();
    const skipped = foldEvents([...decided, { t, type: 'vote.skipped', message: 'the vote is stopped: …', seed: 's' }]);
    expect(skipped.candidates.c1?.vote).toBeUndefined();
    expect(skipped.vote?.skipped).toBe('the vote is stopped: …');
    expect(skipped.vote?.seed).toBe('s');
  });

  it("voter calls count in the run's cost and in the vote's, never in a candidate's; an answer reused on resume is not counted twice", () => {
    const call = (costUsd: number, reused?: true): RunEvent => ({
      t,
      type: 'vote.call',
      voter: 'j1',
      purpose: 'ranking',
      answers: ['x'],
      ranking: ['c1', 'c2'],
      costUsd,
      ...(reused ? { reused } : {}),
    });
    const first = foldEvents([started, voteStarted, call(0.25), call(0.5)]);
    expect(first.costUsd).toBe(0.75);
    expect(first.voteCostUsd).toBe(0.75);
    expect(first.candidates.c1?.costUsd).toBe(0);
    // Resumed: the vote starts again, one answer comes from the record, one is asked anew.
    const resumed = foldEvents([started, voteStarted, call(0.25), call(0.5), voteStarted, call(0.25, true), call(0.125)]);
    expect(resumed.costUsd).toBe(0.875);
    expect(resumed.voteCostUsd).toBe(0.875);
    expect(resumed.vote?.calls).toHaveLength(2);
  });
});
