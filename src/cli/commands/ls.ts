import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, loadRunState } from '../run-lookup.js';
import { listRunFolders } from '../../engine/run-folder.js';
import { formatDuration } from '../../spec/duration.js';

/** `bestof ls`: the runs of this repo, newest first. */
export async function lsCommand(args: readonly string[]): Promise<number> {
  parseCommandArgs('ls', args, {});
  const runs = await listRunFolders(await currentRepoRoot());
  if (runs.length === 0) {
    process.stdout.write('no runs yet (start one with `bestof run`)\n');
    return EXIT_CODES.ok;
  }
  for (const run of runs) {
    const state = await loadRunState(run.runDir);
    const status = state.status === 'running' ? 'running or interrupted' : state.status;
    const winner = state.winner ? `winner ${state.winner} (${state.candidates[state.winner]?.label ?? ''})` : '';
    process.stdout.write(
      `${run.runId}  ${state.name.padEnd(16)} ${status.padEnd(10)} ${String(state.order.length).padStart(2)} candidates  ${formatDuration(state.durationMs).padStart(7)}  ${winner}\n`,
    );
  }
  return EXIT_CODES.ok;
}
