import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, loadRunSummary, NewerRecordError, orNewerRecord } from '../run-lookup.js';
import { listRunFolders } from '../../engine/run-folder.js';
import { runIsAlive } from '../../engine/run-lock.js';
import { runListLine } from '../../report/run-list-line.js';
import { outputClosed } from '../output.js';

/** `bestof ls`: the runs of this repo, newest first. */
export async function lsCommand(args: readonly string[]): Promise<number> {
  parseCommandArgs('ls', args);
  const runs = await listRunFolders(await currentRepoRoot());
  if (runs.length === 0) {
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
  return EXIT_CODES.ok;
}
