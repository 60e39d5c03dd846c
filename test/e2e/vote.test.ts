/**
 * The e2e tier for the vote (issue 11): the real `bestof run` (bin/bestof.js over dist/) with one
 * candidate of each real CLI — Claude Code, Codex and Gemini CLI at their pinned versions — that
 * each write a draft through their own tools, pass a format check, and then vote on each other's
 * drafts through their own agents (`[vote]` without a jury: each voter is recused from its own
 * draft), against our fake model server on 127.0.0.1.
 *
 * The server answers a voter's cross-review and ranking prompts by a taste per API (words, best
 * first; fake-model-server.ts `Behaviour.taste`), and the tastes disagree. The result is worked
 * out by hand below (HAND-WORKED) and the test checks the run against it: the ballots, the tally,
 * the combined ranking, and a winner that is not the one the checks alone pick.
 *
 * The candidates are configured as in real-clis.test.ts: each CLI finds the fake server and its
 * key in its entry's `env`, and a voter is that candidate's own agent, so it needs that `env` too.
 *
 * Run with `npm run test:e2e -- vote` (installs the CLIs, builds, isolates the network).
 */
import { existsSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import type { ReportJson } from '../helpers/run-record.js';
import { readEventLines } from '../helpers/run-record.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { API, CLIS, namespaceInterfaces, pinnedClis, processesIn, providerEntry, type Cli } from './e2e-helpers.js';
import { editScript, startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const DRAFT_PATH = 'artifacts/draft.md';

/** Each CLI's draft: one keyword each (lighthouse, harbor, orchard), found by the voters' tastes. */
const DRAFTS: Record<Cli, string> = {
  // A title and both sections: 3 points.
  claude:
    '# The Keeper\n\n## Opening\n\nMara kept the lighthouse for forty years and wound its clockwork every night.\n\n## Ending\n\nThe lamp turned on without her, and she walked down the steps.\n',
  // Both sections, no title: 2 points.
  codex:
    '## Opening\n\nThe harbor woke before the boats did, gulls loud over the slipway.\n\n## Ending\n\nBy noon the nets were dry and the quay was quiet again.\n',
  // Both sections, no title: 2 points.
  gemini:
    '## Opening\n\nAn orchard ran down to the sea, its apples salted by the wind.\n\n## Ending\n\nThe last tree leaned over the water and dropped its fruit into the tide.\n',
};

/** What each API prefers, best first. They disagree, so the ballots differ. */
const TASTES: Record<Cli, readonly string[]> = {
  claude: ['harbor', 'orchard', 'lighthouse'],
  codex: ['orchard', 'lighthouse', 'harbor'],
  gemini: ['harbor', 'lighthouse', 'orchard'],
};

/*
 * HAND-WORKED (Borda, weight 0.5, recusal: each voter ranks the two others).
 *
 * Check scores (headings 2 + title 1): claude 3, codex 2, gemini 2; divided by the best (3):
 * 1, 2/3, 2/3. By the checks alone claude wins.
 *
 * Ballots, by each voter's taste over the drafts it is shown:
 *   claude's voter on codex (harbor) and gemini (orchard), harbor first:        codex > gemini
 *   codex's voter on claude (lighthouse) and gemini (orchard), orchard first:   gemini > claude
 *   gemini's voter on claude (lighthouse) and codex (harbor), harbor first:     codex > claude
 *
 * Borda over two candidates: 1 point for first, 0 for second; a ballot's points can be at most 1,
 * so a candidate's share of a ballot is its points. Each candidate is on the 2 ballots of the
 * others; its vote score (`normalised`) is the mean of its shares:
 *   claude (0 + 0) / 2 = 0      codex (1 + 1) / 2 = 1      gemini (0 + 1) / 2 = 0.5
 * Divided by the best vote score (1): the same.
 *
 * Combined = (1 - 0.5) * checks + 0.5 * votes:
 *   claude 0.5 * 1   + 0.5 * 0   = 0.5
 *   codex  0.5 * 2/3 + 0.5 * 1   = 1/3 + 1/2 = 5/6 ≈ 0.833
 *   gemini 0.5 * 2/3 + 0.5 * 0.5 = 1/3 + 1/4 = 7/12 ≈ 0.583
 * The vote turns the winner from claude (checks alone) to codex; claude ends last.
 * (Any weight above 1/4 does it: codex beats claude when (1 - w) * 2/3 + w > 1 - w.)
 */
const WEIGHT = 0.5;
const EXPECTED_BALLOTS: Record<Cli, readonly Cli[]> = { claude: ['codex', 'gemini'], codex: ['gemini', 'claude'], gemini: ['codex', 'claude'] };
const EXPECTED_VOTES: Record<Cli, number> = { claude: 0, codex: 1, gemini: 0.5 };
const EXPECTED_COMBINED: readonly (readonly [Cli, number])[] = [
  ['codex', 5 / 6],
  ['gemini', 7 / 12],
  ['claude', 0.5],
];
const SEED = 'e2e-vote';

type VoteReport = ReportJson & {
  costUsd: number;
  vote: {
    seed: string;
    method: string;
    weight: number;
    skipped: string | null;
    costUsd: number;
    voters: { id: string; candidate?: string; kind: string }[];
    eligible: string[];
    views: { voter: string; recused?: string; shown: { label: string; candidate: string }[] }[];
    reviews: { voter: string; candidate: string; text: string }[];
    ballots: { voter: string; ranking: string[] }[];
    calls: { voter: string; purpose: string; answers: string[]; error?: string; costUsd: number }[];
    tally: { scores: { candidate: string; points: number; normalised: number }[] } | null;
    combined: { entries: { candidate: string; checkNormalised: number; voteNormalised: number; combined: number }[]; winner: string; degraded: boolean } | null;
    checksOnly: string[] | null;
    degraded: boolean;
    missingVoters: { voter: string; reason: string }[];
  } | null;
};

let clis: Record<Cli, string>;
let server: FakeModelServer;
let repo: TempRepo;
let outside: string;

beforeAll(async () => {
  clis = pinnedClis();
  // With KEEP_TEST_DIRS, every request the CLIs sent is kept too (to see where each puts the prompt).
  const dumpFile = process.env.KEEP_TEST_DIRS ? join(makeTempDir('bestof-e2e-dump-'), 'requests.jsonl') : undefined;
  if (dumpFile) console.log(`vote e2e: the model requests go to ${dumpFile}`);
  server = await startFakeModelServer(dumpFile ? { dumpFile } : {});
  const interfaces = namespaceInterfaces();
  if (interfaces) expect(interfaces).toEqual(['lo']);
});
afterAll(async () => server?.close());
afterEach(() => {
  if (process.env.KEEP_TEST_DIRS) return;
  repo?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

function spec(): string {
  const context = { clis, serverUrl: server.url, outside };
  return [
    'name = "e2e-vote"',
    `repo = ${JSON.stringify(repo.dir)}`,
    `[prompt]\ntext = "Write a very short story about a place by the sea in ${DRAFT_PATH}, with a # title and two sections, ## Opening and ## Ending."\noutput_file = "${DRAFT_PATH}"`,
    '[parallel]\nmax_concurrency = 3',
    ...CLIS.map((cli) => providerEntry(cli, context)),
    `[[checks.items]]\nname = "headings"\ncommand = "grep -q '^## Opening' ${DRAFT_PATH} && grep -q '^## Ending' ${DRAFT_PATH}"\nscore = 2\ntimeout = "60s"`,
    `[[checks.items]]\nname = "title"\ncommand = "head -n 1 ${DRAFT_PATH} | grep -q '^# '"\nscore = 1\ntimeout = "60s"`,
    `[vote]\nenabled = true\nmethod = "borda"\nweight = ${WEIGHT}\nmaterial = "file"\noutput_file = "${DRAFT_PATH}"\nseed = "${SEED}"\ntimeout = "150s"`,
    '[select]\nmin_score = 2\nmerge = "branch"',
  ].join('\n\n');
}

describe('the vote with the real Claude Code, Codex and Gemini CLI', () => {
  it('each CLI writes a draft, then votes on the two others through its own agent; the hand-worked Borda count overturns the checks', async () => {
    server.requests.length = 0;
    repo = makeTempRepo({ 'README.md': '# stories\n' });
    outside = makeTempDir('bestof-e2e-vote-');
    for (const cli of CLIS) server.script(API[cli], { ...editScript(DRAFT_PATH, DRAFTS[cli]), taste: TASTES[cli] });
    const specPath = join(outside, 'spec.toml');
    writeFileSync(specPath, spec());
    const worktrees = join(outside, 'worktrees');
    const result = await runCli(['run', specPath, '--json'], { cwd: repo.dir, worktreesDir: worktrees });
    if (!result.stdout.trim().startsWith('{')) throw new Error(`bestof run printed no report (exit ${result.code}):\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as VoteReport;
    const runDir = join(repo.dir, '.bestof', 'runs', report.runId);
    const id = Object.fromEntries(CLIS.map((cli) => [cli, report.candidates.find((c) => c.provider === cli)?.id])) as Record<Cli, string>;
    const cliOf = (candidate: string): Cli => CLIS.find((cli) => id[cli] === candidate) as Cli;
    const vote = report.vote;
    // When something went wrong, the message shows why: the skip reason and every call's error.
    const why = JSON.stringify({
      skipped: vote?.skipped,
      missing: vote?.missingVoters,
      errors: vote?.calls.filter((c) => c.error).map((c) => [c.voter, c.purpose, c.error]),
    });

    // The drafts: each CLI wrote its own through its own tool, and the format checks scored them 3 / 2 / 2.
    for (const cli of CLIS) {
      const c = report.candidates.find((x) => x.id === id[cli])!;
      expect(c.history[0]?.outcome, cli).toBe('success');
      expect(`${repo.git('show', `${c.ref}:${DRAFT_PATH}`)}\n`, cli).toBe(DRAFTS[cli]);
    }
    expect(CLIS.map((cli) => report.candidates.find((c) => c.id === id[cli])?.score)).toEqual([3, 2, 2]);

    // Every candidate voted through its own agent, over the two others.
    expect(vote, why).not.toBeNull();
    expect(vote?.skipped, why).toBeNull();
    expect(vote).toMatchObject({ seed: SEED, method: 'borda', weight: WEIGHT, degraded: false, missingVoters: [] });
    expect(vote?.eligible).toEqual(CLIS.map((cli) => id[cli]));
    expect(vote?.voters.map((v) => [v.id, v.candidate, v.kind])).toEqual(CLIS.map((cli) => [id[cli], id[cli], cli]));
    for (const view of vote?.views ?? []) {
      expect(view.recused).toBe(view.voter);
      expect(view.shown.map((s) => s.candidate).sort()).toEqual(
        CLIS.filter((cli) => id[cli] !== view.voter)
          .map((cli) => id[cli])
          .sort(),
      );
    }

    // The ballots, de-anonymised, are what each API's taste gives; the tally and the combined ranking are the hand-worked ones.
    expect(vote?.ballots, why).toEqual(CLIS.map((cli) => ({ voter: id[cli], ranking: EXPECTED_BALLOTS[cli].map((c) => id[c]) })));
    expect(Object.fromEntries((vote?.tally?.scores ?? []).map((s) => [cliOf(s.candidate), s.normalised]))).toEqual(EXPECTED_VOTES);
    expect(vote?.combined?.entries.map((e) => [cliOf(e.candidate), round(e.combined)])).toEqual(EXPECTED_COMBINED.map(([cli, score]) => [cli, round(score)]));
    expect(vote?.checksOnly?.[0]).toBe(id.claude);
    expect(report.winner).toBe(id.codex);
    expect(result.code).toBe(0);
    // Every voter reviewed the two drafts it was shown before it ranked them.
    expect(vote?.reviews.map((r) => [r.voter, r.candidate]).sort()).toEqual(CLIS.flatMap((cli) => EXPECTED_BALLOTS[cli].map((c) => [id[cli], id[c]])).sort());

    // The server saw every voter call: one cross-review and one ranking per API, each a single request (no tool used),
    // with the labels of that voter's view; the labels it answered are the ballot the report shows.
    const asked = server.requests.filter((r) => r.vote);
    for (const cli of CLIS) {
      const mine = asked.filter((r) => r.api === API[cli]);
      expect(mine.map((r) => r.vote?.kind).sort(), cli).toEqual(['ranking', 'review']);
      expect(
        mine.every((r) => r.step === 0),
        cli,
      ).toBe(true);
      const view = vote?.views.find((v) => v.voter === id[cli]);
      const ranking = mine.find((r) => r.vote?.kind === 'ranking')!.vote!;
      expect(ranking.shown, cli).toEqual(view?.shown.map((s) => s.label));
      expect(
        ranking.ranked.map((label) => view?.shown.find((s) => s.label === label)?.candidate),
        cli,
      ).toEqual(EXPECTED_BALLOTS[cli].map((c) => id[c]));
    }
    // Each voter ran in a folder of its own, outside every worktree, as the CLI itself announced it; the folder is gone.
    const worktreesOfCandidates = [...new Set(server.requests.filter((r) => r.main && !r.vote).map((r) => r.cwd))];
    expect(worktreesOfCandidates).toHaveLength(CLIS.length);
    for (const r of asked) {
      expect(r.cwd, r.api).toBeDefined();
      expect(
        worktreesOfCandidates.some((w) => r.cwd === w || r.cwd!.startsWith(`${w}/`)),
        `${r.api}: ${r.cwd}`,
      ).toBe(false);
      expect(existsSync(r.cwd!), r.cwd).toBe(false);
      // Every CLI tells its model its working directory: the voter's names neither the run nor a candidate.
      expect(r.cwd, r.api).not.toContain(report.runId);
      expect(r.cwd, r.api).not.toMatch(/\/c\d(\/|$)|vote-c\d/);
    }
    // What the voters were shown names no agent, model, worktree, run folder or run.
    for (const { api, vote: v } of asked) {
      const prompt = v!.prompt;
      expect(prompt, `${api} ${v!.kind}`).toMatch(/^You are (ranking|reviewing) 2 anonymous candidate solutions/);
      expect(prompt, `${api} ${v!.kind}`).not.toMatch(/claude|codex|gemini|gpt-5/i);
      for (const secret of [report.runId, outside, worktrees, repo.dir, runDir]) expect(prompt.includes(secret), `${api} ${v!.kind}: ${secret}`).toBe(false);
    }

    // The vote's cost reached the report: every call was paid, and the run's cost includes it.
    const calls = vote?.calls ?? [];
    expect(calls.map((c) => [c.voter, c.purpose]).sort()).toEqual(
      CLIS.flatMap((cli) => [
        [id[cli], 'ranking'],
        [id[cli], 'review'],
      ]).sort(),
    );
    for (const call of calls) expect(call.costUsd, `${call.voter} ${call.purpose}`).toBeGreaterThan(0);
    expect(vote?.costUsd).toBeCloseTo(
      calls.reduce((sum, c) => sum + c.costUsd, 0),
      10,
    );
    expect(report.costUsd).toBeCloseTo(report.candidates.reduce((sum, c) => sum + c.costUsd, 0) + (vote?.costUsd ?? 0), 10);
    // Each call's prompt and raw output are in the run folder.
    for (const cli of CLIS) {
      const folder = join(runDir, 'vote', id[cli]);
      expect(
        readdirSync(folder)
          .filter((name) => /^\d+-/.test(name))
          .sort(),
        cli,
      ).toEqual(['01-review', '02-ranking']);
      for (const call of ['01-review', '02-ranking'])
        expect(readdirSync(join(folder, call)), `${cli} ${call}`).toEqual(expect.arrayContaining(['prompt.md', 'output.log']));
    }

    // The voters wrote nothing: no commit after the vote started, and each candidate's ref is still its last commit from before it.
    const events = readEventLines(join(runDir, 'events.jsonl'));
    const voteStarted = events.findIndex((e) => e.type === 'vote.started');
    expect(voteStarted).toBeGreaterThan(0);
    expect(events.slice(voteStarted).filter((e) => e.type === 'candidate.committed')).toEqual([]);
    for (const cli of CLIS) {
      const lastCommit = events
        .slice(0, voteStarted)
        .filter((e) => e.type === 'candidate.committed' && e.candidate === id[cli])
        .at(-1)?.commit;
      const c = report.candidates.find((x) => x.id === id[cli])!;
      expect(lastCommit, cli).toBeDefined();
      expect(repo.git('rev-parse', c.ref), cli).toBe(lastCommit);
      expect(c.commit, cli).toBe(lastCommit);
    }
    // Nothing is left running in the worktrees, the voters' folders included.
    expect(processesIn(worktrees)).toEqual([]);
  });
});

const round = (n: number): number => Math.round(n * 1000) / 1000;
