/**
 * `bestof attach <run> [candidate] [--write]`: watch a `shannon` candidate's Claude Code in its
 * tmux session (read-only, `tmux attach -r`), or take it over with `--write`. The session is
 * found through the record the provider writes (`<run>/candidates/<id>/shannon.json`: the run's
 * own tmux socket and the session's name). Detach with the tmux prefix and `d` (Ctrl-b d).
 */
import { join } from 'node:path';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { candidateDir } from '../../engine/record/run-folder.js';
import { runOnTerminal } from '../../process/interactive.js';
import { attachArgs, probeTmux, sessionAlive } from '../../process/tmux.js';
import { readSessionRecord, type SessionRecord } from '../../providers/shannon/paths.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunSummary } from '../run-lookup.js';
import { UsageError } from '../usage-error.js';

export async function attachCommand(args: readonly string[]): Promise<number> {
  const { positionals, values } = parseCommandArgs('attach', args);
  if (positionals.length < 1 || positionals.length > 2) throw new UsageError('attach: usage: bestof attach <run> [candidate] [--write]');
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  const state = await loadRunSummary(run.runDir);
  const records = new Map<string, SessionRecord>();
  for (const id of state.order) {
    const record = await readSessionRecord(candidateDir(run.runDir, id));
    if (record) records.set(id, record);
  }
  let candidate = positionals[1];
  if (candidate === undefined) {
    if (records.size !== 1) {
      throw new UsageError(
        records.size === 0
          ? `run ${run.runId} has no shannon candidate with a session (only kind = "shannon" runs in tmux)`
          : `run ${run.runId} has several shannon candidates (${[...records.keys()].join(', ')}): say which, e.g. \`bestof attach ${run.runId} ${[...records.keys()][0]}\``,
      );
    }
    candidate = [...records.keys()][0] as string;
  }
  if (!state.candidates[candidate]) throw new UsageError(`run ${run.runId} has no candidate "${candidate}" (it has ${state.order.join(', ')})`);
  const record = records.get(candidate);
  if (!record)
    throw new UsageError(
      `${candidate} of run ${run.runId} has no tmux session: only kind = "shannon" candidates run in tmux, once their first iteration started`,
    );

  const tmux = await probeTmux();
  if (!tmux.ok) throw new UsageError(`attach needs tmux: ${tmux.error}`);
  const session = { socket: record.socket, name: record.session };
  if (!(await sessionAlive(session))) {
    throw new UsageError(
      `the tmux session of ${candidate} (run ${run.runId}) is gone: its Claude Code session ended with the candidate or the run; \`bestof show ${run.runId}\` has the record, and the session's transcript is in ${join(candidateDir(run.runDir, candidate), 'shannon-config', 'projects')}`,
    );
  }
  const argv = attachArgs(session, { readOnly: !values.write });
  argv[0] = tmux.value.binary;
  process.stderr.write(
    `${values.write ? 'taking over' : 'watching (read-only)'} ${candidate} of ${run.runId}; detach with Ctrl-b d${values.write ? '' : ' (--write to type)'}\n`,
  );
  // Inside a tmux of its own, tmux refuses to attach ("sessions should be nested with care"): this is another server.
  const env = { ...process.env };
  delete env.TMUX;
  const code = await runOnTerminal(argv[0] as string, argv.slice(1), env);
  return code === 0 ? EXIT_CODES.ok : code;
}
