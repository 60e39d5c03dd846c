import { agentTimeout } from '../../src/engine/loop/agent-call.js';
import { createSecretSet, SHAPES_ONLY } from '../../src/engine/sandbox/secrets.js';
/**
 * The candidate loop in-process (no binary): runCandidate and runIteration with a fake
 * Provider against a real temp git repo and real check commands. One test per outcome's
 * policy, the stop rules end to end, and close() on every way out.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeToChannel } from '../../src/engine/loop/channel.js';
import { BudgetLedger } from '../../src/engine/loop/budget.js';
import { loopLimits } from '../../src/engine/loop/candidate.js';
import { runIteration } from '../../src/engine/loop/iteration.js';
import type { LoopContext } from '../../src/engine/loop/loop-context.js';
import { initialLoopState } from '../../src/engine/loop/loop-state.js';
import { OUTCOME_POLICY } from '../../src/engine/loop/outcome-policy.js';
import type { RunPlan } from '../../src/engine/plan/plan.js';
import { candidateDir } from '../../src/engine/record/run-folder.js';
import type { RunEvent } from '../../src/engine/record/events.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { FakeProvider, FakeReviewer, FIVE_CHECKS, makeLoopProject, planFor, runFakeCandidate, type LoopProject } from '../engine/loop-harness.js';

let project: LoopProject;
afterEach(() => project?.cleanup());

async function plan(spec: Parameters<typeof planFor>[1] = {}): Promise<RunPlan> {
  project = makeLoopProject();
  return planFor(project, spec);
}

const loop = (over: Record<string, unknown>) => ({ loop: { max_iterations: 3, rate_limit_backoff: '10ms', ...over } });
/** Commit subjects on the candidate's ref, newest first. */
const log = (p: RunPlan): string[] => project.repo.git('log', '--format=%s', p.candidates[0]!.ref).split('\n');

describe('runCandidate: the kept ref', () => {
  it('moves with the reworded commit in the same git process as the branch, and the record still says so', async () => {
    const p = await plan(loop({ max_iterations: 1 }));
    const candidate = p.candidates[0]!;
    const wrapperDir = makeTempDir('bestof-loop-calls-');
    const { result: run, calls } = await recordGitCalls(wrapperDir, () => runFakeCandidate(p, [{ score: 80 }])).finally(() =>
      rmSync(wrapperDir, { recursive: true, force: true }),
    );
    const kept = project.repo.git('rev-parse', candidate.ref);
    expect(project.repo.git('rev-parse', `refs/heads/${candidate.branch}`)).toBe(kept);
    expect(log(p)[0]).toBe('bestof: c1 iteration 1, score 80');
    expect(run.of('candidate.committed').map((e) => e.commit)).toEqual([kept]);
    const refUpdates = calls.filter((call) => / update-ref /.test(` ${call} `));
    expect(refUpdates.filter((call) => call.includes('update-ref --stdin'))).toHaveLength(1);
    expect(refUpdates.filter((call) => call.includes(` ${candidate.ref} `) || call.endsWith(` ${candidate.ref}`))).toEqual([]);
  });
});

describe('runCandidate: the git processes of an iteration', () => {
  it('asks the worktree for its top level, HEAD and branch in one process, once; looks for index bits once, and cleans no frozen path (its leftovers are aside)', async () => {
    const p = await plan({ ...loop({ max_iterations: 1 }), checks: { frozen: ['README.md'], items: FIVE_CHECKS } });
    const wrapperDir = makeTempDir('bestof-loop-calls-');
    const { result: run, calls } = await recordGitCalls(wrapperDir, () => runFakeCandidate(p, [{ score: 80 }])).finally(() =>
      rmSync(wrapperDir, { recursive: true, force: true }),
    );
    expect(run.finished).toMatchObject({ status: 'done', iterations: 1, score: 80 });
    const subcommand = (call: string): string => call.replace(/^(-c \S+ )+/, '').replace(/^-C \S+ /, '');
    const asked = calls.map(subcommand);
    // The commit step's link check and reclaim read HEAD through readHeadView; the scoring tree
    // right after takes HEAD and its branch from the commit step (no read of its own).
    expect(asked.filter((c) => c.startsWith('symbolic-ref --quiet'))).toEqual([]);
    expect(asked.filter((c) => c.startsWith('rev-parse --show-toplevel'))).toEqual([
      expect.stringMatching(/^rev-parse --show-toplevel HEAD\^\{commit\} refs\/heads\/bestof\/\S+\^\{commit\} --symbolic-full-name HEAD --$/),
    ]);
    // commitAll clears the index bits; the scoring tree right after does not look for them again.
    expect(asked.filter((c) => c.startsWith('ls-files -v'))).toHaveLength(1);
    expect(asked.filter((c) => c.startsWith('clean '))).toEqual([]);
  });
});

