/**
 * The coordinator: one run from plan to report. Candidates run concurrently under
 * `[parallel] max_concurrency` (and `[providers.<kind>] max_concurrency` for agent calls),
 * every step is an event, and the end is always the same whatever happened: every
 * candidate's work committed and kept under refs/bestof/<run>/<candidate>, worktrees
 * removed (unless kept), state.json and the reports written, and one run.finished event.
 */
import { writeFileSync } from 'node:fs';
import PQueue from 'p-queue';
import { ensureExcluded } from '../git/repo.js';
import { pruneWorktrees, removeWorktree } from '../git/worktree.js';
import { createProvider } from '../providers/registry.js';
import type { Provider } from '../providers/types.js';
import { renderMarkdownReport, buildJsonReport } from '../report/report.js';
import { appendEvent, createRunFolder, writeFileAtomic } from '../report/run-folder.js';
import { markRunAlive, markRunFinished } from '../report/run-lock.js';
import { join } from 'node:path';
import { BudgetLedger } from './budget.js';
import { runCandidate } from './candidate.js';
import type { RunEvent, RunEventListener, RunStatus, UnstampedEvent } from './events.js';
import { applyMergePolicy } from './merge-policy.js';
import type { CandidatePlan, RunPlan } from './plan.js';
import { initialRunState, reduceRunState, type RunState } from './run-state.js';
import { rankCandidates } from './select.js';

export const EXIT_CODES = {
  winner: 0,
  noWinner: 1,
  badInput: 2,
  mergeFailed: 3,
  cancelled: 130,
} as const;

export interface ExecuteRunOptions {
  readonly signal: AbortSignal;
  readonly listeners?: readonly RunEventListener[];
  /** Continue an interrupted run: its state as folded from its event log. */
  readonly resume?: RunState;
}

/** Candidates in these states are finished and stay so when a run is resumed. */
const FINISHED: ReadonlySet<string> = new Set(['done', 'failed', 'stopped']);

