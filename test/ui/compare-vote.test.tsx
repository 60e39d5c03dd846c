/**
 * The compare view of a run with a vote (`[vote]`): the table's vote columns, the summary line,
 * and the vote pane (`v`) with the selected candidate's ballots, pair verdicts and reviews. The
 * runs are event streams folded by the engine's reducer, with results computed by the vote's
 * own core (decideVote), as the vote phase emits them.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RunEvent, UnstampedEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import type { RankEntry } from '../../src/engine/record/run-types.js';
import { decideVote } from '../../src/vote/decide.js';
import type { MaterialInfo, VoterInfo } from '../../src/vote/record.js';
import { voterViews } from '../../src/vote/order.js';
import type { PairJudgement, RankingBallot } from '../../src/vote/types.js';
import { KEY, renderRun, type Rendered } from './render-helpers.js';
import { candidate, CHECKS, check, DIFF_C2, finished, finishedRun, runStarted, stamp } from './scripted-runs.js';

let ui: Rendered | undefined;
afterEach(async () => {
  await ui?.unmount();
  ui = undefined;
});

const loadDiff = vi.fn(async ({ to }: { to: string }) => (to.startsWith('c2') ? DIFF_C2 : ''));

const SEED = 'feedc0de';

function scored(id: string, score: number, passed: readonly string[]): UnstampedEvent[] {
  return [
    { type: 'candidate.status', candidate: id, status: 'running', iteration: 1 },
    {
      type: 'provider.finished',
      candidate: id,
      iteration: 1,
      outcome: 'success',
      costUsd: 0.01,
      usage: { input: 1000, output: 100, cacheRead: 0, cacheWrite: 0 },
      turns: 1,
      durationMs: 500,
    },
    { type: 'candidate.committed', candidate: id, iteration: 1, commit: id.padEnd(40, 'a'), changedFiles: 1 },
    ...CHECKS.map((k): UnstampedEvent => ({ type: 'check.finished', candidate: id, iteration: 1, check: check(k.name, passed.includes(k.name)) })),
    { type: 'candidate.scored', candidate: id, iteration: 1, score, maxScore: 100, failedChecks: CHECKS.map((k) => k.name).filter((n) => !passed.includes(n)) },
    finished(id, 'done', score === 100 ? 'threshold_reached' : 'max_iterations', score),
  ];
}

const material = (id: string, length: number): MaterialInfo => ({ candidate: id, length, cut: false, changes: {}, checks: 'basic: pass' });

const REVIEWS: Record<string, Record<string, string>> = {
  c1: { c2: 'Lowercases only; accents\nare left as they are.', c3: 'Handles edges, misses accents.' },
  c2: { c1: 'Complete: accents, edges and dashes.', c3: 'Solid on edges.' },
  c3: { c1: 'Thorough but long.', c2: 'Too hasty.' },
  c4: { c1: 'Best of the three.', c2: 'Minimal.', c3: 'Careful.' },
};

/**
 * Four candidates: c1 100 points, c2 and c3 70, c4 tampered (it cannot win, so the vote judges
 * c1-c3, but its agent still votes). Every candidate's agent votes (Borda, weight 0.5), recused
 * from its own; c1 leads c3 narrowly: too close to call.
 */