describe('runCandidate: outcomes', () => {
  it('success: every iteration is committed with its score and checked by the real checks', async () => {
    const p = await plan(loop({}));
    const run = await runFakeCandidate(p, [{ score: 20 }, { score: 60 }, { score: 80 }]);
    expect(run.finished).toMatchObject({ status: 'done', reason: 'max_iterations', iterations: 3, score: 80 });
    expect(run.of('candidate.scored').map((e) => e.score)).toEqual([20, 60, 80]);
    expect(log(p).slice(0, 3)).toEqual(['bestof: c1 iteration 3, score 80', 'bestof: c1 iteration 2, score 60', 'bestof: c1 iteration 1, score 20']);
    expect(run.end).toEqual({
      head: project.repo.git('rev-parse', p.candidates[0]!.ref),
      iteration: 3,
      setupPaths: [],
      setupGuard: expect.objectContaining({ seal: expect.any(Function) }),
      reason: 'max_iterations',
    });
    expect(run.provider.prompts[1]).toContain('Your previous attempt scored 20 of 100 points; 100 are needed to finish.');
    expect(run.provider.prompts[1]).not.toContain('ended early');
    const progress = readFileSync(join(candidateDir(p.runDir, 'c1'), 'progress.md'), 'utf8');
    expect(progress).toContain('## Iteration 2: score 60/100');
  });

  it.each(['max_turns', 'max_tokens', 'context_overflow'] as const)(
    '%s: the iteration counts, is scored, and the next prompt says to continue; not an error',
    async (outcome) => {
      const p = await plan({ ...loop({ max_iterations: 3 }), breaker: { error_iterations: 1 } });
      const run = await runFakeCandidate(p, [{ outcome, score: 20, message: 'the agent said so' }, { score: 40 }, { score: 60 }]);
      expect(run.finished).toMatchObject({ status: 'done', reason: 'max_iterations', iterations: 3, score: 60 });
      expect(run.of('candidate.scored')[0]).toMatchObject({ iteration: 1, score: 20 });
      expect(run.provider.prompts[1]).toContain(`Your previous run ended early (${outcome}): ${OUTCOME_POLICY[outcome].promptNote} (the agent said so).`);
    },
  );

  it.each(['refusal', 'crashed'] as const)('%s: the iteration counts and is scored; two in a row trip error_iterations = 2', async (outcome) => {
    const p = await plan({ ...loop({ max_iterations: 5 }), breaker: { error_iterations: 2 } });
    const run = await runFakeCandidate(p, [{ outcome, score: 20 }, { outcome, score: 40 }, { score: 60 }]);
    expect(run.finished).toMatchObject({
      status: 'stopped',
      reason: 'breaker_errors',
      iterations: 2,
      score: 40,
      message: 'the agent failed 2 iterations in a row',
    });
    expect(run.provider.prompts[1]).toContain(`(${outcome}): ${OUTCOME_POLICY[outcome].promptNote}.`);
    // What it wrote in the failed calls is committed.
    expect(log(p)[0]).toBe('bestof: c1 iteration 2, score 40');
  });

  it('crashed on the only iteration: the candidate fails with the agent message, its work still committed and scored', async () => {
    const p = await plan({});
    const run = await runFakeCandidate(p, [{ outcome: 'crashed', score: 40, message: 'exit code 3' }]);
    expect(run.finished).toMatchObject({ status: 'failed', reason: 'provider_failed', message: 'exit code 3', iterations: 1, score: 40 });
    expect(run.end?.reason).toBe('provider_failed');
    expect(run.end?.head).toBeDefined();
  });

  it('rate_limited: waits with backoff and calls again in the same iteration, without using it up', async () => {
    const p = await plan(loop({ max_iterations: 1 }));
    const run = await runFakeCandidate(p, [{ outcome: 'rate_limited', message: '429' }, { outcome: 'rate_limited' }, { score: 80 }]);
    expect(run.of('candidate.waiting').map((e) => [e.reason, e.attempt, e.iteration])).toEqual([
      ['rate_limited', 1, 1],
      ['rate_limited', 2, 1],
    ]);
    expect(run.of('provider.finished').map((e) => [e.iteration, e.outcome])).toEqual([
      [1, 'rate_limited'],
      [1, 'rate_limited'],
      [1, 'success'],
    ]);
    expect(new Set(run.provider.prompts).size).toBe(1);
    expect(run.finished).toMatchObject({ status: 'done', reason: 'completed', iterations: 1, score: 80 });
  });

  it('rate_limited past max_rate_limit_waits stops the candidate', async () => {
    const p = await plan(loop({ max_rate_limit_waits: 1 }));
    const run = await runFakeCandidate(p, [{ outcome: 'rate_limited', message: '429', score: 20 }]);
    expect(run.provider.requests).toHaveLength(2);
    expect(run.finished).toMatchObject({ status: 'stopped', reason: 'rate_limited', message: '429; still rate-limited after 1 wait', iterations: 1 });
    expect(run.of('candidate.scored')).toHaveLength(0);
    expect(run.of('candidate.committed')).toHaveLength(1);
  });

  it('usage_limit with a known reset: waits exactly that long and retries', async () => {
    const p = await plan(loop({ max_iterations: 1 }));
    const run = await runFakeCandidate(p, [{ outcome: 'usage_limit', retryAfterMs: 30 }, { score: 80 }]);
    expect(run.of('candidate.waiting').map((e) => [e.reason, e.waitMs])).toEqual([['usage_limit', 30]]);
    expect(run.finished).toMatchObject({ status: 'done', reason: 'completed', iterations: 1, score: 80 });
  });

  it('usage_limit without a reset time stops the candidate at once, keeping its work', async () => {
    const p = await plan(loop({}));
    const run = await runFakeCandidate(p, [{ outcome: 'usage_limit', message: 'limit reached', score: 20 }, { score: 100 }]);
    expect(run.provider.requests).toHaveLength(1);
    expect(run.of('candidate.waiting')).toHaveLength(0);
    expect(run.finished).toMatchObject({ status: 'stopped', reason: 'usage_limit', message: 'limit reached; the usage limit gives no reset time' });
    expect(project.repo.git('show', `${p.candidates[0]!.ref}:p1`)).toBe('iteration 1');
  });

  it('usage_limit whose reset is past the time limit stops the candidate', async () => {
    const p = await plan(loop({ duration: '1m' }));
    const run = await runFakeCandidate(p, [{ outcome: 'usage_limit', retryAfterMs: 120_000 }]);
    expect(run.finished).toMatchObject({ reason: 'usage_limit', message: 'usage_limit; waiting 120s would pass the time limit' });
  });

  it('auth_error: stops at once with the agent message; what it wrote is kept', async () => {
    const p = await plan(loop({ max_iterations: 5 }));
    const run = await runFakeCandidate(p, [{ outcome: 'auth_error', message: 'ANTHROPIC_API_KEY is not set', write: { 'notes.txt': 'x\n' } }]);
    expect(run.provider.requests).toHaveLength(1);
    expect(run.finished).toMatchObject({ status: 'failed', reason: 'auth_error', message: 'ANTHROPIC_API_KEY is not set', iterations: 1 });
    expect(run.of('check.finished')).toHaveLength(0);
    expect(project.repo.git('show', `${p.candidates[0]!.ref}:notes.txt`)).toBe('x');
  });

  it('timeout within the time limit: the iteration counts, is scored, and counts as an error', async () => {
    const p = await plan({ ...loop({ max_iterations: 3 }), breaker: { error_iterations: 2 } });
    const run = await runFakeCandidate(p, [
      { outcome: 'timeout', score: 20 },
      { outcome: 'timeout', score: 40 },
    ]);
    expect(run.of('candidate.scored').map((e) => e.score)).toEqual([20, 40]);
    expect(run.provider.prompts[1]).toContain('(timeout): it was stopped at the time limit; what it had written was kept.');
    expect(run.finished).toMatchObject({ reason: 'breaker_errors', iterations: 2 });
  });

  it("timeout past the candidate's time limit: stops there with its work committed, not scored", async () => {
    const p = await plan(loop({ duration: '4s', max_iterations: 5 }));
    const run = await runFakeCandidate(p, [{ outcome: 'timeout', score: 40, untilTimeout: true }]);
    // How the agent's limit is cut to the time left is agentTimeout's test below, with fixed values.
    expect(run.finished).toMatchObject({
      status: 'stopped',
      reason: 'candidate_duration',
      message: "the candidate's time limit was reached; what it wrote is kept",
      iterations: 1,
    });
    expect(run.of('candidate.scored')).toHaveLength(0);
    expect(project.repo.git('show', `${p.candidates[0]!.ref}:p2`)).toBe('iteration 1');
  });

  it('cancelled outcome: the candidate ends as cancelled, its work committed, no checks run', async () => {
    const p = await plan(loop({}));
    const run = await runFakeCandidate(p, [{ outcome: 'cancelled', score: 20 }]);
    expect(run.finished).toMatchObject({ status: 'cancelled', reason: 'cancelled', iterations: 1 });
    expect(run.finished?.message).toBeUndefined();
    expect(run.of('check.finished')).toHaveLength(0);
    expect(run.of('candidate.committed')).toHaveLength(1);
  });
});

