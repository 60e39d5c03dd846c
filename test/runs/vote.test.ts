/**
 * The cross-review and vote end to end: the creative-draft example (configs/examples/creative-draft.toml)
 * run by the real binary in a temp repo, with its scripted writers and its jury of three
 * scripted voters whose ballots disagree, checked against the result worked out by hand in the
 * example's header; then variants of it (weight, pairwise, failing voters, the budget).
 */
import { chmodSync, cpSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, startCli } from '../helpers/cli.js';
import { readEventLines } from '../helpers/run-record.js';
import { waitUntil } from '../helpers/wait.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';
import { voterViews } from '../../src/vote/order.js';

const { repo, tempDir } = tempRepos();

const EXAMPLE = 'configs/examples/creative-draft.toml';

interface VoteReport {
  winner: string | null;
  ranking: { candidate: string; rank: number; eligible: boolean; vote?: number; combined?: number }[];
  vote: {
    seed: string;
    method: string;
    weight: number;
    skipped: string | null;
    voters: { id: string; kind: string }[];
    eligible: string[];
    views: { voter: string; shown: { label: string; candidate: string }[] }[];
    ballots: { voter: string; ranking: string[] }[];
    reviews: { voter: string; candidate: string; text: string }[];
    calls: { voter: string; purpose: string; answers: string[]; error?: string }[];
    tally: { scores: { candidate: string; points: number; normalised: number }[]; steps: unknown[] } | null;
    combined: { entries: { candidate: string; combined: number }[]; winner: string; degraded: boolean } | null;
    checksOnly: string[] | null;
    stats: { kendallW?: { w: number }; orderFlipRate?: { rate: number }; lengthCorrelation?: number } | null;
    tooCloseToCall: boolean;
    degraded: boolean;
    missingVoters: { voter: string; reason: string }[];
  } | null;
}

/** A temp repo holding a copy of the configs (and `extra` files), committed. */
function exampleRepo(extra: Record<string, string> = {}): TempRepo {
  const r = repo();
  cpSync(join(PROJECT_ROOT, 'configs'), join(r.dir, 'configs'), { recursive: true });
  for (const [path, content] of Object.entries(extra)) {
    r.write(path, content);
    if (path.endsWith('.sh')) chmodSync(join(r.dir, path), 0o755);
  }
  r.commitAll('add the example');
  return r;
}

/** The example's spec with some lines replaced, written beside it (so its relative paths hold). */
function variant(replace: readonly [string | RegExp, string][]): string {
  let text = readFileSync(join(PROJECT_ROOT, EXAMPLE), 'utf8');
  for (const [from, to] of replace) {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`the example no longer has ${String(from)}`);
    text = next;
  }
  return text;
}

async function run(
  r: TempRepo,
  spec: string,
): Promise<{ code: number | null; stdout: string; stderr: string; report: VoteReport; markdown: string; runDir: string }> {
  const result = await runCli(['run', spec], { cwd: r.dir, worktreesDir: join(tempDir(), 'worktrees') });
  const runsDir = join(r.dir, '.bestof', 'runs');
  const runDir = join(runsDir, readdirSync(runsDir)[0] as string);
  return {
    ...result,
    runDir,
    report: JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as VoteReport,
    markdown: readFileSync(join(runDir, 'report.md'), 'utf8'),
  };
}

