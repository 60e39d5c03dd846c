/**
 * A winner the user chose in the compare view after the run (`winner.chosen`): how the run's
 * state folds it (./run-state.ts calls chooseWinner) and how the reports say who chose.
 */
import { EXIT_CODES } from '../exit-codes.js';
import type { EventOf, RunState, WinnerChoice } from './run-types.js';

/**
 * The user's choice in the compare view. A merge that was done makes the candidate the run's
 * winner, with its merge, and the run's outcome a winner; one that failed changed nothing in
 * the repo, so the run keeps its winner and merge, and only the attempt is recorded.
 */
export function chooseWinner(state: RunState, event: EventOf<'winner.chosen'>): RunState {
  const chosen: WinnerChoice = {
    candidate: event.candidate,
    ...(event.previous !== undefined ? { previous: event.previous } : {}),
    mode: event.mode,
    ok: event.ok,
    message: event.message,
    by: event.by,
    at: event.t,
  };
  if (!event.ok) return { ...state, chosen };
  const label = state.candidates[event.candidate]?.label;
  return {
    ...state,
    chosen,
    winner: event.candidate,
    merge: { candidate: event.candidate, mode: event.mode, ok: true, commit: event.commit, branch: event.branch, message: event.message },
    status: 'winner',
    exitCode: EXIT_CODES.winner,
    message: `${event.candidate}${label ? ` (${label})` : ''} ${chosenByUser(chosen)}; ${event.message}`,
  };
}

/** "chosen by you in the compare view, instead of c1": how the reports say who chose the winner. */
export function chosenByUser(chosen: WinnerChoice): string {
  const instead = chosen.previous === undefined ? ' (the run had no winner)' : chosen.previous === chosen.candidate ? '' : `, instead of ${chosen.previous}`;
  return `chosen by you in the compare view${instead}`;
}