describe('runCandidate: stop rules', () => {
  it('threshold: stops once the score reaches score_threshold', async () => {
    const p = await plan(loop({ max_iterations: 5, score_threshold: 70 }));
    const run = await runFakeCandidate(p, [{ score: 40 }, { score: 80 }, { score: 100 }]);
    expect(run.finished).toMatchObject({ status: 'done', reason: 'threshold_reached', iterations: 2, score: 80 });
    expect(run.provider.requests).toHaveLength(2);
  });

  it('a reviewer refusal keeps the candidate going at full score; LGTM adds its points', async () => {
    const p = await plan({ ...loop({ max_iterations: 2 }), review: { kind: 'command', command: 'true', score: 10 } });
    const refusing = new FakeReviewer('VERDICT: REFUSE: no tests');
    const run = await runFakeCandidate(p, [{ score: 100 }], { reviewer: refusing });
    expect(run.finished).toMatchObject({ reason: 'max_iterations', iterations: 2 });
    expect(run.provider.prompts[1]).toContain('The reviewer refused your previous attempt: no tests');

    project.cleanup();
    const q = await plan({ ...loop({ max_iterations: 2 }), review: { kind: 'command', command: 'true', score: 10 } });
    const agreed = await runFakeCandidate(q, [{ score: 100 }], { reviewer: new FakeReviewer('VERDICT: LGTM') });
    expect(agreed.finished).toMatchObject({ reason: 'threshold_reached', iterations: 1, score: 110 });
  });

  it('regression: allow_regression = false stops on a drop', async () => {
    const p = await plan(loop({ max_iterations: 5, allow_regression: false }));
    const run = await runFakeCandidate(p, [{ score: 60 }, { score: 20 }, { score: 100 }]);
    expect(run.finished).toMatchObject({
      status: 'stopped',
      reason: 'regression',
      message: 'the score dropped from 60 to 20 (allow_regression = false)',
      score: 20,
    });
  });

  it('breaker: the same failing checks three times in a row', async () => {
    const p = await plan(loop({ max_iterations: 6 }));
    const run = await runFakeCandidate(p, [{ score: 20 }, { score: 40 }, { score: 40, write: { a: '1' } }, { score: 40, write: { a: '2' } }]);
    expect(run.finished).toMatchObject({ reason: 'breaker_same_failure', iterations: 4, message: 'the same checks failed 3 iterations in a row' });
  });

  it('breaker: iterations that change nothing', async () => {
    const p = await plan({ ...loop({ max_iterations: 6 }), breaker: { no_diff_iterations: 2, same_failure_iterations: 5 } });
    const run = await runFakeCandidate(p, [{ score: 20 }, {}, {}]);
    expect(run.finished).toMatchObject({ reason: 'breaker_no_diff', iterations: 3 });
    expect(run.of('candidate.committed')).toHaveLength(1);
  });

  it('budget: a candidate past its cap starts no new iteration', async () => {
    const p = await plan({ ...loop({ max_iterations: 5 }), budget: { max_candidate_cost_usd: 1 } });
    const budget = new BudgetLedger({ maxCandidateCostUsd: 1 });
    const run = await runFakeCandidate(p, [{ score: 20, costUsd: 0.6 }, { score: 40, costUsd: 0.6 }, { score: 60 }], { budget });
    expect(run.finished).toMatchObject({ reason: 'budget_candidate', iterations: 2, costUsd: 1.2 });
  });

  it('the channel: a message goes into the next prompt; a stop ends the loop at the boundary', async () => {
    const p = await plan(loop({ max_iterations: 5 }));
    let scored = 0;
    const run = await runFakeCandidate(p, [{ score: 20 }], {
      onEvent: (event: RunEvent) => {
        if (event.type !== 'candidate.scored') return;
        scored += 1;
        if (scored === 1) writeToChannel(p.runDir, 'c1', { kind: 'message', text: 'Keep the API.' });
        if (scored === 2) writeToChannel(p.runDir, 'c1', { kind: 'stop', text: '' });
      },
    });
    expect(run.provider.prompts[1]).toContain('Messages from the user:\n- Keep the API.');
    expect(run.finished).toMatchObject({ status: 'stopped', reason: 'stopped_by_user', iterations: 2 });
    expect(run.of('channel.received').map((e) => e.kind)).toEqual(['message', 'stop']);
  });

  it('run_duration already passed: the candidate never starts', async () => {
    const p = await plan(loop({}));
    const run = await runFakeCandidate(p, [{ score: 100 }], { runDeadline: Date.now() - 1 });
    expect(run.finished).toMatchObject({ status: 'stopped', reason: 'run_duration', iterations: 0 });
    expect(run.provider.requests).toHaveLength(0);
    expect(existsSync(p.candidates[0]!.worktree)).toBe(false);
  });
});

