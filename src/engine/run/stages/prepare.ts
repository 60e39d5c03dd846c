/**
 * Prepare: on resume, first of all, the processes the interrupted run left running are stopped
 * (else an orphaned agent would go on writing beside the resumed one in the same worktree);
 * then the run folder (new runs only) and the run's key in it, before any process starts; the
 * liveness mark that keeps `bestof clean` away, the exclusion of `.bestof/` from git, the identity
 * of bestof's commits (read before any agent runs), and the first event: run.started, or
 * run.resumed with which candidates go on and which had finished.
 */
import { readCommitIdentity } from '../../../git/history/commit.js';
import { ensureExcluded, resolveCommit, warmDriverLookup } from '../../../git/running/repo.js';
import { RECORD_FORMAT } from '../../record/events.js';
import { stopRunLeftovers, writeRunKey } from '../../sandbox/leftovers.js';
import type { RunContext } from '../run-context.js';
import { createRunFolder } from '../../record/run-folder.js';
import { markRunAlive } from '../../record/run-lock.js';

/** Candidates in these states are finished and stay so when a run is resumed. */
export const FINISHED_STATUSES: ReadonlySet<string> = new Set(['done', 'failed', 'stopped']);

export async function prepareRun(ctx: RunContext): Promise<void> {
  const { plan, resume } = ctx;
  const { spec } = plan;
  const leftovers = resume ? await stopRunLeftovers(plan.runKey) : 0;
  // The identity of bestof's commits is the repository's as the run starts, read before any agent
  // runs (awaited at the end of this stage); meanwhile the run folder is made and run.started said.
  // So is the driver look-up that the first `git worktree add` needs: asked beside it, not after it.
  const identity = Promise.all([readCommitIdentity(plan.repoRoot), warmDriverLookup(plan.repoRoot)]);
  if (!resume) createRunFolder(plan.runDir, plan.specSource);
  // Also on resume: a run made before run keys existed gets one now.
  writeRunKey(plan.runDir, plan.runKey);
  markRunAlive(plan.runDir);
  await ensureExcluded(plan.repoRoot, '/.bestof/');

  if (resume) {
    const goOn = candidatesToRun(ctx).map((c) => c.id);
    ctx.emit({ type: 'run.resumed', resumed: goOn, finished: plan.candidates.map((c) => c.id).filter((id) => !goOn.includes(id)) });
    if (leftovers > 0) {
      ctx.emit({
        type: 'run.warning',
        message: `stopped ${leftovers} process${leftovers === 1 ? '' : 'es'} that the interrupted run had left running (agents, checks or processes they started), so that nothing works beside the resumed candidates`,
      });
    }
  } else {
    const intoCommit = plan.into ? await resolveCommit(plan.repoRoot, `refs/heads/${plan.into}`) : undefined;
    ctx.emit({
      type: 'run.started',
      recordFormat: RECORD_FORMAT,
      runId: plan.runId,
      name: spec.name,
      repo: plan.repoRoot,
      base: spec.base,
      baseCommit: plan.baseCommit,
      runDir: plan.runDir,
      specPath: plan.specPath,
      candidates: plan.candidates.map(({ id, index, label, provider, model, branch, ref, worktree }) => ({
        id,
        index,
        label,
        provider,
        model,
        branch,
        ref,
        worktree,
      })),
      checks: spec.checks.items.map((c) => ({ name: c.name, score: c.score })),
      maxScore: plan.maxScore,
      scoreThreshold: plan.scoreThreshold,
      maxIterations: plan.maxIterations,
      mergeMode: spec.select.merge,
      ...(intoCommit ? { intoCommit } : {}),
      budget: {
        ...(spec.budget.max_total_cost_usd !== undefined ? { maxTotalCostUsd: spec.budget.max_total_cost_usd } : {}),
        ...(spec.budget.max_candidate_cost_usd !== undefined ? { maxCandidateCostUsd: spec.budget.max_candidate_cost_usd } : {}),
        ...(spec.budget.warn_at_usd !== undefined ? { warnAtUsd: spec.budget.warn_at_usd } : {}),
      },
    });
  }
  for (const warning of plan.warnings) ctx.emit({ type: 'run.warning', message: warning });
  await identity;
}

/** Every candidate of a new run; on resume, those that had not finished. */
export function candidatesToRun(ctx: RunContext): RunContext['plan']['candidates'] {
  const { plan, resume } = ctx;
  if (!resume) return plan.candidates;
  return plan.candidates.filter((c) => !FINISHED_STATUSES.has(resume.candidates[c.id]?.status ?? ''));
}