export async function executeRun(plan: RunPlan, options: ExecuteRunOptions): Promise<RunState> {
  const { spec } = plan;
  const started = performance.now();
  let state = options.resume ?? initialRunState();
  const listeners = options.listeners ?? [];

  if (!options.resume) createRunFolder(plan.runDir, plan.specSource);
  markRunAlive(plan.runDir);
  await ensureExcluded(plan.repoRoot, '/.bestof/');

  const emit = (partial: UnstampedEvent): void => {
    const event = { t: new Date().toISOString(), ...partial } as RunEvent;
    appendEvent(plan.runDir, event);
    state = reduceRunState(state, event);
    // Activity lines are many and change nothing that resume needs.
    if (event.type !== 'candidate.activity') writeFileAtomic(join(plan.runDir, 'state.json'), JSON.stringify(state, null, 2));
    for (const listener of listeners) listener(event);
  };

  const resumed = options.resume ? plan.candidates.filter((c) => !FINISHED.has(options.resume?.candidates[c.id]?.status ?? '')) : plan.candidates;
  if (options.resume) {
    emit({ type: 'run.resumed', resumed: resumed.map((c) => c.id), finished: plan.candidates.filter((c) => !resumed.includes(c)).map((c) => c.id) });
  } else emit({
    type: 'run.started',
    runId: plan.runId,
    name: spec.name,
    repo: plan.repoRoot,
    base: spec.base,
    baseCommit: plan.baseCommit,
    runDir: plan.runDir,
    specPath: plan.specPath,
    candidates: plan.candidates.map(({ id, index, label, provider, model, branch, ref, worktree }) => ({ id, index, label, provider, model, branch, ref, worktree })),
    checks: spec.checks.items.map((c) => ({ name: c.name, score: c.score })),
    maxScore: plan.maxScore,
    scoreThreshold: plan.scoreThreshold,
    maxIterations: plan.maxIterations,
    mergeMode: spec.select.merge,
    budget: {
      ...(spec.budget.max_total_cost_usd !== undefined ? { maxTotalCostUsd: spec.budget.max_total_cost_usd } : {}),
      ...(spec.budget.max_candidate_cost_usd !== undefined ? { maxCandidateCostUsd: spec.budget.max_candidate_cost_usd } : {}),
      ...(spec.budget.warn_at_usd !== undefined ? { warnAtUsd: spec.budget.warn_at_usd } : {}),
    },
  });
  for (const warning of plan.warnings) emit({ type: 'run.warning', message: warning });

  // Money already spent (before a resume) counts against the caps.
  const budget = new BudgetLedger(
    { maxTotalCostUsd: spec.budget.max_total_cost_usd, maxCandidateCostUsd: spec.budget.max_candidate_cost_usd, warnAtUsd: spec.budget.warn_at_usd },
    Object.fromEntries(Object.values(state.candidates).map((c) => [c.id, c.costUsd])),
  );
  const runDeadline = spec.loop.run_duration !== undefined ? Date.now() + spec.loop.run_duration : undefined;
  // `[providers.<kind>] prices` of the spec go over configs/prices.toml (codex, gemini).
  const providerFor = (candidate: CandidatePlan): Provider =>
    createProvider(candidate.settings, candidate.agent, { prices: spec.providers[candidate.settings.kind]?.prices });
  const review = plan.review;
  const createReviewer = review ? (): Provider => createProvider(review.settings, review.agent, { prices: spec.providers[review.settings.kind]?.prices }) : undefined;

  const queue = new PQueue({ concurrency: spec.parallel.max_concurrency });
  const providerQueues = new Map<string, PQueue>();
  const limitProvider = <T>(candidate: CandidatePlan, call: () => Promise<T>): Promise<T> => {
    const limit = spec.providers[candidate.settings.kind]?.max_concurrency;
    if (!limit) return call();
    let kindQueue = providerQueues.get(candidate.settings.kind);
    if (!kindQueue) providerQueues.set(candidate.settings.kind, (kindQueue = new PQueue({ concurrency: limit })));
    return kindQueue.add(call) as Promise<T>;
  };

  // No `signal` for queue.add on purpose: p-queue would reject at once on abort while the
  // task is still committing the candidate's work. A task that starts after a cancel returns.
  await Promise.all(
    resumed.map((candidate) =>
      queue.add(async () => {
        if (options.signal.aborted) {
          emit(neverStarted(candidate.id));
          return;
        }
        try {
          const past = options.resume?.candidates[candidate.id];
          await runCandidate(
            {
              plan,
              signal: options.signal,
              emit,
              limitProvider,
              createProvider: providerFor,
              ...(createReviewer ? { createReviewer } : {}),
              budget,
              ...(runDeadline !== undefined ? { runDeadline } : {}),
              ...(past
                ? { resume: { iterations: past.iterations, head: past.commit, channelConsumed: past.messages.length, elapsedMs: past.durationMs } }
                : {}),
            },
            candidate,
          );
        } catch (error) {
          emit(internalFailure(state, candidate.id, error));
        }
      }),
    ),
  );

  let status: RunStatus;
  let exitCode: number;
  let message: string;
  if (options.signal.aborted) {
    status = 'cancelled';
    exitCode = EXIT_CODES.cancelled;
    message = `run cancelled; every candidate's work is kept under refs/bestof/${plan.runId}/; continue it with \`bestof resume ${plan.runId}\`, or see \`bestof show ${plan.runId}\``;
  } else {
    const ranking = rankCandidates(
      state.order.map((id) => state.candidates[id]).filter((c) => c !== undefined),
      { minScore: spec.select.min_score, tieBreak: spec.select.tie_break },
    );
    const best = ranking[0];
    const winner = best?.eligible ? best.candidate : undefined;
    emit({
      type: 'selection.finished',
      ranking,
      winner,
      message: winner
        ? `${winner} wins with ${best?.score} of ${plan.maxScore} points`
        : `no candidate can win: ${ranking.map((r) => `${r.candidate} ${r.reason ?? ''}`.trim()).join('; ') || 'no candidates'}`,
    });
    if (winner) {
      const candidate = plan.candidates.find((c) => c.id === winner) as CandidatePlan;
      const merged = await applyMergePolicy({
        repoRoot: plan.repoRoot,
        mode: spec.select.merge,
        runId: plan.runId,
        candidate: winner,
        label: candidate.label,
        branch: candidate.branch,
        into: plan.into,
      });
      emit({ type: 'merge.finished', candidate: winner, mode: spec.select.merge, branch: candidate.branch, ok: merged.ok, ...(merged.commit ? { commit: merged.commit } : {}), message: merged.message });
      status = 'winner';
      exitCode = merged.ok ? EXIT_CODES.winner : EXIT_CODES.mergeFailed;
      message = merged.ok ? `${winner} (${candidate.label}) won; ${merged.message}` : `${winner} (${candidate.label}) won, but the merge did not happen: ${merged.message}`;
    } else {
      status = 'no_winner';
      exitCode = EXIT_CODES.noWinner;
      message = `no candidate passed; every candidate's work is kept under refs/bestof/${plan.runId}/; \`bestof show ${plan.runId}\` says why each one failed`;
    }
  }

  if (!spec.git.keep_worktrees) await removeWorktrees(plan, emit);
  emit({ type: 'run.finished', status, exitCode, winner: state.winner, durationMs: Math.round(performance.now() - started), message });
  writeFileSync(join(plan.runDir, 'report.json'), `${JSON.stringify(buildJsonReport(state), null, 2)}\n`);
  writeFileSync(join(plan.runDir, 'report.md'), renderMarkdownReport(state));
  markRunFinished(plan.runDir);
  return state;
}

/** A bug or an unexpected git failure: this candidate stops, the others go on. */
function internalFailure(state: RunState, candidate: string, error: unknown): UnstampedEvent {
  const c = state.candidates[candidate];
  return {
    type: 'candidate.finished',
    candidate,
    status: 'failed',
    reason: 'internal_error',
    message: `internal error: ${(error as Error)?.message ?? String(error)}; its last commit is kept at ${c?.ref ?? 'refs/bestof'}`,
    iterations: c?.iteration ?? 0,
    score: c?.score ?? 0,
    commit: c?.commit,
    diff: c?.diff ?? { files: 0, insertions: 0, deletions: 0 },
    durationMs: 0,
    costUsd: c?.costUsd ?? 0,
  };
}

function neverStarted(candidate: string): UnstampedEvent {
  return {
    type: 'candidate.finished',
    candidate,
    status: 'cancelled',
    reason: 'cancelled',
    message: 'cancelled before it started',
    iterations: 0,
    score: 0,
    commit: undefined,
    diff: { files: 0, insertions: 0, deletions: 0 },
    durationMs: 0,
    costUsd: 0,
  };
}

/** Every candidate's work is committed and kept under refs/bestof by now, so removing worktrees loses nothing. */
async function removeWorktrees(plan: RunPlan, emit: (event: UnstampedEvent) => void): Promise<void> {
  for (const candidate of plan.candidates) {
    const removed = await removeWorktree(plan.repoRoot, candidate.worktree, { force: true });
    if (removed && typeof removed === 'object' && 'ok' in removed && removed.ok === false) {
      emit({ type: 'run.warning', candidate: candidate.id, message: `could not remove worktree ${candidate.worktree}: ${'message' in removed ? String(removed.message) : ''}; \`bestof clean\` will retry` });
    }
  }
  await pruneWorktrees(plan.repoRoot);
}