describe('runCandidate: close()', () => {
  it('closes the provider and the reviewer once on a normal end', async () => {
    const p = await plan({ ...loop({ max_iterations: 1 }), review: { kind: 'command', command: 'true', score: 10 } });
    const reviewer = new FakeReviewer('VERDICT: LGTM');
    const run = await runFakeCandidate(p, [{ score: 100 }], { reviewer });
    expect(run.finished?.reason).toBe('threshold_reached');
    expect([run.provider.closed, reviewer.closed]).toEqual([1, 1]);
  });

  it('closes the provider on cancel, after committing what the agent wrote', async () => {
    const p = await plan(loop({ max_iterations: 5 }));
    const controller = new AbortController();
    const provider = new FakeProvider([{ score: 40, untilAborted: true }]);
    const run = await runFakeCandidate(p, provider, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'candidate.status' && event.status === 'running') setTimeout(() => controller.abort(), 50);
      },
    });
    expect(run.finished).toMatchObject({ status: 'cancelled', reason: 'cancelled', iterations: 1 });
    expect(run.end?.reason).toBe('cancelled');
    expect(project.repo.git('show', `${p.candidates[0]!.ref}:p2`)).toBe('iteration 1');
    expect(provider.closed).toBe(1);
  });

  it('closes the provider and the reviewer when the provider throws; the error reaches the caller', async () => {
    const p = await plan({ ...loop({}), review: { kind: 'command', command: 'true', score: 10 } });
    const reviewer = new FakeReviewer('VERDICT: LGTM');
    const run = await runFakeCandidate(p, [{ throws: 'bug in the provider' }], { reviewer });
    expect(run.error?.message).toBe('bug in the provider');
    expect(run.finished).toBeUndefined();
    expect([run.provider.closed, reviewer.closed]).toEqual([1, 1]);
  });
});