describe('the creative-draft example: a jury votes on three drafts', () => {
  it('picks the winner of the hand-worked Borda count, where the checks alone would pick the shortest draft', async () => {
    const r = exampleRepo();
    const { code, report, markdown } = await run(r, EXAMPLE);
    expect(code).toBe(0);
    const vote = report.vote;
    expect(vote?.skipped).toBeNull();
    expect(vote?.seed).toBe('creative-draft');
    // Every voter saw the drafts in its own order, and the recorded seed reproduces them.
    expect(vote?.eligible).toEqual(['c1', 'c2', 'c3']);
    expect(vote?.views).toEqual(
      voterViews(
        'creative-draft',
        ['c1', 'c2', 'c3'],
        ['j1', 'j2', 'j3'].map((id) => ({ id })),
      ),
    );
    // The ballots, de-anonymised: c1 = lighthouse, c2 = harbor, c3 = fog.
    expect(vote?.ballots).toEqual([
      { voter: 'j1', ranking: ['c1', 'c2', 'c3'] },
      { voter: 'j2', ranking: ['c2', 'c3', 'c1'] },
      { voter: 'j3', ranking: ['c1', 'c3', 'c2'] },
    ]);
    // Borda: 4 / 3 / 2 points; shares 2/3, 1/2, 1/3; combined with equal check scores at weight 0.5: 1, 0.875, 0.75.
    const points = Object.fromEntries((vote?.tally?.scores ?? []).map((s) => [s.candidate, s.points]));
    expect(points).toEqual({ c1: 4, c2: 3, c3: 2 });
    expect(vote?.combined?.entries.map((e) => [e.candidate, Math.round(e.combined * 1000) / 1000])).toEqual([
      ['c1', 1],
      ['c2', 0.875],
      ['c3', 0.75],
    ]);
    expect(vote?.checksOnly).toEqual(['c3', 'c2', 'c1']);
    expect(report.winner).toBe('c1');
    expect(report.ranking.map((e) => e.candidate)).toEqual(['c1', 'c2', 'c3']);
    // Each juror reviewed every draft (no recusal in a jury), and no voter is missing.
    expect(vote?.reviews).toHaveLength(9);
    expect(vote?.degraded).toBe(false);
    // Three voters who disagree this much cannot call it: the record says so, with both rankings.
    expect(vote?.tooCloseToCall).toBe(true);
    expect(markdown).toContain('too close to call');
    expect(markdown).toContain('by checks alone: c3 > c2 > c1');
    expect(markdown).toContain('- j2 (shown A = c1, B = c2, C = c3): c2 > c3 > c1');
    expect(markdown).toMatch(/Kendall's W 0\.111/);
    // What no voter saw: the run id, the branch names, the candidates' agents.
    for (const call of vote?.calls ?? []) expect(call.answers.join('\n')).not.toContain('script:writer');
  });

  it('weight 0 leaves the choice to the checks and their tie-break: the shortest draft wins; the formatter runs on every draft', async () => {
    const r = exampleRepo({ 'configs/examples/weight0.toml': variant([['weight = 0.5', 'weight = 0\nformatter = "tr a-z A-Z"']]) });
    const { code, report, runDir } = await run(r, 'configs/examples/weight0.toml');
    expect(code).toBe(0);
    expect(report.vote?.ballots).toHaveLength(3);
    expect(report.winner).toBe('c3');
    // What the voters were shown went through the formatter (the voters' taste ignores case).
    const prompt = readFileSync(join(runDir, 'vote', 'j1', '01-review', 'prompt.md'), 'utf8');
    expect(prompt).toContain('# THE LIGHTHOUSE KEEPER');
    expect(prompt).not.toContain('The Lighthouse Keeper');
  });

  it('weight 1 with pairwise questions in both orders on the diffs: Copeland over the jury, no order flips', async () => {
    const r = exampleRepo({
      'configs/examples/pairwise.toml': variant([
        ['method = "borda"', 'method = "pairwise"'],
        ['weight = 0.5', 'weight = 1'],
        ['cross_review = true', 'cross_review = false'],
        ['material = "file"', 'material = "diff"'],
      ]),
    });
    const { code, report, markdown, runDir } = await run(r, 'configs/examples/pairwise.toml');
    expect(code).toBe(0);
    // The voters judged the diffs against base: a plain diff, no commit message, no branch.
    const prompt = readFileSync(join(runDir, 'vote', 'j1', '01-pair', 'prompt.md'), 'utf8');
    expect(prompt).toContain('+++ b/artifacts/draft.md');
    expect(prompt).not.toMatch(/bestof\/\d{8}-/);
    // c1 beats c2 (j1, j3) and c3 (j1, j3); c2 beats c3 (j1, j2): Copeland 2 / 1 / 0.
    expect(report.vote?.combined?.entries.map((e) => e.candidate)).toEqual(['c1', 'c2', 'c3']);
    expect(report.vote?.calls.filter((c) => c.purpose === 'pair')).toHaveLength(3 * 6);
    expect(report.vote?.stats?.orderFlipRate?.rate).toBe(0);
    expect(report.winner).toBe('c1');
    expect(markdown).toContain('order-flip rate: 0');
  });

  it('a voter that crashes and one whose ballot cannot be read twice are missing: the result is degraded, the rest decide', async () => {
    const r = exampleRepo({
      'configs/examples/crash.sh': '#!/bin/sh\necho "out of tokens" >&2\nexit 3\n',
      'configs/examples/babble.sh': '#!/bin/sh\necho "I like the second one best."\n',
      'configs/examples/missing.toml': variant([
        [
          /^voters = \[[\s\S]*?\n\]/m,
          'voters = [\n  { kind = "command", command = "creative-draft/voter.mjs", args = ["{prompt_file}", "harbor,fog,lighthouse"] },\n  { kind = "command", command = "./crash.sh" },\n  { kind = "command", command = "./babble.sh" },\n]',
        ],
      ]),
    });
    const { code, report, markdown } = await run(r, 'configs/examples/missing.toml');
    expect(code).toBe(0);
    const vote = report.vote;
    expect(vote?.degraded).toBe(true);
    expect(vote?.missingVoters.map((m) => m.voter)).toEqual(['j2', 'j3']);
    expect(vote?.missingVoters[0]?.reason).toMatch(/crashed/);
    expect(vote?.missingVoters[1]?.reason).toMatch(/^ballot unparsable twice: /);
    // The unreadable ballot was asked once more, then discarded.
    expect(vote?.calls.find((c) => c.voter === 'j3' && c.purpose === 'ranking')?.answers).toHaveLength(2);
    expect(vote?.ballots).toEqual([{ voter: 'j1', ranking: ['c2', 'c3', 'c1'] }]);
    expect(report.winner).toBe('c2');
    expect(markdown).toContain('**degraded**: missing voters: j2');
  });

  it('is skipped with the numbers when the budget cannot pay for it, and the checks decide', async () => {
    const costly = (name: string): string =>
      readFileSync(join(PROJECT_ROOT, 'configs/examples/creative-draft', name), 'utf8').replace(
        '[[steps]]\nsay =',
        '[[steps]]\nusage = { input = 10, output = 10 }\ncost_usd = 0.3\n[[steps]]\nsay =',
      );
    const r = exampleRepo({
      'configs/examples/creative-draft/costly-a.toml': costly('writer-a.toml'),
      'configs/examples/creative-draft/costly-b.toml': costly('writer-b.toml'),
      'configs/examples/creative-draft/costly-c.toml': costly('writer-c.toml'),
      'configs/examples/budget.toml': `${variant([[/writer-([abc])\.toml/g, 'costly-$1.toml']])}\n[budget]\nmax_total_cost_usd = 1.0\n`,
    });
    const { code, report, markdown } = await run(r, 'configs/examples/budget.toml');
    expect(code).toBe(0);
    expect(report.vote?.skipped).toMatch(
      /^the vote is skipped: it may make up to 12 voter calls .* max_total_cost_usd = \$1\.00 has \$0\.10 left; the ranking is by the checks alone/,
    );
    expect(report.vote?.calls ?? []).toHaveLength(0);
    expect(report.winner).toBe('c3');
    expect(markdown).toContain('the vote is skipped');
  });

  it('without a jury, the candidates vote through their own agents, each recused from its own draft', async () => {
    const r = exampleRepo({ 'configs/examples/agent.mjs': AGENT, 'configs/examples/self.toml': SELF_VOTE });
    chmodSync(join(r.dir, 'configs/examples/agent.mjs'), 0o755);
    r.commitAll('the agent');
    const { code, report } = await run(r, 'configs/examples/self.toml');
    expect(code).toBe(0);
    const vote = report.vote;
    expect(vote?.voters.map((v) => v.id)).toEqual(['c1', 'c2', 'c3']);
    for (const view of vote?.views ?? []) {
      expect((view as { recused?: string }).recused).toBe(view.voter);
      expect(view.shown.map((s) => s.candidate)).not.toContain(view.voter);
    }
    // Every voter prefers the longer draft (c1 > c2 > c3): c1 2 ballots of share 1, c2 one of 1 and one of 0.
    expect(vote?.ballots).toEqual([
      { voter: 'c1', ranking: ['c2', 'c3'] },
      { voter: 'c2', ranking: ['c1', 'c3'] },
      { voter: 'c3', ranking: ['c1', 'c2'] },
    ]);
    expect(vote?.eligible).toEqual(['c1', 'c2', 'c3']);
    expect(Object.fromEntries((vote?.tally?.scores ?? []).map((s) => [s.candidate, s.normalised]))).toEqual({ c1: 1, c2: 0.5, c3: 0 });
    expect(vote?.stats?.lengthCorrelation).toBeGreaterThan(0.9);
    expect(report.winner).toBe('c1');
  });

  it("a voter gets its agent's env from the spec, and works in a folder whose name says nothing of the run", async () => {
    const spec = SELF_VOTE.replace('args = ["{prompt_file}"]', 'args = ["{prompt_file}"]\nenv = { AGENT_KEY = "k1" }');
    const r = exampleRepo({ 'configs/examples/agent.mjs': AGENT, 'configs/examples/env.toml': spec });
    chmodSync(join(r.dir, 'configs/examples/agent.mjs'), 0o755);
    r.commitAll('the agent');
    const result = await runCli(['run', 'configs/examples/env.toml'], {
      cwd: r.dir,
      worktreesDir: join(tempDir(), 'worktrees'),
      env: { REQUIRE_AGENT_KEY: '1' },
    });
    expect(result.code).toBe(0);
    const runsDir = join(r.dir, '.bestof', 'runs');
    const runId = readdirSync(runsDir)[0] as string;
    const report = JSON.parse(readFileSync(join(runsDir, runId, 'report.json'), 'utf8')) as VoteReport;
    expect(report.vote?.missingVoters).toEqual([]);
    expect(report.vote?.ballots).toHaveLength(3);
    for (const call of report.vote?.calls.filter((c) => c.purpose === 'ranking') ?? []) {
      const cwd = /I ran in (.*)/.exec(call.answers[0] ?? '')?.[1] ?? '';
      // The fixed prefix and mkdtemp's six random characters, nothing else: no run id, no candidate
      // id. (A search for /c\d/ in the whole path failed whenever the random part held, say, "c9".)
      expect(cwd).toBe(join(tmpdir(), basename(cwd)));
      expect(basename(cwd)).toMatch(/^voter-[A-Za-z0-9]{6}$/);
    }
  });

  it('a review that names an agent, shown to a later voter, stops the vote before that voter is asked', async () => {
    const spec = SELF_VOTE.replace('"{prompt_file}"]', '"{prompt_file}", "leaky"]').replace('show_reviews = false', 'show_reviews = true');
    const r = exampleRepo({ 'configs/examples/agent.mjs': AGENT, 'configs/examples/leak.toml': spec });
    chmodSync(join(r.dir, 'configs/examples/agent.mjs'), 0o755);
    r.commitAll('the agent');
    const { code, report, stdout } = await run(r, 'configs/examples/leak.toml');
    expect(code).toBe(0);
    expect(report.vote?.skipped).toMatch(/^the vote is stopped: voter c\d's prompt still names provider "claude" .*; the ranking is by the checks alone/);
    // Only the first voter (in the seeded order) was asked anything: its review and its ballot.
    expect(report.vote?.calls.map((c) => c.purpose)).toEqual(['review', 'ranking']);
    expect(report.vote?.combined).toBeNull();
    expect(stdout).toContain('the vote is stopped');
  });
});

/** A command agent that writes a draft as a candidate (the longer the lower its index) and, as a voter, prefers longer drafts. */
const AGENT = `#!/usr/bin/env node
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
const prompt = readFileSync(process.argv[2], 'utf8');
const leaky = process.argv[3] === 'leaky';
// A stand-in for a CLI that needs its key from the spec's env, as a real agent does as a voter too.
if (process.env.REQUIRE_AGENT_KEY && process.env.AGENT_KEY !== 'k1') { console.error('no AGENT_KEY in my environment'); process.exit(3); }
const sections = [...prompt.matchAll(/^## Candidate ([A-Z]+)\\n\\n(\`{3,})\\n([\\s\\S]*?)\\n\\2/gm)].map((m) => ({ label: m[1], length: m[3].length }));
if (prompt.startsWith('You are reviewing')) {
  for (const s of sections) console.log('## ' + s.label + '\\n\\n**Strengths**\\n- ' + (leaky ? 'reads like claude wrote it' : 'clear') + '\\n**Weaknesses**\\n- none\\n**Risks**\\n- none\\n');
} else if (prompt.startsWith('You are ranking')) {
  console.log('I ran in ' + process.cwd());
  console.log('FINAL RANKING:\\n' + [...sections].sort((a, b) => b.length - a.length).map((s) => s.label).join('\\n'));
} else {
  const n = 4 - Number(process.env.BESTOF_INDEX);
  mkdirSync('artifacts', { recursive: true });
  writeFileSync('artifacts/draft.md', '# A story\\n\\n## Opening\\n\\n' + 'The sea was grey and the gulls were loud that morning. '.repeat(2 * n) + '\\n\\n## Ending\\n\\nThe tide went out.\\n');
  console.log('wrote the draft');
}
`;

const SELF_VOTE = `name = "self-vote"
[prompt]
file = "creative-draft/prompt.md"
[parallel]
candidates = 3
[provider]
kind = "command"
command = "./agent.mjs"
args = ["{prompt_file}"]
[[checks.items]]
name = "headings"
command = "grep -q '^## Opening' artifacts/draft.md && grep -q '^## Ending' artifacts/draft.md"
[vote]
enabled = true
material = "file"
output_file = "artifacts/draft.md"
show_reviews = false
seed = "self"
[select]
merge = "branch"
`;

describe('a vote interrupted and resumed', () => {
  /** A juror that hangs (until bestof dies) when HOLD_VOTER names it, and is the example's voter otherwise. */
  const HELD_VOTER = '#!/bin/sh\nme=$1\nshift\nif [ "${HOLD_VOTER:-}" = "$me" ]; then exec sleep 600; fi\nexec node "$(dirname "$0")/voter.mjs" "$@"\n';
  const heldJury = (sandbox: 'required' | 'off'): string =>
    `${variant([
      [
        /^voters = \[[\s\S]*?\n\]/m,
        'voters = [\n' +
          ['lighthouse,harbor,fog', 'harbor,fog,lighthouse', 'lighthouse,fog,harbor']
            .map((taste, i) => `  { kind = "command", command = "creative-draft/held-voter.sh", args = ["j${i + 1}", "{prompt_file}", "${taste}"] },`)
            .join('\n') +
          '\n]',
      ],
    ])}\n[sandbox]\nmode = "${sandbox}"\n`;

  /** Runs the spec with j2 held, kills bestof with SIGKILL once j1 and j3 have cast their ballots, then resumes it. */
  async function killDuringTheVoteAndResume(sandbox: 'required' | 'off') {
    const r = exampleRepo({ 'configs/examples/creative-draft/held-voter.sh': HELD_VOTER, 'configs/examples/held.toml': heldJury(sandbox) });
    const worktreesDir = join(tempDir(), 'worktrees');
    const { child, done } = startCli(['run', 'configs/examples/held.toml'], { cwd: r.dir, worktreesDir, env: { HOLD_VOTER: 'j2' } });
    let ended: string | undefined;
    void done.then((res) => (ended = `exit ${res.code}\n${res.stdout}\n${res.stderr}`));
    const runsDir = join(r.dir, '.bestof', 'runs');
    const eventsFile = () => join(runsDir, readdirSync(runsDir)[0] as string, 'events.jsonl');
    const ballotsIn = () => readEventLines(eventsFile()).filter((e) => e.type === 'vote.call' && (e as { purpose?: string }).purpose === 'ranking');
    await waitUntil(() => ballotsIn().length === 2, 'the ballots of j1 and j3', { ended: () => ended });
    child.kill('SIGKILL');
    await done;
    const runId = readdirSync(runsDir)[0] as string;
    const resumed = await runCli(['resume', runId], { cwd: r.dir, worktreesDir });
    const runDir = join(runsDir, runId);
    const events = readEventLines(join(runDir, 'events.jsonl'));
    const lastStart = events.map((e) => e.type).lastIndexOf('vote.started');
    const calls = events.slice(lastStart).filter((e) => e.type === 'vote.call') as unknown as { voter: string; purpose: string; reused?: boolean }[];
    return {
      resumed,
      report: JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as VoteReport & { costUsd: number; vote: { reusedCalls: number } },
      markdown: readFileSync(join(runDir, 'report.md'), 'utf8'),
      callsAfterResume: calls.map((c) => `${c.voter} ${c.purpose}${c.reused ? ' (reused)' : ''}`).sort(),
      /** Voter calls really made, over both runs: one folder each under vote/<voter>/. */
      callFolders: Object.fromEntries(['j1', 'j2', 'j3'].map((j) => [j, readdirSync(join(runDir, 'vote', j)).sort()])),
    };
  }

  it('in the sandbox, resume takes the recorded answers and asks only the voter that had not answered; the result is the hand-worked one', async () => {
    const { resumed, report, markdown, callsAfterResume, callFolders } = await killDuringTheVoteAndResume('required');
    expect(resumed.code).toBe(0);
    expect(callsAfterResume).toEqual(['j1 ranking (reused)', 'j1 review (reused)', 'j2 ranking', 'j2 review', 'j3 ranking (reused)', 'j3 review (reused)']);
    // j1 and j3 were asked twice in all (review, ranking); j2 three times: the review it never answered, then both.
    expect(callFolders).toEqual({ j1: ['01-review', '02-ranking'], j2: ['01-review', '02-review', '03-ranking'], j3: ['01-review', '02-ranking'] });
    // The same seed, the same orders, the same ballots: the result of the uninterrupted example.
    expect(report.vote?.ballots).toEqual([
      { voter: 'j1', ranking: ['c1', 'c2', 'c3'] },
      { voter: 'j2', ranking: ['c2', 'c3', 'c1'] },
      { voter: 'j3', ranking: ['c1', 'c3', 'c2'] },
    ]);
    expect(report.winner).toBe('c1');
    expect(report.vote.reusedCalls).toBe(4);
    expect(markdown).toContain('6 voter calls (4 of them answered before the run was interrupted, taken from the record)');
  });

  it('without the sandbox, resume asks every voter again (the record could be forged) and says so', async () => {
    const { resumed, report, callsAfterResume } = await killDuringTheVoteAndResume('off');
    expect(resumed.code).toBe(0);
    expect(callsAfterResume).toEqual(['j1 ranking', 'j1 review', 'j2 ranking', 'j2 review', 'j3 ranking', 'j3 review']);
    expect(report.vote.reusedCalls).toBe(0);
    expect(resumed.stdout + resumed.stderr).toContain(
      'the vote starts again and asks every voter anew: without the sandbox an agent could have written the record',
    );
    expect(report.winner).toBe('c1');
  });

  it("voter calls count in the run's cost, and in no candidate's", async () => {
    const paidVoter = '[[steps]]\nusage = { input = 100, output = 10 }\ncost_usd = 0.25\n[[steps]]\nsay = "FINAL RANKING:\\nA\\nB\\nC"\n';
    const r = exampleRepo({
      'configs/examples/creative-draft/paid-voter.toml': paidVoter,
      'configs/examples/paid.toml': variant([
        [
          /^voters = \[[\s\S]*?\n\]/m,
          'voters = [\n  { kind = "script", script = "creative-draft/paid-voter.toml" },\n  { kind = "script", script = "creative-draft/paid-voter.toml" },\n]',
        ],
        ['cross_review = true', 'cross_review = false'],
      ]),
    });
    const { code, report } = await run(r, 'configs/examples/paid.toml');
    expect(code).toBe(0);
    const full = report as VoteReport & { costUsd: number; candidates: { costUsd: number }[]; vote: { costUsd: number } };
    expect(full.vote.costUsd).toBe(0.5);
    expect(full.candidates.map((c) => c.costUsd)).toEqual([0, 0, 0]);
    expect(full.costUsd).toBe(0.5);
  });
});
