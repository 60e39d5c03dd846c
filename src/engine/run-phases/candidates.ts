/**
 * Candidates: every candidate's loop (src/engine/candidate.ts), concurrently under
 * `[parallel] max_concurrency`. A candidate that throws (a bug, an unexpected git failure)
 * ends as failed with internal_error; the others go on.
 */
import { refCommit } from '../../git/refs.js';
import { createProvider } from '../../providers/registry.js';
import type { Provider } from '../../providers/types.js';
import { runCandidate } from '../candidate.js';
import type { UnstampedEvent } from '../events.js';
import type { CandidatePlan } from '../plan.js';
import type { RunContext } from '../run-context.js';
import type { RunState } from '../run-state.js';
import { candidatesToRun } from './prepare.js';

export async function runCandidates(ctx: RunContext): Promise<void> {
  const { plan, signal } = ctx;
  const { spec } = plan;
  const providerFor = (candidate: CandidatePlan): Provider => createProvider(candidate.settings, candidate.agent, spec.providers[candidate.settings.kind]);
  const review = plan.review;
  const createReviewer = review ? (): Provider => createProvider(review.settings, review.agent, spec.providers[review.settings.kind]) : undefined;

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
              ...(past
                ? { resume: { iterations: past.iterations, head: keptHead, channelConsumed: past.messages.length, elapsedMs: past.durationMs } }
                : {}),
            },
            candidate,
          );
          ctx.ends.set(candidate.id, end);
        } catch (error) {
          ctx.emit(internalFailure(ctx.state(), candidate.id, error));
        }
      }),
    ),
  );
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