function votedRun(): RunEvent[] {
  const cs = [candidate(1, 'thorough'), candidate(2, 'hasty'), candidate(3, 'steady'), candidate(4, 'gamer')];
  const eligible = ['c1', 'c2', 'c3'];
  const voters: VoterInfo[] = cs.map((c) => ({ id: c.id, candidate: c.id, kind: 'script' }));
  const views = voterViews(SEED, eligible, voters);
  const ballots: RankingBallot[] = [
    { voter: 'c1', ranking: ['c3', 'c2'] },
    { voter: 'c2', ranking: ['c1', 'c3'] },
    { voter: 'c3', ranking: ['c2', 'c1'] },
    { voter: 'c4', ranking: ['c3', 'c1', 'c2'] },
  ];
  const result = decideVote({
    seed: SEED,
    method: 'borda',
    weight: 0.5,
    candidates: [
      { id: 'c1', checkScore: 100 },
      { id: 'c2', checkScore: 70 },
      { id: 'c3', checkScore: 70 },
    ],
    tieBreakOrder: ['c1', 'c2', 'c3', 'c4'],
    ballots,
    judgements: [],
    missingVoters: [],
    lengths: new Map([
      ['c1', 900],
      ['c2', 200],
      ['c3', 500],
    ]),
  });
  return stamp([
    runStarted(cs),
    ...scored('c1', 100, ['basic', 'unicode', 'edges']),
    ...scored('c2', 70, ['basic', 'unicode']),
    ...scored('c3', 70, ['basic', 'edges']),
    ...scored('c4', 0, []).slice(0, -1),
    { type: 'candidate.tampered', candidate: 'c4', iteration: 1, paths: [{ path: 'configs/demo/test/basic.test.mjs', change: 'modified' }] },
    finished('c4', 'done', 'max_iterations', 0, { commit: 'c4'.padEnd(40, 'a') }),
    {
      type: 'vote.started',
      seed: SEED,
      method: 'borda',
      weight: 0.5,
      voters,
      eligible,
      views,
      materials: eligible.map((id, i) => material(id, 300 * (i + 1))),
    },
    ...voters.map((v): UnstampedEvent => ({ type: 'vote.call', voter: v.id, purpose: 'review', answers: ['…'], reviews: REVIEWS[v.id], costUsd: 0.002 })),
    ...ballots.map(
      (b): UnstampedEvent => ({ type: 'vote.call', voter: b.voter, purpose: 'ranking', answers: ['FINAL RANKING: …'], ranking: b.ranking, costUsd: 0.001 }),
    ),
    { type: 'vote.finished', result, message: 'vote (borda, weight 0.5): c1 > c3 > c2, c1 first' },
    {
      type: 'selection.finished',
      ranking: [
        ...result.combined.entries.map(
          (e): RankEntry => ({
            candidate: e.candidate,
            rank: e.rank,
            score: e.checkScore,
            maxScore: 100,
            costUsd: 0.01,
            diffSize: 10,
            durationMs: 4200,
            iterations: 1,
            eligible: true,
          }),
        ),
        {
          candidate: 'c4',
          rank: 4,
          score: 0,
          maxScore: 100,
          costUsd: 0.01,
          diffSize: 10,
          durationMs: 4200,
          iterations: 1,
          eligible: false,
          reason: 'passed no check',
        },
      ],
      winner: 'c1',
      message: 'c1 wins: first in the vote',
    },
    { type: 'merge.finished', candidate: 'c1', mode: 'branch', ok: true, branch: 'bestof/r1/c1', message: "the winner's work is on branch bestof/r1/c1" },
    { type: 'run.finished', status: 'winner', exitCode: 0, winner: 'c1', durationMs: 6100, message: 'c1 (thorough) won' },
  ]);
}

/** finishedRun() with `extra` (vote events) where the engine emits them: after final scoring, before selection. */
function withVote(extra: readonly UnstampedEvent[]): RunEvent[] {
  const events = finishedRun();
  const at = events.findIndex((e) => e.type === 'selection.finished');
  const t = events[at - 1]?.t ?? '';
  return [...events.slice(0, at), ...extra.map((e) => ({ t, ...e }) as RunEvent), ...events.slice(at)];
}

/**
 * A jury of three asked about c1 and c2 in both orders: j1 prefers c1, j3 c2, j2 timed out.
 * The reviewer (`[review]`) passed c1's iteration.
 */
function pairwiseRun(): RunEvent[] {
  const voters: VoterInfo[] = [
    { id: 'j1', kind: 'claude', model: 'haiku' },
    { id: 'j2', kind: 'gemini' },
    { id: 'j3', kind: 'codex' },
  ];
  const views = voterViews(SEED, ['c1', 'c2'], voters);
  const judgements: PairJudgement[] = [
    { voter: 'j1', a: 'c1', b: 'c2', aFirst: { winner: 'c1' }, bFirst: { winner: 'c1' } },
    { voter: 'j2', a: 'c1', b: 'c2', aFirst: undefined, bFirst: undefined },
    { voter: 'j3', a: 'c1', b: 'c2', aFirst: { winner: 'c2' }, bFirst: { winner: 'c2' } },
  ];
  const missingVoters = [{ voter: 'j2', reason: '2 pair question(s) unanswered: timed out after 10m' }];
  const result = decideVote({
    seed: SEED,
    method: 'pairwise',
    weight: 0.5,
    candidates: [
      { id: 'c1', checkScore: 100 },
      { id: 'c2', checkScore: 40 },
    ],
    tieBreakOrder: ['c1', 'c2', 'c3'],
    ballots: [],
    judgements,
    missingVoters,
    lengths: new Map(),
  });
  const pair = (voter: string, first: string, second: string, winner: string | undefined): UnstampedEvent => ({
    type: 'vote.call',
    voter,
    purpose: 'pair',
    first,
    second,
    answers: winner ? [`WINNER: A`] : [],
    ...(winner ? { verdict: { winner } } : { error: 'timed out after 10m' }),
    costUsd: 0.001,
  });
  return withVote([
    { type: 'review.finished', candidate: 'c1', iteration: 1, verdict: 'lgtm', points: 10, attempts: 1 },
    {
      type: 'vote.started',
      seed: SEED,
      method: 'pairwise',
      weight: 0.5,
      voters,
      eligible: ['c1', 'c2'],
      views,
      materials: [material('c1', 400), material('c2', 100)],
    },
    pair('j1', 'c1', 'c2', 'c1'),
    pair('j1', 'c2', 'c1', 'c1'),
    pair('j2', 'c2', 'c1', undefined),
    pair('j2', 'c1', 'c2', undefined),
    pair('j3', 'c2', 'c1', 'c2'),
    pair('j3', 'c1', 'c2', 'c2'),
    { type: 'vote.finished', result, message: 'vote (pairwise, weight 0.5): c1 > c2, c1 first; degraded' },
  ]);
}

