/**
 * One candidate from worktree to final score: setup, then iterations of
 * prompt -> provider -> commit -> frozen checks -> stop rules. Whatever happens (a crash,
 * a timeout, a cancel), what the agent wrote is committed on the candidate's branch and
 * kept reachable under refs/bestof/<run>/<candidate> before this function returns.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { commitAll } from '../git/commit.js';
import { diffStat } from '../git/diff.js';
import { updateRef } from '../git/refs.js';
import type { Provider, ProviderResult } from '../providers/types.js';
import { candidateDir, iterationDir } from '../report/run-folder.js';
import type { StopReason, UnstampedEvent } from './events.js';
import type { CandidatePlan, RunPlan } from './plan.js';
import { buildRetryPrompt } from './prompts.js';
import { scoreCommit, type Scoring } from './score.js';
import { prepareWorkspace } from './workspace.js';

export interface CandidateContext {
  readonly plan: RunPlan;
  readonly signal: AbortSignal;
  readonly emit: (event: UnstampedEvent) => void;
  /** Runs a provider call under the per-provider-kind concurrency limit. */
  readonly limitProvider: <T>(candidate: CandidatePlan, call: () => Promise<T>) => Promise<T>;
  readonly createProvider: (candidate: CandidatePlan) => Provider;
}

export function candidateEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return {
    ...process.env,
    ...candidate.settings.env,
    BESTOF_RUN: plan.runId,
    BESTOF_CANDIDATE: candidate.id,
    BESTOF_INDEX: String(candidate.index),
    BESTOF_RUN_DIR: plan.runDir,
    PORT: String(candidate.port),
  };
}

/** Environment of the checks: the user's, plus the candidate's identity and port, never the agent's extra env. */
function checkEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return { ...process.env, BESTOF_RUN: plan.runId, BESTOF_CANDIDATE: candidate.id, BESTOF_INDEX: String(candidate.index), PORT: String(candidate.port) };
}

