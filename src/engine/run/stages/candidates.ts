/**
 * Candidates: every candidate's loop (src/engine/loop/candidate.ts), concurrently under
 * `[parallel] max_concurrency`. A candidate that throws (a bug, an unexpected git failure)
 * ends as failed with internal_error; the others go on.
 */
import { refCommit } from '../../../git/history/refs.js';
import { isGitKilledBySignal, killedGitInWords } from '../../../git/running/failures.js';
import { WorktreeReplacedError } from '../../../git/guards/guard.js';
import { createProvider } from '../../../providers/definitions.js';
import type { Provider } from '../../../providers/types.js';
import { runCandidate, type CandidateContext } from '../../loop/candidate.js';
import { prepareCowBase, remountCowWorktree, type OverlayMounts } from '../../../git/worktrees/cow-worktree.js';
import { cowBaseDir, cowLayerDir, isCowWorktree } from '../../workspace/cow-layout.js';
import { isDiskFull } from '../../../process/disk-full.js';
import type { UnstampedEvent } from '../../record/events.js';
import type { CandidatePlan } from '../../plan/plan.js';
import type { RunContext } from '../run-context.js';
import type { RunState } from '../../record/run-state.js';
import { candidatesToRun } from './prepare.js';
import { reportChecks } from '../../scoring/base-reference.js';
import { createOthersStop, stopOthersOnThreshold } from './threshold-stop.js';

export async function runCandidates(ctx: RunContext): Promise<void> {
  const { plan, signal } = ctx;
  const { spec } = plan;
  const providerFor = (candidate: CandidatePlan): Provider => createProvider(candidate.settings, candidate.agent, spec.providers[candidate.settings.kind]);
  const review = plan.review;
  const createReviewer = review ? (): Provider => createProvider(review.settings, review.agent, spec.providers[review.settings.kind]) : undefined;

  // Base's run of the report checks starts now, beside the candidates' setup and agents; their
  // first scoring waits for it (../../scoring/base-reference.ts).
  const baseTests = reportChecks(plan).length > 0 ? ctx.baseTests : undefined;
  void baseTests?.();
  const cow = await prepareSharedBase(ctx);
  // `[select] stop_others`: shared by every loop below, read at their iteration boundaries.
  const othersStop = createOthersStop(ctx);

  // No `signal` for queue.add on purpose: p-queue would reject at once on abort while the
  // task is still committing the candidate's work. A task that starts after a cancel returns.
  await Promise.all(
    candidatesToRun(ctx).map((candidate) =>
      ctx.queue.add(async () => {
        if (signal.aborted) {
          ctx.emit(neverStarted(candidate.id));
          return;
        }
        try {
          const past = ctx.resume?.candidates[candidate.id];
          // The kept ref, not the event log, says where the candidate's work is: git is the truth
          // (a kill -9 can fall between moving the ref and appending the event). A commit made but not
          // yet kept is on the candidate's branch, which the loop builds on.
          const keptHead = past ? ((await refCommit(plan.repoRoot, candidate.ref)) ?? past.commit) : undefined;
          const end = await runCandidate(
            {
              plan,
              signal,
              emit: ctx.emit,
              limitProvider: ctx.limitProvider,
              createProvider: providerFor,
              ...(createReviewer ? { createReviewer } : {}),
              budget: ctx.budget,
              secrets: ctx.secrets,
              ...(ctx.runDeadline !== undefined ? { runDeadline: ctx.runDeadline } : {}),
              ...(cow ? { cow } : {}),
              ...(baseTests ? { baseTests } : {}),
              ...(othersStop ? { othersStop } : {}),
              ...(past ? { resume: { iterations: past.iterations, head: keptHead, channelConsumed: past.messages.length, elapsedMs: past.durationMs } } : {}),
            },
            candidate,
          );
          ctx.ends.record(candidate.id, end);
          if (othersStop) await stopOthersOnThreshold(ctx, othersStop, candidate);
        } catch (error) {
          if (isDiskFull(error)) {
            ctx.stopRun(`the disk is full (${(error as Error).message})`);
            ctx.emit(stoppedByFullDisk(ctx.state(), candidate.id, error));
          } else if (error instanceof WorktreeReplacedError) {
            ctx.emit(endedByError(ctx.state(), candidate.id, 'failed', 'worktree_replaced', error.message));
          } else if (signal.aborted && isGitKilledBySignal(error)) {
            ctx.emit(cancelledUnderway(ctx.state(), candidate.id, error));
          } else ctx.emit(internalFailure(ctx.state(), candidate.id, error));
        }
      }),
    ),
  );
}

/**
 * Copy-on-write worktrees: the one checkout of the base commit every candidate's layer lies on,
 * made before any of them starts (kept as it is on resume). When it cannot be made, the run says
 * so and goes on with plain worktrees.
 */
