/** Selection's rules as a pure function of the run's state and what git says (src/engine/select/select.ts). */
import { describe, expect, it } from 'vitest';
import { frozenChanges, ineligibility, rankCandidates, type SelectionPolicy } from '../../src/engine/select/select.js';
import type { CandidateState } from '../../src/engine/record/run-state.js';

function candidate(id: string, index: number, over: Partial<CandidateState> = {}): CandidateState {
  return {
    id,
    index,
    label: id,
    provider: 'script',
    model: undefined,
    branch: `bestof/r/${id}`,
    ref: `refs/bestof/r/${id}/kept`,
    worktree: `/w/${id}`,
    status: 'done',
    iteration: 1,
    score: 10,
    maxScore: 10,
    costUsd: 0,
    usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    commit: 'a'.repeat(40),
    diff: { files: 1, insertions: 1, deletions: 0 },
    durationMs: 1,
    lastActivity: '',
    messages: [],
    iterations: [],
    tampered: [],
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
    const evidence = {
      tampered: [
        { path: 't/b.js', change: 'added' as const, rule: 'frozen' as const },
        { path: 't/a.js', change: 'deleted' as const },
      ],
    };
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

  it('a candidate an internal error stopped cannot win: it was not finally scored, and the reason says so (not "made no changes")', () => {
    const stopped = candidate('c1', 1, { status: 'failed', reason: 'internal_error', diff: { files: 0, insertions: 0, deletions: 0 } });
    expect(ineligibility(stopped, policy)).toBe('stopped by an internal error (of bestof or of git) before its final scoring (its work is kept)');
  });
});

describe('rankCandidates', () => {
  it('an ineligible cheater ranks below a lower-scoring honest candidate', () => {
    const ranking = rankCandidates(
      [candidate('c1', 1, { score: 10 }), candidate('c2', 2, { score: 5 })],
      policy,
      new Map([['c1', { tampered: [{ path: 'test/a.test.js', change: 'modified' as const }] }]]),
    );
    expect(ranking.map((r) => [r.candidate, r.eligible])).toEqual([
      ['c2', true],
      ['c1', false],
    ]);
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
    expect(
      rankCandidates(
        [
          { ...c1, vote: undefined },
          { ...c2, vote: undefined },
        ],
        policy,
      ).map((r) => r.candidate),
    ).toEqual(['c1', 'c2']);
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

describe('an unknown cost in the cost tie-break', () => {
  it('never wins it: at equal scores the known cost wins though the unknown one counts $0, and the reason names the missing price', () => {
    // c1 (gemini, a model without a price) is listed first and "costs" $0: it used to win.
    const unknown = candidate('c1', 1, { provider: 'gemini', model: 'gemini-9-ultra', costUsd: 0, costKnown: false });
    const known = candidate('c2', 2, { provider: 'claude', model: 'claude-sonnet-4-5', costUsd: 0.4 });
    const ranking = rankCandidates([unknown, known], policy);
    expect(ranking.map((r) => [r.candidate, r.rank, r.eligible])).toEqual([
      ['c2', 1, true],
      ['c1', 2, true],
    ]);
    expect(ranking[0]?.reason).toBeUndefined();
    expect(ranking[1]?.costKnown).toBe(false);
    expect(ranking[1]?.reason).toBe(
      'ranked after c2 on cost: its cost is unknown (no price for its model "gemini-9-ultra" (gemini) in configs/prices.toml; add [providers.gemini.prices."gemini-9-ultra"] to the spec), and an unknown cost ranks after every known one',
    );
  });

  it('names the model the CLI ran, and says a command agent reports none; a higher score still wins over a known cost', () => {
    const ran = candidate('c1', 1, { provider: 'codex', model: undefined, cli: { binary: 'codex', version: '1', argv: [], model: 'gpt-9' }, costKnown: false });
    const command = candidate('c3', 3, { provider: 'command', costKnown: false });
    const known = candidate('c2', 2, { costUsd: 1 });
    const ranking = rankCandidates([ran, known, command], policy);
    expect(ranking.map((r) => r.candidate)).toEqual(['c2', 'c1', 'c3']);
    expect(ranking[1]?.reason).toContain('no price for its model "gpt-9" (codex)');
    // Two unknown costs separate no one: the index does, and nothing is said about cost.
    expect(ranking[2]?.reason).toBeUndefined();
    const better = rankCandidates(
      [candidate('c1', 1, { provider: 'command', costKnown: false, score: 10 }), candidate('c2', 2, { score: 9, costUsd: 0.1 })],
      policy,
    );
    expect(better.map((r) => [r.candidate, r.reason])).toEqual([
      ['c1', undefined],
      ['c2', undefined],
    ]);
  });

  it('without cost in the tie-break, an unknown cost changes nothing', () => {
    const ranking = rankCandidates([candidate('c1', 1, { costKnown: false, provider: 'command' }), candidate('c2', 2, { costUsd: 1 })], {
      minScore: 0,
      tieBreak: ['diff_size'],
    });
    expect(ranking.map((r) => [r.candidate, r.reason])).toEqual([
      ['c1', undefined],
      ['c2', undefined],
    ]);
  });
});

describe('the unknown cost in the report', () => {
  it("report.md's ranking says why the candidate with an unknown cost ranks after the known one, and which price is missing", async () => {
    const { foldEvents } = await import('../../src/engine/record/run-state.js');
    const { renderMarkdownReport } = await import('../../src/report/report.js');
    const { finishedRun } = await import('../ui/scripted-runs.js');
    const state = foldEvents(finishedRun());
    const [first, second] = state.order.map((id) => state.candidates[id] as CandidateState);
    const unknown = { ...(first as CandidateState), provider: 'gemini' as const, model: 'gemini-9-ultra', score: 10, costUsd: 0, costKnown: false };
    const known = { ...(second as CandidateState), score: 10, costUsd: 0.5, costKnown: true };
    const ranking = rankCandidates([unknown, known], policy);
    const md = renderMarkdownReport({ ...state, candidates: { ...state.candidates, [unknown.id]: unknown, [known.id]: known }, ranking });
    expect(md).toMatch(
      new RegExp(
        `\\| 2 \\| ${unknown.id} .*ranked after ${known.id} on cost: its cost is unknown \\(no price for its model "gemini-9-ultra" \\(gemini\\) in configs/prices\\.toml`,
      ),
    );
  });
});
