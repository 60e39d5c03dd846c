import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState } from '../run-lookup.js';
import { UsageError } from '../usage-error.js';
import { writeToChannel } from '../../engine/loop/channel.js';
import { runIsAlive } from '../../engine/record/run-lock.js';
import type { RunState } from '../../engine/record/run-state.js';

/**
 * A finished run reads no channel again: a message or a stop written to it would be a record of
 * something that never happened. Refused, with nothing written (exit 2).
 */
function refuseFinished(state: RunState, nothing: string): void {
  if (state.status === 'running') return;
  const outcome = state.status === 'winner' && state.winner ? `winner ${state.winner}` : state.status.replace('_', ' ');
  throw new UsageError(
    `run ${state.runId} is over (${outcome}${state.finishedAt ? `, finished ${state.finishedAt}` : ''}); ${nothing} (start a new run with \`bestof run\`)`,
  );
}

/** What becomes of a message to a run whose bestof is not running: it waits for `bestof resume`. */
function interruptedNote(runId: string, runDir: string): string {
  return runIsAlive(runDir) ? '' : `; run ${runId} is interrupted (no bestof process runs it): it is read when you resume it with \`bestof resume ${runId}\``;
}

/** The candidates a `send` / `stop` addresses: one by id, or all that are still going. */
function addressed(state: RunState, candidate: string | undefined): string[] {
  if (candidate !== undefined) {
    if (!state.candidates[candidate]) throw new UsageError(`run ${state.runId} has no candidate "${candidate}" (it has ${state.order.join(', ')})`);
    return [candidate];
  }
  return state.order.filter((id) => !['done', 'failed', 'stopped', 'cancelled'].includes(state.candidates[id]?.status ?? ''));
}

/** `bestof send <run> [candidate] "text"`: a message that goes into the candidate's next prompt. */
export async function sendCommand(args: readonly string[]): Promise<number> {
  const { positionals } = parseCommandArgs('send', args);
  if (positionals.length < 2 || positionals.length > 3) throw new UsageError('send: usage: bestof send <run> [candidate] "text"');
  const [runQuery, ...rest] = positionals as [string, ...string[]];
  const text = rest.at(-1) as string;
  const run = await findRun(await currentRepoRoot(), runQuery);
  const state = await loadRunState(run.runDir);
  refuseFinished(state, "nothing was sent: a finished run's candidates read no more messages");
  const targets = addressed(state, rest.length === 2 ? rest[0] : undefined);
  for (const id of targets) writeToChannel(run.runDir, id, { kind: 'message', text });
  process.stdout.write(
    targets.length > 0
      ? `sent to ${targets.join(', ')}; it goes into the next prompt of each${interruptedNote(run.runId, run.runDir)}\n`
      : `no candidate of ${run.runId} is still running; nothing sent\n`,
  );
  return EXIT_CODES.ok;
}

/** `bestof stop <run> [candidate]`: stop at the next iteration boundary; the work so far is kept. */
export async function stopCommand(args: readonly string[]): Promise<number> {
  const { positionals } = parseCommandArgs('stop', args);
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('stop: usage: bestof stop <run> [candidate]');
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  const state = await loadRunState(run.runDir);
  refuseFinished(state, 'nothing was stopped: every candidate of it has already ended');
  const targets = addressed(state, positionals[1]);
  for (const id of targets) writeToChannel(run.runDir, id, { kind: 'stop', text: 'stop' });
  process.stdout.write(
    targets.length > 0
      ? `asked ${targets.join(', ')} to stop at the next iteration boundary; their work so far is kept${interruptedNote(run.runId, run.runDir)}\n`
      : `no candidate of ${run.runId} is still running; nothing to stop\n`,
  );
  return EXIT_CODES.ok;
}
