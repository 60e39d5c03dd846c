/**
 * `bestof clean [run] [--dry-run] [--all]`: removes the worktrees and branches that finished
 * runs left behind (kept with `keep_worktrees`, or left by a run that was killed).
 *
 * It never loses work: changes left uncommitted in a worktree are committed and kept under
 * refs/bestof/<run>/<candidate>/kept before the worktree goes, and a branch is deleted only
 * when its commit is kept under refs/bestof (the kept ref, or bestof's revert commit at
 * refs/bestof/<run>/<candidate>/reverted) or merged into another branch. The winner's branch
 * stays unless it is merged or `--all` is given (its commit stays under refs/bestof).
 */
import { existsSync, readFileSync } from 'node:fs';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { join } from 'node:path';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState } from '../run-lookup.js';
import { commitAll } from '../../git/commit.js';
import { branchesContaining, deleteBranch, isAncestor, updateRef } from '../../git/refs.js';
import { hasUncommittedChanges, resolveCommit } from '../../git/repo.js';
import { listWorktrees, pruneWorktrees, removeWorktree } from '../../git/worktree.js';
import { candidateDir, listRunFolders, type RunListing } from '../../engine/run-folder.js';
import { runIsAlive } from '../../engine/run-lock.js';
import { revertedRef } from '../../engine/merge-policy.js';

export async function cleanCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('clean', args, {
    'dry-run': { type: 'boolean' },
    all: { type: 'boolean' },
  });
  const dryRun = values['dry-run'] === true;
  const repoRoot = await currentRepoRoot();
  const runs: RunListing[] = positionals[0] ? [await findRun(repoRoot, positionals[0])] : await listRunFolders(repoRoot);
  const say = (line: string): void => {
    process.stdout.write(`${dryRun ? 'would ' : ''}${line}\n`);
  };
  const worktrees = await listWorktrees(repoRoot);
  let actions = 0;
  for (const run of runs) {
    if (runIsAlive(run.runDir)) {
      process.stdout.write(`skip ${run.runId}: it is still running (stop it first)\n`);
      continue;
    }
    const state = await loadRunState(run.runDir);
    for (const id of state.order) {
      const candidate = state.candidates[id];
      if (!candidate) continue;
      const worktree = worktrees.find((w) => w.path === candidate.worktree || w.branch === candidate.branch);
      if (worktree) {
        actions += 1;
        if (await hasUncommittedChanges(worktree.path)) {
          say(`commit ${id}'s uncommitted changes and keep them at ${candidate.ref}`);
          if (!dryRun) {
            const committed = await commitAll(worktree.path, { message: `bestof: ${id} work left in the worktree (saved by bestof clean)`, excludePaths: setupPaths(run.runDir, id) });
            if (committed.commit) await updateRef(repoRoot, candidate.ref, committed.commit);
          }
        } else if (!dryRun && worktree.head) {
          // Keep the worktree's last commit even if the run died before recording it.
          const kept = await resolveCommit(repoRoot, candidate.ref);
          if (!kept || !(await isAncestor(repoRoot, worktree.head, kept))) await updateRef(repoRoot, candidate.ref, worktree.head);
        }
        say(`remove worktree ${worktree.path}`);
        if (!dryRun) {
          const removed = await removeWorktree(repoRoot, worktree.path, { force: true });
          if (!removed.ok) process.stderr.write(`${removed.error}\n`);
        }
      }
      const tip = await resolveCommit(repoRoot, `refs/heads/${candidate.branch}`);
      if (!tip) continue;
      const keptAt = await resolveCommit(repoRoot, candidate.ref);
      const revertedAt = await resolveCommit(repoRoot, revertedRef(candidate.ref));
      const kept = (keptAt !== undefined && (await isAncestor(repoRoot, tip, keptAt))) || (revertedAt !== undefined && (await isAncestor(repoRoot, tip, revertedAt)));
      const merged = await onAnotherBranch(repoRoot, tip, candidate.branch);
      if (id === state.winner && !merged && !values.all) {
        process.stdout.write(`keep ${candidate.branch}: the winner of ${run.runId}, not merged yet (merge it, or clean with --all)\n`);
        continue;
      }
      if (!kept && !merged) {
        if (dryRun) {
          say(`keep ${id}'s last commit at ${candidate.ref}`);
        } else if (!keptAt) {
          await updateRef(repoRoot, candidate.ref, tip);
        } else {
          process.stdout.write(`keep ${candidate.branch}: its commit ${tip.slice(0, 10)} is not under ${candidate.ref} nor merged\n`);
          continue;
        }
      }
      actions += 1;
      say(`delete branch ${candidate.branch}${merged ? ' (merged)' : ` (kept at ${candidate.ref})`}`);
      if (!dryRun) {
        const deleted = await deleteBranch(repoRoot, candidate.branch, { force: true });
        if (!deleted.ok) process.stderr.write(`${deleted.error}\n`);
      }
    }
  }
  if (!dryRun) await pruneWorktrees(repoRoot);
  if (actions === 0) process.stdout.write('nothing to clean\n');
  else if (!dryRun) process.stdout.write(`done; every candidate's commits stay under refs/bestof/ (\`git for-each-ref refs/bestof\`)\n`);
  return EXIT_CODES.ok;
}

function setupPaths(runDir: string, candidate: string): string[] {
  const file = join(candidateDir(runDir, candidate), 'setup-paths.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as string[]) : [];
}

/** Is the commit on a local branch other than `branch` itself? */
async function onAnotherBranch(repoRoot: string, sha: string, branch: string): Promise<boolean> {
  return (await branchesContaining(repoRoot, sha)).some((name) => name !== branch);
}
