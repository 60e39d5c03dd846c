/**
 * Final scoring: once every loop has ended, each candidate's last commit is scored by the
 * same, complete set of frozen checks, so that a check which counts only from a later
 * iteration (a curriculum, `from_iteration`) counts for everyone. A candidate whose last
 * iteration already ran every check keeps its score; a cancelled one is not scored again.
 *
 * It reads what it needs from the run's state (and the setup paths from the run folder), so a
 * resumed run scores a candidate that had finished before the interruption just the same.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { candidateDir, iterationDir } from '../run-folder.js';
import { checkEnv } from '../candidate-env.js';
import type { RunContext } from '../run-context.js';
import { scoreCommit } from '../score.js';

export async function finalScoring(ctx: RunContext): Promise<void> {
  const { plan, signal } = ctx;
  const checks = plan.spec.checks.items;
  const toScore = plan.candidates.flatMap((candidate) => {
    const c = ctx.state().candidates[candidate.id];
    if (!c || !c.commit || c.finalScored || c.status === 'cancelled' || c.reason === 'internal_error') return [];
    if (!checks.some((check) => check.from_iteration > c.iteration)) return [];
    return [{ candidate, commit: c.commit, iteration: c.iteration }];
  });

  await Promise.all(
    toScore.map(({ candidate, commit, iteration }) =>
      ctx.queue.add(async () => {
        if (signal.aborted) return;
        const scoring = await scoreCommit({
          worktree: candidate.worktree,
          baseCommit: plan.baseCommit,
          commit,
          frozen: plan.spec.checks.frozen,
          checks,
          keepPaths: ctx.ends.get(candidate.id)?.setupPaths ?? readSetupPaths(plan.runDir, candidate.id),
          env: checkEnv(plan, candidate),
          logDir: join(iterationDir(plan.runDir, candidate.id, iteration), 'final-checks'),
          signal,
          onCheck: (check) => ctx.emit({ type: 'check.finished', candidate: candidate.id, iteration, check }),
        });
        if (scoring.interrupted) return;
        ctx.emit({
          type: 'candidate.scored',
          candidate: candidate.id,
          iteration,
          // Review points are not part of the final score: the review judged an earlier state of the loop.
          score: scoring.score,
          maxScore: plan.maxScore,
          failedChecks: scoring.checks.filter((check) => !check.passed).map((check) => check.name),
          final: true,
        });
      }),
    ),
  );
}

/** Untracked files that setup created (setup-paths.json): they must survive the clean-up after the checks. */
function readSetupPaths(runDir: string, candidate: string): string[] {
  const file = join(candidateDir(runDir, candidate), 'setup-paths.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
}