async function prepareSharedBase(ctx: RunContext): Promise<CandidateContext['cow']> {
  const { plan } = ctx;
  const first = plan.candidates[0];
  if (!plan.cow || !first) return undefined;
  const lower = cowBaseDir(first.worktree);
  for (const candidate of candidatesToRun(ctx)) {
    ctx.emit({
      type: 'candidate.setup_progress',
      candidate: candidate.id,
      step: 'checkout',
      text: `checking out ${plan.baseCommit.slice(0, 12)} once for every candidate (copy-on-write worktrees)`,
    });
  }
  let made: Awaited<ReturnType<typeof prepareCowBase>>;
  try {
    made = await prepareCowBase(plan.repoRoot, lower, plan.baseCommit, { signal: ctx.signal });
  } catch (error) {
    // Cancelled while the base was checked out: no candidate starts (each sees the cancel), and
    // finish removes what was made of the base. Anything else is a failure of git's or bestof's.
    if (ctx.signal.aborted) return undefined;
    throw error;
  }
  if (!made.ok) {
    ctx.emit({ type: 'run.warning', message: `copy-on-write worktrees: ${made.error}; the candidates get plain worktrees (one checkout each)` });
    return undefined;
  }
  await remountFinished(ctx, lower, plan.cow.mounts);
  return { lower, mounts: plan.cow.mounts };
}

/**
 * A resumed run: the candidates that had finished are not set up again, but the final scoring may
 * score them again in their worktrees, and the finish saves what they hold: their layers are
 * mounted again too (unmounted, the folder holds only its `.git` file, and git would see every
 * file deleted).
 */
async function remountFinished(ctx: RunContext, lower: string, mounts: OverlayMounts): Promise<void> {
  if (!ctx.resume) return;
  const running = new Set(candidatesToRun(ctx).map((c) => c.id));
  for (const candidate of ctx.plan.candidates) {
    if (running.has(candidate.id) || !isCowWorktree(candidate.worktree)) continue;
    const layer = cowLayerDir(candidate.worktree);
    const mounted = await remountCowWorktree(ctx.plan.repoRoot, {
      path: candidate.worktree,
      branch: candidate.branch,
      lower,
      layer,
      holder: mounts,
      signal: ctx.signal,
    });
    if (!mounted.ok)
      ctx.emit({
        type: 'run.warning',
        candidate: candidate.id,
        message: `cannot mount its worktree again (${mounted.error}); its changes are in ${layer}/upper`,
      });
  }
}

/** A bug or an unexpected git failure: this candidate stops, the others go on. */
function internalFailure(state: RunState, candidate: string, error: unknown): UnstampedEvent {
  return endedByError(state, candidate, 'failed', 'internal_error', `internal error: ${(error as Error)?.message ?? String(error)}`);
}

/**
 * A full disk stopped this candidate (and the run): cancelled, not failed, so that `bestof resume`
 * goes on with it once there is room; its last commit is kept, and finish saves what the worktree
 * holds beyond it where git still can.
 */
function stoppedByFullDisk(state: RunState, candidate: string, error: unknown): UnstampedEvent {
  return endedByError(state, candidate, 'cancelled', 'cancelled', `stopped: the disk is full (${(error as Error)?.message ?? String(error)})`);
}

/**
 * The cancel's signal, sent to bestof's whole process group, also killed a git bestof was just
 * starting (src/git/running/failures.ts isGitKilledBySignal): the candidate was cancelled, as the others
 * were, and `bestof resume` goes on with it; finish saves what its worktree holds.
 */
function cancelledUnderway(state: RunState, candidate: string, error: Parameters<typeof killedGitInWords>[0]): UnstampedEvent {
  return endedByError(state, candidate, 'cancelled', 'cancelled', `cancelled (the cancel's signal reached ${killedGitInWords(error)})`);
}

/**
 * The candidate.finished of a loop that threw (or of a final scoring whose checks replaced its worktree folder): what the state knows of the candidate, as it stands,
 * and `what` happened, followed by where its work is (finish keeps a commit its kept ref lacks
 * beside it, at .../leftover).
 */
export function endedByError(
  state: RunState,
  candidate: string,
  status: 'failed' | 'cancelled',
  reason: 'internal_error' | 'cancelled' | 'worktree_replaced',
  what: string,
): UnstampedEvent {
  const c = state.candidates[candidate];
  return {
    type: 'candidate.finished',
    candidate,
    status,
    reason,
    message: `${what}; what it committed is kept under ${keptUnder(c?.ref)}`,
    iterations: c?.iteration ?? 0,
    score: c?.score ?? 0,
    commit: c?.commit,
    diff: c?.diff ?? { files: 0, insertions: 0, deletions: 0 },
    // 0 for a loop that threw; a candidate that had finished (final scoring) keeps its own.
    durationMs: c?.durationMs ?? 0,
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

/** `refs/bestof/<run>/<candidate>/`: where the kept ref, and the leftover ref finish adds, are. */
function keptUnder(keptRef: string | undefined): string {
  return keptRef ? `${keptRef.slice(0, keptRef.lastIndexOf('/'))}/` : 'refs/bestof/';
}