const BUDGET_SKIP =
  "the vote is skipped: it may make up to 12 voter calls (6 if every answer reads the first time), about $0.12 at this run's $0.01 per agent call, " +
  'and [budget] max_total_cost_usd = $0.05 has $0.02 left; the ranking is by the checks alone. Raise max_total_cost_usd, or name a cheaper jury in [vote] voters';

const lines = (frame: string): string[] => frame.split('\n');
/** The first line that starts with `start` (after its indent), without the indent. */
const line = (frame: string, start: string): string =>
  lines(frame)
    .map((l) => l.trimStart())
    .find((l) => l.startsWith(start)) ?? '';

describe('the compare view of a run with a vote', () => {
  it('shows each candidate\'s vote score and combined place in the table, "-" for one the vote did not judge', async () => {
    ui = await renderRun(votedRun(), { loadDiff });
    const frame = ui.frame();
    const run = foldEvents(votedRun());
    const cells = (id: string) =>
      `${run.candidates[id]?.vote?.score.toFixed(2)}\\s+${run.candidates[id]?.vote?.rank}\\. ${run.candidates[id]?.vote?.combined.toFixed(2)}`;
    expect(frame).toMatch(/#\s+candidate\s+points\s+vote combined/);
    expect(frame).toMatch(new RegExp(`› 1\\.\\s+c1 thorough 100/100\\s+${cells('c1')}`));
    expect(frame).toMatch(new RegExp(`2\\.\\s+c3 steady\\s+70/100\\s+${cells('c3')}`));
    expect(frame).toMatch(new RegExp(`3\\.\\s+c2 hasty\\s+70/100\\s+${cells('c2')}`));
    expect(frame).toMatch(/4\.\s+c4 gamer\s+0\/100\s+-\s+-\s/);
  });

  it("sums the vote up under the table: the combined order, the close call, Kendall's W, method, weight and seed", async () => {
    const run = foldEvents(votedRun());
    // The run is what the tests say it is: a close call, with Kendall's W, c4 not judged.
    expect(run.vote?.result?.closeCall?.tooClose).toBe(true);
    expect(run.vote?.result?.stats.kendallW).toBeDefined();
    expect(run.candidates.c4?.vote).toBeUndefined();
    ui = await renderRun(votedRun(), { loadDiff, columns: 200 });
    const w = Math.round((run.vote?.result?.stats.kendallW?.w ?? NaN) * 1000) / 1000;
    expect(line(ui.frame(), 'Vote (v: ballots)')).toBe(
      `Vote (v: ballots): c1 > c3 > c2 · too close to call (by checks alone: c1 > c2 > c3) · Kendall's W ${w} · borda, weight 0.5, seed ${SEED}`,
    );
    expect(ui.frame()).not.toContain('Reviews and votes: none in this run');
    expect(ui.frame()).toContain('Diff of c1 thorough against base');
  });

  it('v shows the vote about the selected candidate: its ballots de-anonymised, who was recused, the reviews of it', async () => {
    ui = await renderRun(votedRun(), { loadDiff, columns: 140 });
    const run = foldEvents(votedRun());
    const labelOf = (voter: string, id: string) => run.vote?.views.find((v) => v.voter === voter)?.shown.find((s) => s.candidate === id)?.label;
    await ui.press('v');
    let frame = ui.frame();
    expect(frame).not.toContain('Diff of c1 thorough');
    expect(frame).toContain('Vote about c1 thorough');
    expect(frame).toContain(`method borda, weight 0.5 (0 = checks only, 1 = votes only), seed ${SEED} · 8 voter calls, $0.0120`);
    expect(frame).toMatch(/^combined: c1 0\.\d+ > c3 0\.\d+ > c2 0\.\d+$/m);
    const stats = run.vote?.result?.stats;
    const round = (n: number | undefined) => Math.round((n ?? NaN) * 1000) / 1000;
    expect(frame).toContain(
      `agreement: Kendall's W ${round(stats?.kendallW?.w)} (over ${stats?.kendallW?.voterPairs} voter pairs); pairwise agreement ${round(stats?.pairwiseAgreement?.agreement)} over ${stats?.pairwiseAgreement?.comparisons} comparisons`,
    );
    expect(frame).toMatch(/^too close to call \(by checks alone: c1 > c2 > c3\): c1 leads c3 by [\d.]+, but not in \d+ of 1000 resamples of the ballots$/m);
    expect(line(frame, 'c2: ')).toBe(`c2: 1st of 2 · saw it as ${labelOf('c2', 'c1')} · c1 > c3`);
    expect(line(frame, 'c3: ')).toBe(`c3: 2nd of 2 · saw it as ${labelOf('c3', 'c1')} · c2 > c1`);
    expect(line(frame, 'c4: ')).toBe(`c4: 2nd of 3 · saw it as ${labelOf('c4', 'c1')} · c3 > c1 > c2`);
    expect(line(frame, 'c1: ')).toBe('c1: recused (its own agent never judges its own work)');
    expect(frame).toContain('Reviews of c1 thorough (cross-review)');
    expect(line(frame, 'c2: Complete')).toBe('c2: Complete: accents, edges and dashes.');
    expect(line(frame, 'c4: Best')).toBe('c4: Best of the three.');

    // Another candidate: its own ballots and reviews; the one it wrote is not among them.
    await ui.press(KEY.down);
    frame = ui.frame();
    expect(frame).toContain('Vote about c3 steady');
    expect(line(frame, 'c1: ')).toBe(`c1: 1st of 2 · saw it as ${labelOf('c1', 'c3')} · c3 > c2`);
    expect(line(frame, 'c3: ')).toBe('c3: recused (its own agent never judges its own work)');
    expect(line(frame, 'c1: Handles')).toBe('c1: Handles edges, misses accents.');

    // A candidate the vote did not judge, and back to the diff.
    await ui.press(KEY.down, KEY.down);
    frame = ui.frame();
    expect(frame).toContain('c4 gamer was not in the vote: only the candidates that could win were judged (c1, c2, c3)');
    expect(frame).toContain('its agent voted as c4: c3 > c1 > c2');
    await ui.press('v');
    expect(ui.frame()).toContain('Diff of c4 gamer against base');
    expect(ui.frame()).toContain('Vote (v: ballots)');
  });

  it("keeps the cost at 60 columns, next to the vote's columns (the check glyphs give way)", async () => {
    ui = await renderRun(votedRun(), { loadDiff, columns: 60, rows: 24 });
    const frame = ui.frame();
    for (const l of lines(frame)) expect([...l].length).toBeLessThanOrEqual(60);
    expect(frame).toMatch(/^ {2}#\s+candidate\s+points vote combined\s+cost$/m);
    expect(frame).toMatch(/› 1\.\s+c1 thorough 100\/100\s+0\.50 1\. 0\.88\s+\$0\.010\s+winner/);
  });

  it('cuts a multi-line review to one line of the width', async () => {
    ui = await renderRun(votedRun(), { loadDiff, columns: 40 });
    await ui.press(KEY.down, KEY.down, 'v');
    const frame = ui.frame();
    expect(frame).toContain('Vote about c2 hasty');
    expect(line(frame, 'c1: Lowercases')).toBe('c1: Lowercases only; accents are left…');
    for (const l of lines(frame)) expect([...l].length).toBeLessThanOrEqual(40);
  });

  it('fits 80x24 with the diff or the vote below the table, and j/k scroll the vote pane', async () => {
    ui = await renderRun(votedRun(), { loadDiff, columns: 80, rows: 24 });
    const fits = (frame: string) => {
      expect(lines(frame).length).toBeLessThanOrEqual(24);
      for (const l of lines(frame)) expect([...l].length).toBeLessThanOrEqual(80);
    };
    let frame = ui.frame();
    fits(frame);
    expect(frame).toMatch(/› 1\.\s+c1 thorough 100\/100\s+0\.\d\d\s+1\. \d\.\d\d/);
    expect(frame).toContain('Vote (v: ballots): c1 > c3 > c2 · too close to call');
    await ui.press('v');
    frame = ui.frame();
    fits(frame);
    expect(frame).toMatch(/Vote about c1 thorough · lines 1-\d+ of \d+ \(j\/k\)/);
    expect(frame).toMatch(/^combined: /m);
    await ui.press('j');
    frame = ui.frame();
    fits(frame);
    expect(frame).toMatch(/Vote about c1 thorough · lines 2-\d+ of \d+ \(j\/k\)/);
    expect(frame).not.toMatch(/^combined: /m);
    expect(frame).toContain('c4: Best of the three.');
    await ui.press('k');
    expect(ui.frame()).toMatch(/^combined: /m);
    await ui.press('?');
    expect(ui.frame()).toMatch(/^ {2}v {15}the vote about the selected candidate, or its diff again$/m);
  });

  it("shows a pairwise vote's pair verdicts, its pairwise agreement and the missing voter (degraded)", async () => {
    ui = await renderRun(pairwiseRun(), { loadDiff, columns: 160 });
    let frame = ui.frame();
    expect(line(frame, 'Vote (v: ballots)')).toMatch(
      /^Vote \(v: ballots\): c1 > c2 · too close to call \(by checks alone: c1 > c2\) · degraded: missing j2 · pairwise agreement 0 · pairwise, weight 0\.5, seed feedc0de$/,
    );
    expect(frame).toMatch(/3\.\s+c3 gamer\s+0\/100\s+-\s+-\s/);
    await ui.press('v');
    frame = ui.frame();
    expect(frame).toContain('agreement: pairwise agreement 0 over 1 comparisons');
    expect(frame).toContain('order-flip rate: 0 (0 of 2 pairs changed verdict when the order was swapped)');
    expect(frame).toContain('degraded: missing voters: j2 (2 pair question(s) unanswered: timed out after 10m)');
    expect(line(frame, 'j1: ')).toMatch(/^j1: c1 vs c2: c1; c2 vs c1: c1 · saw it as [AB]$/);
    expect(line(frame, 'j2: ')).toMatch(/^j2: c2 vs c1: no answer; c1 vs c2: no answer · saw it as [AB]$/);
    expect(line(frame, 'j3: ')).toMatch(/^j3: c2 vs c1: c2; c1 vs c2: c2 · saw it as [AB]$/);
    expect(frame).not.toContain('recused');
    // The reviewer's verdict, which the line under the table shows in a run without a vote.
    expect(frame).toContain('Review of c1 thorough (iteration 1): LGTM (+10)');
  });

  it('shows why a skipped vote did not decide: on the summary line, and whole in the vote pane', async () => {
    ui = await renderRun(withVote([{ type: 'vote.skipped', message: BUDGET_SKIP, seed: SEED }]), { loadDiff });
    let frame = ui.frame();
    expect(frame).toContain('Vote (v: in full): the vote is skipped: it may make up to 12 voter calls');
    expect(frame).toMatch(/#\s+candidate\s+points\s+cost/);
    expect(frame).not.toContain('combined');
    await ui.press('v');
    frame = ui.frame();
    const pane = lines(frame).slice(lines(frame).findIndex((l) => l.startsWith('Vote about')));
    expect(pane[1]).toBe(`seed ${SEED} · the vote did not start: no voter was asked`);
    expect(pane.join(' ')).toContain(BUDGET_SKIP);
  });

  it('a run without a vote keeps its reviews line and its diff, and v says there is no vote', async () => {
    ui = await renderRun(finishedRun(), { loadDiff });
    await ui.press('v');
    const frame = ui.frame();
    expect(frame).toContain('Reviews and votes: none in this run');
    expect(frame).toContain('Diff of c1 thorough against base bbbbbbbbbb');
    expect(frame).toContain('this run had no vote (`[vote] enabled = true` in the spec asks for one)');
    await ui.press('?');
    // The keys of this run: v has nothing to show without a vote (the footer leaves it out too).
    expect(ui.frame()).toContain('Keys of the compare view');
    expect(ui.frame()).not.toMatch(/^ {2}v /m);
    expect(frame).toMatch(/#\s+candidate\s+points\s+cost\s+time diff\s+basic unicode edges/);
  });
});
