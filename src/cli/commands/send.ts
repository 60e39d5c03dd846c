import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState } from '../run-lookup.js';
import { UsageError } from '../usage-error.js';
import { writeToChannel } from '../../engine/channel.js';
import type { RunState } from '../../engine/run-state.js';

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
  const { positionals } = parseCommandArgs('send', args, {});
  if (positionals.length < 2 || positionals.length > 3) throw new UsageError('send: usage: bestof send <run> [candidate] "text"');
  const [runQuery, ...rest] = positionals as [string, ...string[]];
  const text = rest.at(-1) as string;
  const run = await findRun(await currentRepoRoot(), runQuery);
  const state = await loadRunState(run.runDir);
  const targets = addressed(state, rest.length === 2 ? rest[0] : undefined);
  for (const id of targets) writeToChannel(run.runDir, id, { kind: 'message', text });
  process.stdout.write(
    targets.length > 0 ? `sent to ${targets.join(', ')}; it goes into the next prompt of each\n` : `no candidate of ${run.runId} is still running; nothing sent\n`,
  );
  return EXIT_CODES.ok;
}

/** `bestof stop <run> [candidate]`: stop at the next iteration boundary; the work so far is kept. */
export async function stopCommand(args: readonly string[]): Promise<number> {
  const { positionals } = parseCommandArgs('stop', args, {});
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('stop: usage: bestof stop <run> [candidate]');
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  const state = await loadRunState(run.runDir);
  const targets = addressed(state, positionals[1]);
  for (const id of targets) writeToChannel(run.runDir, id, { kind: 'stop', text: 'stop' });
  process.stdout.write(
    targets.length > 0
      ? `asked ${targets.join(', ')} to stop at the next iteration boundary; their work so far is kept\n`
      : `no candidate of ${run.runId} is still running; nothing to stop\n`,
  );
  return EXIT_CODES.ok;
}