describe('runIteration alone', () => {
  async function loopContext(p: RunPlan, provider: FakeProvider): Promise<{ ctx: LoopContext; events: RunEvent[] }> {
    const candidate = p.candidates[0]!;
    const added = await addWorktree(p.repoRoot, { path: candidate.worktree, branch: candidate.branch, base: p.baseCommit });
    expect(added.ok).toBe(true);
    const events: RunEvent[] = [];
    const ctx: LoopContext = {
      plan: p,
      candidate,
      signal: new AbortController().signal,
      emit: (e) => void events.push({ t: '', ...e } as RunEvent),
      limitProvider: (_c, call) => call(),
      secrets: SHAPES_ONLY,
      budget: new BudgetLedger({}),
      provider,
      reviewer: undefined,
      agentEnv: process.env,
      checkEnv: process.env,
      setupPaths: [],
      limits: loopLimits(p),
    };
    return { ctx, events };
  }

  it('one iteration: a new state with the score, the commit, the feedback and the streaks', async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const { ctx, events } = await loopContext(p, new FakeProvider([{ outcome: 'max_turns', score: 60, message: 'out of turns' }]));
    const start = initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined });
    const step = await runIteration(ctx, start);
    expect(step.stop).toBeUndefined();
    expect(step.state).toMatchObject({
      iteration: 1,
      lastScore: 60,
      previousScore: 0,
      headIsOurs: true,
      lastOutcome: 'max_turns',
      breaker: { errors: 0, noDiff: 0, sameFailure: 1 },
    });
    expect(step.state.feedback).toMatchObject({ score: 60, maxScore: 100, outcome: 'max_turns', outcomeMessage: 'out of turns' });
    expect(step.state.feedback?.failedChecks.map((c) => c.name)).toEqual(['p4', 'p5']);
    expect(step.state.head).toBe(project.repo.git('rev-parse', p.candidates[0]!.ref));
    expect(start.iteration).toBe(0);
    expect(events.map((e) => e.type).filter((t) => t !== 'check.finished')).toEqual([
      'candidate.status',
      'provider.finished',
      'candidate.status',
      'candidate.committed',
      'candidate.scored',
    ]);
  });

  it('records and keeps the commit only once it is reworded with its score, so no recorded commit becomes unreachable', async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const { ctx, events } = await loopContext(p, new FakeProvider([{ score: 60 }, { score: 80 }]));
    let state = initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined });
    for (let i = 0; i < 2; i += 1) state = (await runIteration(ctx, state)).state;
    const ref = p.candidates[0]!.ref;
    const recorded = events.flatMap((e) => (e.type === 'candidate.committed' ? [e.commit] : []));
    expect(recorded).toHaveLength(2);
    for (const commit of recorded) {
      // Reachable from the kept ref: `merge-base --is-ancestor` exits 0.
      expect(() => project.repo.git('merge-base', '--is-ancestor', commit, ref)).not.toThrow();
    }
    expect(project.repo.git('log', '-1', '--format=%s', recorded[0]!)).toMatch(/iteration 1, score 60$/);
    expect(project.repo.git('rev-parse', ref)).toBe(recorded[1]);
  });

  it("an agent's `git checkout -b` and commit: its work lands on the candidate's branch, and its branch leaves the user's branches for refs/bestof", async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const { ctx, events } = await loopContext(
      p,
      new FakeProvider([{ score: 60, shell: 'git checkout -q -b feature && git add -A && git commit -qm "agent work"' }]),
    );
    const step = await runIteration(ctx, initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined }));
    const c = p.candidates[0]!;
    expect(project.repo.git('branch', '--list', 'feature')).toBe('');
    const adopted = `refs/bestof/${p.runId}/c1/agent-branches/feature`;
    const agentCommit = project.repo.git('rev-parse', adopted);
    expect(project.repo.git('log', '-1', '--format=%s', agentCommit)).toBe('agent work');
    expect(step.state.head).toBe(agentCommit);
    expect(project.repo.git('rev-parse', c.ref)).toBe(agentCommit);
    expect(project.repo.git('rev-parse', `refs/heads/${c.branch}`)).toBe(agentCommit);
    expect(events.some((e) => e.type === 'run.warning' && e.message.includes('made branch feature'))).toBe(true);
  });

  it("an agent's `git reset --hard HEAD~1`: the kept ref only moves forward, the earlier commit stays in the history", async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const { ctx } = await loopContext(p, new FakeProvider([{ score: 60 }, { score: 80, shell: 'git reset -q --hard HEAD~1' }]));
    let state = initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined });
    state = (await runIteration(ctx, state)).state;
    const first = state.head!;
    state = (await runIteration(ctx, state)).state;
    const ref = p.candidates[0]!.ref;
    expect(() => project.repo.git('merge-base', '--is-ancestor', first, ref)).not.toThrow();
    expect(project.repo.git('rev-parse', `${ref}~1`)).toBe(first);
  });

  it("an agent's own commits that held a secret (even one deleted again) are folded into bestof's commit, which leaves it out", async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const secret = 'tok-4f9a8b7c6d5e4f3a2b1c';
    const { ctx, events } = await loopContext(
      p,
      new FakeProvider([
        {
          score: 60,
          shell: `echo ${secret} > dump.txt && echo kept > notes.txt && git add -A && git commit -qm dump && git rm -q dump.txt && git commit -qm gone`,
        },
      ]),
    );
    const withSecrets: LoopContext = { ...ctx, secrets: createSecretSet([['SERVICE_TOKEN', secret]]) };
    const step = await runIteration(withSecrets, initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined }));
    const ref = p.candidates[0]!.ref;
    expect(project.repo.git('log', '-p', '--all')).not.toContain(secret);
    expect(project.repo.git('show', `${ref}:notes.txt`)).toBe('kept');
    expect(step.state.head).toBe(project.repo.git('rev-parse', ref));
    expect(events.some((e) => e.type === 'run.warning' && e.message.includes('folded them into one commit'))).toBe(true);
  });

  it('a link out of the worktree and a nested repository are left out of the commit; the run warns and the next prompt says why', async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const shell =
      'ln -s /etc/hostname out.txt && mkdir lib && cd lib && git init -q && echo x > f && git add f && git -c user.name=a -c user.email=a@b commit -qm lib && cd .. && echo kept > notes.txt';
    const { ctx, events } = await loopContext(p, new FakeProvider([{ score: 60, shell }]));
    const step = await runIteration(ctx, initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined }));
    const ref = p.candidates[0]!.ref;
    expect(
      project.repo
        .git('ls-tree', '-r', '--name-only', ref)
        .split('\n')
        .filter((path) => !/^p\d$/.test(path)),
    ).toEqual(['README.md', 'notes.txt']);
    expect(step.state.feedback?.leftOut).toEqual([
      'lib is a nested git repository (a folder with its own .git, no .gitmodules entry), whose files a commit does not hold: commit its files, not a repository',
      'out.txt is a symbolic link to /etc/hostname, outside the worktree: commit the file itself, not a link to it',
    ]);
    const warnings = events.flatMap((e) => (e.type === 'run.warning' ? [e.message] : []));
    expect(warnings).toContain(
      'out.txt was not committed: is a symbolic link to /etc/hostname, outside the worktree: commit the file itself, not a link to it',
    );
  });

  for (const [what, shell] of [
    ["deletes its worktree's .git file", 'rm .git'],
    ['replaces it with a repository of its own (git init)', 'rm .git && git init -q'],
  ] as const) {
    it(`an agent that ${what}: the link is repaired, its files are committed, and it is flagged`, async () => {
      const p = await plan(loop({ max_iterations: 3 }));
      const { ctx, events } = await loopContext(p, new FakeProvider([{ score: 60, write: { 'notes.txt': 'written before the rm\n' }, shell }]));
      const step = await runIteration(ctx, initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined }));
      const ref = p.candidates[0]!.ref;
      expect(step.state.head).toBe(project.repo.git('rev-parse', ref));
      expect(project.repo.git('show', `${ref}:notes.txt`)).toBe('written before the rm');
      expect(step.state.lastScore).toBe(60);
      // The guard around the agent call puts the link back and flags the candidate (a worktree's git
      // link is bestof's); the repair in the commit step covers what the guard does not see.
      expect(events.some((e) => e.type === 'candidate.tampered' && e.paths.some((t) => t.path === '.git'))).toBe(true);
    });
  }

  it('a branch the user makes meanwhile in their own checkout is left alone', async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const { ctx } = await loopContext(
      p,
      new FakeProvider([{ score: 60 }, { score: 80, shell: `git -C ${JSON.stringify(project.repo.dir)} branch users-own` }]),
    );
    let state = initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined });
    state = (await runIteration(ctx, state)).state;
    await runIteration(ctx, state);
    expect(project.repo.git('branch', '--list', 'users-own')).toContain('users-own');
  });

  it('the iteration that reaches the threshold returns the stop with the state', async () => {
    const p = await plan(loop({ max_iterations: 3 }));
    const { ctx } = await loopContext(p, new FakeProvider([{ score: 100 }]));
    const step = await runIteration(ctx, initialLoopState(p, { now: Date.now(), candidateDurationMs: undefined, runDeadline: undefined }));
    expect(step.stop).toEqual({ reason: 'threshold_reached' });
    expect(step.state.lastScore).toBe(100);
  });
});

describe('agentTimeout', () => {
  it("cuts the provider's own limit to the time the candidate has left, never under a second", () => {
    expect(agentTimeout(15 * 60_000, 4000)).toBe(4000);
    expect(agentTimeout(15 * 60_000, undefined)).toBe(15 * 60_000);
    expect(agentTimeout(30_000, 60_000)).toBe(30_000);
    expect(agentTimeout(30_000, 200)).toBe(1000);
  });
});
