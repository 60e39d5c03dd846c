/**
 * `bestof clean [run] [--dry-run] [--all] [--runs --older-than 30d]`: removes the worktrees and
 * branches that finished runs left behind (kept with `keep_worktrees`, or left by a run that was
 * killed), the per-run folders left empty under the worktrees root, and the folders of runs stopped
 * before their first event (they recorded nothing). With `--runs`, also the
 * run folders and refs of old runs that hold nothing unmerged (src/engine/cleanup/old-runs.ts says the rule).
 *
 * It never loses work: changes left uncommitted in a worktree are committed and kept under
 * refs/bestof/<run>/<candidate>/kept before the worktree goes, and a branch is deleted only
 * when its commit is kept under refs/bestof (the kept ref, or bestof's revert commit at
 * refs/bestof/<run>/<candidate>/reverted) or merged into another branch. The winner's branch
 * stays unless it is merged or `--all` is given (its commit stays under refs/bestof).
 *
 * A killed run leaves worse than worktrees: processes (stopped first, found by the run's key),
 * git locks (cleared, the run being dead), worktrees whose `.git` link its agent destroyed
 * (repaired, then saved), half-made worktrees whose setup never completed (no agent ever worked
 * there: removed). A worktree whose work cannot be committed is kept, with where and why, and
 * clean exits 1; so is one whose submodules hold its agent's edits or commits (bestof commits
 * nothing inside submodules).
 *
 * The work itself is the engine's (src/engine/cleanup/); this command reads the arguments and the
 * runs' records, prints what the engine says, and chooses the exit code.
 */
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState, NewerRecordError, orNewerRecord } from '../run-lookup.js';
import { listRunFolders, type RunListing } from '../../engine/record/run-folder.js';
import { runIsAlive } from '../../engine/record/run-lock.js';
import type { RunState } from '../../engine/record/run-state.js';
import { cleanRepo } from '../../engine/cleanup/clean.js';
import { parseAge } from '../older-than-option.js';
import { UsageError } from '../usage-error.js';
import { printable } from '../../printable.js';

export async function cleanCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('clean', args);
  const dryRun = values['dry-run'] === true;
  if (values['older-than'] !== undefined && !values.runs)
    throw new UsageError('clean: --older-than goes with --runs: `bestof clean --runs --older-than 30d` (see `bestof clean --help`)');
  if (values.runs && values['older-than'] === undefined)
    throw new UsageError('clean: --runs needs --older-than, e.g. `bestof clean --runs --older-than 30d` (see `bestof clean --help`)');
  const olderThanMs = values['older-than'] === undefined ? undefined : parseAge(values['older-than']);
  const repoRoot = await currentRepoRoot();
  const listed: RunListing[] = positionals[0] ? [await findRun(repoRoot, positionals[0])] : await listRunFolders(repoRoot);
  const { runs, states } = await runsToClean(listed, positionals[0] !== undefined);
  const cleaned = await cleanRepo({
    repoRoot,
    runs,
    states,
    loadState: loadRunState,
    dryRun,
    all: values.all === true,
    unrecordedFolders: !positionals[0],
    ...(olderThanMs !== undefined ? { olderThanMs } : {}),
    // Printable (src/printable.ts): a line can name what an agent made (a link's target, a submodule's path).
    say: (line) => process.stdout.write(`${dryRun ? 'would ' : ''}${printable(line)}\n`),
    note: (line) => process.stdout.write(`${line}\n`),
    problem: (line) => process.stderr.write(`${line}\n`),
  });
  if (cleaned.kind === 'ran-inside') return cleaned.exitCode;
  const { actions, keptWithWork, oldRuns } = cleaned;
  if (oldRuns && oldRuns.removed === 0 && oldRuns.kept === 0) process.stdout.write(`no run started more than ${values['older-than']} ago\n`);
  if (actions === 0) process.stdout.write('nothing to clean\n');
  else if (!dryRun) process.stdout.write(`done; every candidate's commits stay under refs/bestof/ (\`git for-each-ref refs/bestof\`)\n`);
  if (keptWithWork > 0) {
    const kept = dryRun ? `${keptWithWork === 1 ? '' : 's'} would be` : keptWithWork === 1 ? ' was' : 's were';
    const then = dryRun ? 'before you run `bestof clean`' : 'and run `bestof clean` again';
    process.stderr.write(`${keptWithWork} worktree${kept} kept with work that could not be saved (see above); fix what is said there ${then}\n`);
    return EXIT_CODES.cleanKeptWork;
  }
  return EXIT_CODES.ok;
}

/**
 * The runs to clean, with the record of each that is not running (a running one is skipped later,
 * with a word). A run a newer bestof recorded is left alone, whole: this one cannot tell what of it
 * is safe to remove; named on the command line (`named`), it is an error.
 */
async function runsToClean(listed: readonly RunListing[], named: boolean): Promise<{ runs: RunListing[]; states: Map<string, RunState> }> {
  const states = new Map<string, RunState>();
  const runs: RunListing[] = [];
  for (const run of listed) {
    if (!runIsAlive(run.runDir)) {
      const state = await orNewerRecord(loadRunState(run.runDir));
      if (state instanceof NewerRecordError) {
        if (named) throw state;
        process.stdout.write(`skip ${run.runId}: recorded by a newer bestof (record format ${state.format}); clean it with that bestof\n`);
        continue;
      }
      states.set(run.runId, state);
    }
    runs.push(run);
  }
  return { runs, states };
}