export async function runCandidate(ctx: CandidateContext, candidate: CandidatePlan): Promise<void> {
  const { plan, signal, emit } = ctx;
  const { spec } = plan;
  const started = performance.now();
  const id = candidate.id;
  let head: string | undefined;
  let costUsd = 0;
  let iteration = 0;
  let lastScore = 0;
  let reason: StopReason = 'completed';
  let status: 'done' | 'failed' | 'stopped' | 'cancelled' = 'done';
  let message: string | undefined;

  const finish = async (): Promise<void> => {
    const diff = head ? await diffStat(plan.repoRoot, plan.baseCommit, head) : { files: 0, insertions: 0, deletions: 0 };
    emit({
      type: 'candidate.finished',
      candidate: id,
      status,
      reason,
      ...(message === undefined ? {} : { message }),
      iterations: iteration,
      score: lastScore,
      commit: head,
      diff: { files: diff.files, insertions: diff.insertions, deletions: diff.deletions },
      durationMs: Math.round(performance.now() - started),
      costUsd,
    });
  };

  await mkdir(candidateDir(plan.runDir, id), { recursive: true });
  emit({ type: 'candidate.status', candidate: id, status: 'setup', iteration: 0 });
  const env = candidateEnv(plan, candidate);
  const workspace = await prepareWorkspace({
    repoRoot: plan.repoRoot,
    worktree: candidate.worktree,
    branch: candidate.branch,
    baseCommit: plan.baseCommit,
    copy: spec.setup.copy,
    commands: spec.setup.commands,
    commandTimeoutMs: spec.setup.timeout,
    env,
    logFile: join(candidateDir(plan.runDir, id), 'setup.log'),
    signal,
  });
  if (!workspace.ok) {
    emit({ type: 'candidate.setup', candidate: id, ok: false, message: workspace.message, copied: [] });
    [status, reason, message] = signal.aborted ? ['cancelled', 'cancelled', 'cancelled during setup'] : ['failed', 'setup_failed', workspace.message];
    await finish();
    return;
  }
  // Recorded so that `bestof clean` can save leftover work without the setup files.
  await writeFile(join(candidateDir(plan.runDir, id), 'setup-paths.json'), JSON.stringify(workspace.setupPaths));
  for (const warning of workspace.warnings) emit({ type: 'run.warning', candidate: id, message: warning });
  emit({ type: 'candidate.setup', candidate: id, ok: true, copied: workspace.copied });

  const provider = ctx.createProvider(candidate);
  let previous: { scoring: Scoring; result: ProviderResult } | undefined;
  while (iteration < spec.loop.max_iterations) {
    if (signal.aborted) {
      [status, reason] = ['cancelled', 'cancelled'];
      break;
    }
    iteration += 1;
    const artifactsDir = iterationDir(plan.runDir, id, iteration);
    await mkdir(artifactsDir, { recursive: true });
    emit({ type: 'candidate.status', candidate: id, status: 'running', iteration });
    const prompt = previous ? buildRetryPrompt({ task: plan.prompt, iteration, scoring: previous.scoring, threshold: plan.scoreThreshold, result: previous.result }) : plan.prompt;
    const result = await ctx.limitProvider(candidate, () =>
      provider.run({
        prompt,
        cwd: candidate.worktree,
        model: candidate.model,
        iteration,
        candidateId: id,
        env,
        timeoutMs: candidate.settings.timeout,
        artifactsDir,
        signal,
        onActivity: (text) => emit({ type: 'candidate.activity', candidate: id, iteration, text: text.slice(0, 500) }),
      }),
    );
    costUsd += result.costUsd;
    emit({
      type: 'provider.finished',
      candidate: id,
      iteration,
      outcome: result.outcome,
      ...(result.message === undefined ? {} : { message: result.message }),
      costUsd: result.costUsd,
      usage: result.usage,
      turns: result.turns,
      durationMs: Math.round(result.durationMs),
    });

    // Commit before anything else: a crash, a timeout or a cancel keeps what was written.
    const committed = await commitAll(candidate.worktree, {
      message: `bestof: ${id} iteration ${iteration} (${result.outcome})`,
      excludePaths: workspace.setupPaths,
    });
    if (committed.commit) {
      head = committed.commit;
      await updateRef(plan.repoRoot, candidate.ref, head);
      emit({ type: 'candidate.committed', candidate: id, iteration, commit: head, changedFiles: committed.changedFiles });
    }

    if (result.outcome === 'cancelled' || signal.aborted) {
      [status, reason] = ['cancelled', 'cancelled'];
      break;
    }
    if (result.outcome === 'auth_error') {
      [status, reason, message] = ['failed', 'auth_error', result.message];
      break;
    }

    emit({ type: 'candidate.status', candidate: id, status: 'checking', iteration });
    const scoring = await scoreCommit({
      worktree: candidate.worktree,
      baseCommit: plan.baseCommit,
      commit: head ?? plan.baseCommit,
      frozen: spec.checks.frozen,
      checks: spec.checks.items.filter((check) => check.from_iteration <= iteration),
      keepPaths: workspace.setupPaths,
      env: checkEnv(plan, candidate),
      logDir: join(artifactsDir, 'checks'),
      signal,
      onCheck: (check) => emit({ type: 'check.finished', candidate: id, iteration, check }),
    });
    if (scoring.interrupted && signal.aborted) {
      [status, reason] = ['cancelled', 'cancelled'];
      break;
    }
    if (scoring.tampered.length > 0) emit({ type: 'candidate.tampered', candidate: id, iteration, paths: scoring.tampered });
    lastScore = scoring.score;
    emit({
      type: 'candidate.scored',
      candidate: id,
      iteration,
      score: scoring.score,
      maxScore: scoring.maxScore,
      failedChecks: scoring.checks.filter((c) => !c.passed).map((c) => c.name),
    });
    previous = { scoring, result };

    if (result.outcome !== 'success' && !message) message = result.message ?? `the agent ended with ${result.outcome}`;
    if (scoring.maxScore > 0 && scoring.score >= plan.scoreThreshold) {
      reason = 'threshold_reached';
      break;
    }
    if (iteration >= spec.loop.max_iterations) reason = spec.loop.max_iterations > 1 ? 'max_iterations' : 'completed';
  }
  // The agent's last call did not succeed: its committed work is still scored and may win,
  // but the candidate is shown as failed with the agent's own message.
  if (status === 'done' && previous && previous.result.outcome !== 'success' && reason !== 'threshold_reached') {
    [status, reason] = ['failed', 'provider_failed'];
  }
  await finish();
}
