/**
 * One line of `bestof ls` per run, from its state: id, name, outcome, candidates, duration and
 * winner. A run whose state still says "running" is either running (its bestof process is
 * alive, src/engine/record/run-lock.ts) or was interrupted (killed, or the machine went down); the
 * caller tells which. Either way its duration is the time from its start to its last event
 * (run-state.ts), not the 0 of a run.finished that never came.
 */
import { chosenByUser, type RunState } from '../engine/record/run-state.js';
import { formatDuration } from '../spec/duration.js';

export interface RunListLineOptions {
  /** The run's bestof process is alive (runIsAlive): a run in progress, not an interrupted one. */
  readonly alive: boolean;
}

/** What became of the run, in one word: its status, or "running" / "interrupted" before run.finished. */
export function listedStatus(state: RunState, options: RunListLineOptions): string {
  if (state.status !== 'running') return state.status;
  return options.alive ? 'running' : 'interrupted';
}

export function runListLine(runId: string, state: RunState, options: RunListLineOptions): string {
  const status = listedStatus(state, options);
  const count = `${String(state.order.length).padStart(2)} candidate${state.order.length === 1 ? ' ' : 's'}`;
  const label = state.winner ? (state.candidates[state.winner]?.label ?? '') : '';
  const chosen = state.chosen?.ok && state.chosen.candidate === state.winner ? `, ${chosenByUser(state.chosen)}` : '';
  const winner = state.winner ? `winner ${state.winner} (${label})${chosen}` : '';
  const since = status === 'interrupted' ? `(to its last event; \`bestof resume ${runId}\` goes on with it)` : status === 'running' ? '(so far)' : '';
  const tail = [winner, since].filter((part) => part !== '').join('  ');
  return `${runId}  ${state.name.padEnd(16)} ${status.padEnd(11)} ${count}  ${formatDuration(state.durationMs).padStart(7)}  ${tail}`.trimEnd();
}
