/**
 * The candidate loop through the real binary: each stop rule and each provider outcome on
 * its own, with script agents whose scores per iteration are known in advance.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { onlyRunDir, promptOf, readLoopReport, scoreScript, TEN_CHECKS } from '../helpers/loop.js';
import { makeProject, type Project } from '../helpers/project.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { recordGitCalls } from '../helpers/git-calls.js';

let project: Project;
afterEach(() => project?.cleanup());

/** Runs a spec whose candidates are the given scripts (one candidate each). */
async function runLoop(scripts: readonly string[], body: string, checks = TEN_CHECKS) {
  const providers = scripts
    .map((script, i) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside(`agent-${i + 1}.toml`, script))}\n`)
    .join('\n');
  const spec = project.writeOutside(
    'spec.toml',
    `name = "loop"\nrepo = ${JSON.stringify(project.repo.dir)}\n[prompt]\ntext = "Make the checks pass."\n${body}\n${providers}\n[select]\nmerge = "branch"\n${checks}`,
  );
  return runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
}

function candidate(id = 'c1') {
  const found = readLoopReport(project.repo.dir).candidates.find((c) => c.id === id);
  if (!found) throw new Error(`no candidate ${id}`);
  return found;
}

describe('stop rules', () => {
  it('score_threshold: 30 then 80 stops at iteration 2 with one commit per iteration named with its score', async () => {
    project = makeProject();
    const result = await runLoop([scoreScript([30, 80, 100])], '[loop]\nmax_iterations = 5\nscore_threshold = 70\n');
    expect(result.code).toBe(0);
    const c1 = candidate();
    expect([c1.reason, c1.iterations, c1.score]).toEqual(['threshold_reached', 2, 80]);
    expect(project.repo.git('log', '--format=%s', c1.ref).split('\n').slice(0, 2)).toEqual([
      'bestof: c1 iteration 2, score 80',
      'bestof: c1 iteration 1, score 30',
    ]);
    const progress = readFileSync(join(onlyRunDir(project.repo.dir), 'candidates', 'c1', 'progress.md'), 'utf8');
    expect(progress).toContain('## Iteration 1: score 30/100');
    expect(progress).toContain('## Iteration 2: score 80/100');
    expect(progress).toContain('- failed checks: p4, p5, p6, p7, p8, p9, p10');
  });

  it('max_iterations: stops after the last allowed iteration', async () => {
    project = makeProject();
    await runLoop([scoreScript([10, 20, 30, 40])], '[loop]\nmax_iterations = 3\n');
    expect([candidate().reason, candidate().iterations, candidate().score]).toEqual(['max_iterations', 3, 30]);
  });

  it('allow_regression = false: 60 then 30 stops on the drop', async () => {
    project = makeProject();
    await runLoop([scoreScript([60, 30, 90])], '[loop]\nmax_iterations = 5\nallow_regression = false\n');
    const c1 = candidate();
    expect([c1.reason, c1.iterations, c1.score, c1.status]).toEqual(['regression', 2, 30, 'stopped']);
    expect(c1.message).toContain('from 60 to 30');
  });

  it('breaker: 20, 40, 40, 40 trips on the same failing checks three times in a row', async () => {
    project = makeProject();
    await runLoop([scoreScript([20, 40, 40, 40, 40, 40])], '[loop]\nmax_iterations = 10\n[breaker]\nsame_failure_iterations = 3\nno_diff_iterations = 10\n');
    expect([candidate().reason, candidate().iterations]).toEqual(['breaker_same_failure', 4]);
  });

  it('breaker: iterations that change nothing', async () => {
    project = makeProject();
    // The same files every iteration: iteration 1 changes them, 2 and 3 change nothing.
    await runLoop([scoreScript([30])], '[loop]\nmax_iterations = 10\n[breaker]\nno_diff_iterations = 2\nsame_failure_iterations = 10\n');
    expect([candidate().reason, candidate().iterations]).toEqual(['breaker_no_diff', 3]);
  });

  it('breaker: agent errors in a row (crashed and refusal count as errors)', async () => {
    project = makeProject();
    const script = `[[iterations]]\n[[iterations.steps]]\nwrite = "p1"\ncontent = "x"\n[[iterations.steps]]\nfail = "crashed"\n[[iterations]]\n[[iterations.steps]]\nfail = "refusal"\nmessage = "I cannot help with that"\n`;
    await runLoop([script], '[loop]\nmax_iterations = 10\n[breaker]\nerror_iterations = 2\n');
    const c1 = candidate();
    expect([c1.reason, c1.iterations, c1.status]).toEqual(['breaker_errors', 2, 'stopped']);
    expect(c1.history.map((h) => h.outcome)).toEqual(['crashed', 'refusal']);
    // Its work is still committed and scored.
    expect(c1.score).toBe(10);
  });

  it('budget: a candidate that overspends stops at its cap, keeps its work, and the warning is shown', async () => {
    project = makeProject();
    const spender = scoreScript([10, 20, 30, 40], {
      0: '[[iterations.steps]]\nusage = { input = 1000, output = 100 }\ncost_usd = 0.6\n',
      1: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.6\n',
      2: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.6\n',
      3: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.6\n',
    });
    const thrifty = scoreScript([10, 20, 30, 40]);
    const result = await runLoop([spender, thrifty], '[loop]\nmax_iterations = 4\n[budget]\nmax_candidate_cost_usd = 1.0\nwarn_at_usd = 0.5\n');
    const c1 = candidate('c1');
    expect([c1.reason, c1.iterations, c1.status]).toEqual(['budget_candidate', 2, 'stopped']);
    expect(c1.costUsd).toBeCloseTo(1.2);
    expect(c1.message).toContain('max_candidate_cost_usd');
    expect(project.repo.git('show', `${c1.ref}:p2`)).toBe('iteration 2');
    expect(candidate('c2').iterations).toBe(4);
    expect(result.stdout).toContain('warning: the run has spent $0.60, past warn_at_usd = $0.50');
  });

  it('budget: the run-wide cap stops new work for every candidate', async () => {
    project = makeProject();
    const costly = scoreScript([10, 20, 30, 40], {
      0: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.3\n',
      1: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.3\n',
      2: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.3\n',
      3: '[[iterations.steps]]\nusage = { output = 10 }\ncost_usd = 0.3\n',
    });
    await runLoop([costly, costly], '[loop]\nmax_iterations = 4\n[budget]\nmax_total_cost_usd = 1.0\n');
    const report = readLoopReport(project.repo.dir);
    expect(report.candidates.map((c) => c.reason)).toEqual(['budget_total', 'budget_total']);
    const total = report.candidates.reduce((sum, c) => sum + c.costUsd, 0);
    expect(total).toBeGreaterThanOrEqual(1.0);
    expect(total).toBeLessThanOrEqual(1.0 + 0.6);
  });

  it('duration: a candidate past its wall-clock limit stops, and its agent call is cut at the limit', async () => {
    project = makeProject();
    const slow = scoreScript([10, 20], { 0: '[[iterations.steps]]\nsleep = "60s"\n', 1: '[[iterations.steps]]\nsleep = "60s"\n' });
    await runLoop([slow], '[loop]\nmax_iterations = 5\nduration = "8s"\n');
    const c1 = candidate();
    expect([c1.reason, c1.status]).toEqual(['candidate_duration', 'stopped']);
    expect(c1.history.at(-1)?.outcome).toBe('timeout');
    // What the agent wrote before the cut is committed.
    expect(project.repo.git('show', `${c1.ref}:p1`)).toMatch(/^iteration \d$/);
  });

  it('run_duration: the run-wide time limit stops every candidate', async () => {
    project = makeProject();
    const slow = scoreScript([10, 20], { 0: '[[iterations.steps]]\nsleep = "60s"\n', 1: '[[iterations.steps]]\nsleep = "60s"\n' });
    await runLoop([slow, slow], '[loop]\nmax_iterations = 5\nrun_duration = "8s"\n');
    expect(readLoopReport(project.repo.dir).candidates.map((c) => c.reason)).toEqual(['run_duration', 'run_duration']);
  });

  it('the hard limit of 100 iterations holds even when the phases ask for more', async () => {
    project = makeProject();
    const counter = '[[steps]]\nwrite = "counter.txt"\ncontent = "{iteration}"\n';
    const phases = '[[prompts]]\nname = "a"\ntext = "first"\niterations = 60\n[[prompts]]\nname = "b"\ntext = "second"\niterations = 60\n';
    const result = await runLoop([counter], phases, '');
    expect(result.code).toBe(0);
    const c1 = candidate();
    expect([c1.reason, c1.iterations]).toEqual(['hard_limit', 100]);
    expect(c1.history[59]?.phase).toBe('a');
    expect(c1.history[60]?.phase).toBe('b');
  }, 240_000);
});

describe('provider outcomes', () => {
  it('rate_limited waits with backoff and retries without using up an iteration', async () => {
    project = makeProject();
    const limited = scoreScript([100], { 0: '[[iterations.steps]]\nfail = "rate_limited"\ntimes = 2\nmessage = "429 Too Many Requests"\n' });
    const result = await runLoop([limited], '[loop]\nmax_iterations = 3\nrate_limit_backoff = "100ms"\n');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/c1 rate-limited: waiting .* \(attempt 1\)/);
    expect(result.stdout).toMatch(/c1 rate-limited: waiting .* \(attempt 2\)/);
    const c1 = candidate();
    expect([c1.reason, c1.iterations, c1.score]).toEqual(['threshold_reached', 1, 100]);
  });

  it('rate_limited too often stops the candidate', async () => {
    project = makeProject();
    const limited = scoreScript([100], { 0: '[[iterations.steps]]\nfail = "rate_limited"\n' });
    await runLoop([limited], '[loop]\nmax_iterations = 3\nrate_limit_backoff = "50ms"\nmax_rate_limit_waits = 2\n');
    const c1 = candidate();
    expect([c1.reason, c1.status]).toEqual(['rate_limited', 'stopped']);
    expect(c1.message).toContain('still rate-limited after 2 waits');
  });

  it('usage_limit waits for a known reset inside the time limit, and stops when the reset is unknown', async () => {
    project = makeProject();
    const waits = scoreScript([100], { 0: '[[iterations.steps]]\nfail = "usage_limit"\ntimes = 1\nretry_after = "200ms"\n' });
    const stops = scoreScript([100], { 0: '[[iterations.steps]]\nfail = "usage_limit"\nmessage = "usage limit reached"\n' });
    const result = await runLoop([waits, stops], '[loop]\nmax_iterations = 2\n');
    expect(result.stdout).toContain('c1 usage limit reached: waiting');
    expect([candidate('c1').reason, candidate('c1').score]).toEqual(['threshold_reached', 100]);
    expect([candidate('c2').reason, candidate('c2').status]).toEqual(['usage_limit', 'stopped']);
    expect(candidate('c2').message).toContain('no reset time');
  });

  it('auth_error stops that candidate at once with the message; the others go on', async () => {
    project = makeProject();
    const auth = '[[steps]]\nfail = "auth_error"\nmessage = "ANTHROPIC_API_KEY is not set: export it or log in with `claude`"\n';
    const result = await runLoop([auth, scoreScript([100])], '[loop]\nmax_iterations = 5\n');
    expect(result.code).toBe(0);
    const c1 = candidate('c1');
    expect([c1.reason, c1.status, c1.iterations]).toEqual(['auth_error', 'failed', 1]);
    expect(c1.message).toContain('ANTHROPIC_API_KEY is not set');
    expect(readLoopReport(project.repo.dir).winner).toBe('c2');
  });

  it.each([
    ['max_turns', 'it used up its turns before it was done; continue from where it stopped'],
    ['max_tokens', 'its answer hit the output token limit'],
    ['context_overflow', 'the conversation outgrew the context window'],
  ])('%s counts as an iteration and the next prompt says so', async (outcome, note) => {
    project = makeProject();
    const script = scoreScript([30, 100], { 0: `[[iterations.steps]]\nfail = "${outcome}"\nmessage = "the agent stopped early"\n` });
    await runLoop([script], '[loop]\nmax_iterations = 3\n');
    const c1 = candidate();
    expect(c1.history.map((h) => h.outcome)).toEqual([outcome, 'success']);
    expect([c1.reason, c1.iterations]).toEqual(['threshold_reached', 2]);
    expect(promptOf(project.repo.dir, 'c1', 2)).toContain(`Your previous run ended early (${outcome}): ${note}`);
  });

  it('[providers.<kind>] max_concurrency: calls of one agent kind never overlap past the limit', async () => {
    project = makeProject();
    const timed = '[[steps]]\nsay = "start"\n[[steps]]\nsleep = "700ms"\n[[steps]]\nwrite = "p1"\ncontent = "x"\n[[steps]]\nsay = "end"\n';
    await runLoop([timed, timed, timed], '[parallel]\nmax_concurrency = 3\n[providers.script]\nmax_concurrency = 1\n');
    const log = readFileSync(join(onlyRunDir(project.repo.dir), 'events.jsonl'), 'utf8')
      .split('\n')
      .filter((line) => line.includes('"candidate.activity"'))
      .map((line) => JSON.parse(line) as { candidate: string; text: string });
    // With one call at a time, every "start" is followed by the same candidate's "end".
    const sequence = log.filter((e) => e.text === 'start' || e.text === 'end').map((e) => `${e.candidate}:${e.text}`);
    expect(sequence).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) expect(sequence[i + 1]).toBe(sequence[i]?.replace('start', 'end'));
  });
});

describe("the identity of bestof's commits", () => {
  it("is read once per run, before the first agent call, and authors every candidate's commits", async () => {
    project = makeProject();
    project.repo.git('config', 'user.name', 'Run Starter');
    project.repo.git('config', 'user.email', 'starter@example.com');
    // Every git call of the run, through a `git` first on PATH (the child inherits it).
    const bin = makeTempDir('bestof-identity-calls-');
    const { result, calls: logged } = await recordGitCalls(bin, () =>
      runLoop(
        [30, 30, 30].map((score) => scoreScript([score])),
        '[loop]\nmax_iterations = 1\n',
      ),
    ).finally(() => rmSync(bin, { recursive: true, force: true }));
    expect(result.code).toBe(0);
    const calls = logged.map((c) => c.replace(/^(-c \S+ )+/, ''));
    const identityReads = calls.flatMap((c, i) => (/^config -z --get-regexp \^\(user\|author\|committer\)/.test(c) ? [i] : []));
    expect(identityReads).toHaveLength(1);
    // Before the first agent call: its watch of the branches and replace refs comes later.
    const firstWatch = calls.findIndex((c) => c.startsWith('for-each-ref') && c.includes('refs/replace/'));
    expect(firstWatch).toBeGreaterThan(identityReads[0]!);
    for (const c of readLoopReport(project.repo.dir).candidates) {
      expect(project.repo.git('log', '-1', '--format=%an <%ae>|%cn <%ce>', c.ref)).toBe('Run Starter <starter@example.com>|Run Starter <starter@example.com>');
    }
  });
});
