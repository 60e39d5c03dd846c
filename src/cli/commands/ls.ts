import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, loadRunSummary, NewerRecordError, orNewerRecord } from '../run-lookup.js';
import { listAllRunFolders } from '../../engine/record/run-folder.js';
import { runIsAlive } from '../../engine/record/run-lock.js';
import { runListLine } from '../../report/run-list-line.js';
import { outputClosed } from '../output.js';

/** `bestof ls`: the runs of this repo, newest first. */
export async function lsCommand(args: readonly string[]): Promise<number> {
  parseCommandArgs('ls', args);
  const repoRoot = await currentRepoRoot();
  const { recorded: runs, unrecorded } = await listAllRunFolders(repoRoot);
  if (runs.length === 0 && unrecorded.length === 0) {
    process.stdout.write('no runs yet (start one with `bestof run`)\n');
    return EXIT_CODES.ok;
  }
  for (const run of runs) {
    // `bestof ls | head -1`: once the reader has gone, the rest of the listing is not worth reading.
    if (outputClosed('stdout')) break;
    const state = await orNewerRecord(loadRunSummary(run.runDir));
    if (state instanceof NewerRecordError) process.stdout.write(`${run.runId}  recorded by a newer bestof (record format ${state.format})\n`);
    else process.stdout.write(`${runListLine(run.runId, state, { alive: runIsAlive(run.runDir) })}\n`);
  }
  // Last: folders of runs stopped before their first event (or starting this instant).
  for (const run of unrecorded) {
    if (outputClosed('stdout')) break;
    const what = runIsAlive(run.runDir)
      ? 'starting'
      : 'recorded nothing: stopped before its first event (`bestof clean` deletes its folder once it is a minute old)';
    process.stdout.write(`${run.runId}  ${what}\n`);
  }
  return EXIT_CODES.ok;
}
