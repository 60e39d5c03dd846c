/**
 * Finish: worktrees removed (unless `[git] keep_worktrees`; every candidate's work is
 * committed and kept under refs/bestof/<run>/ by now, so this loses nothing), then the one
 * run.finished event with the run's status, exit code and closing line, then the liveness
 * mark removed. The listeners write state.json and the reports when they see run.finished.
 */
import { pruneWorktrees, removeWorktree } from '../../git/worktree.js';
import type { RunStatus } from '../events.js';
import { EXIT_CODES } from '../exit-codes.js';
import type { RunContext } from '../run-context.js';
import { markRunFinished } from '../run-lock.js';
import { removeAgentHomes } from '../agent-sandbox.js';

export async function finish(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  if (!plan.spec.git.keep_worktrees) await removeWorktrees(ctx);
  await removeAgentHomes(plan); // the agents' HOMEs hold copies of logins: never kept
  const { status, exitCode, message } = closing(ctx);
  ctx.emit({ type: 'run.finished', status, exitCode, winner: ctx.state().winner, durationMs: Math.round(performance.now() - ctx.startedAt), message });
  markRunFinished(plan.runDir);
}

/** The run's status, exit code and closing line, from what the phases before did. */
function closing(ctx: RunContext): { status: RunStatus; exitCode: number; message: string } {
  const { runId } = ctx.plan;
  const state = ctx.state();
  const merged = state.merge;
  if (merged) {
    const label = state.candidates[merged.candidate]?.label ?? '';
    return merged.ok
      ? { status: 'winner', exitCode: EXIT_CODES.winner, message: `${merged.candidate} (${label}) won; ${merged.message}` }
      : { status: 'winner', exitCode: EXIT_CODES.mergeFailed, message: `${merged.candidate} (${label}) won, but the merge did not happen: ${merged.message}` };
  }
  if (ctx.signal.aborted) {
    return {
      status: 'cancelled',
      exitCode: EXIT_CODES.cancelled,
      message: `run cancelled; every candidate's work is kept under refs/bestof/${runId}/; continue it with \`bestof resume ${runId}\`, or see \`bestof show ${runId}\``,
    };
  }
  return {
    status: 'no_winner',
    exitCode: EXIT_CODES.noWinner,
    message: `no candidate passed; every candidate's work is kept under refs/bestof/${runId}/; \`bestof show ${runId}\` says why each one failed`,
  };
}

async function removeWorktrees(ctx: RunContext): Promise<void> {
  const { plan } = ctx;
  for (const candidate of plan.candidates) {
    const removed = await removeWorktree(plan.repoRoot, candidate.worktree, { force: true });
    if (!removed.ok) {
      ctx.emit({ type: 'run.warning', candidate: candidate.id, message: `${removed.error}; \`bestof clean\` will retry` });
    }
  }
  await pruneWorktrees(plan.repoRoot);
}
