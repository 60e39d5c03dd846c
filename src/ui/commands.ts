/** What the front end may ask of the run, and of git, without importing either. */
import type { ChooseWinnerResult, RunCommands } from '../engine/run/control.js';
import type { RunEvent } from '../engine/record/events.js';
import type { MergeMode } from '../spec/schema.js';
import type { Capabilities } from './state/keys.js';

export interface WinnerChoiceResult extends ChooseWinnerResult {
  /**
   * The event that recorded the choice in the run's log (winner.chosen). The UI folds it like
   * any event, so that the title, the table and the outcome line name the winner the user chose.
   */
  readonly recorded?: RunEvent;
}

/**
 * The run's commands the CLI could provide. A missing one hides its key (and pressing the
 * key says it is not available) instead of pretending: `bestof show` has no run to cancel,
 * and an engine without per-candidate stop leaves out `stopCandidate`.
 */
export type UiCommands = Partial<Omit<RunCommands, 'chooseWinner'>> & {
  chooseWinner?(candidateId: string, mode: MergeMode): Promise<WinnerChoiceResult>;
};

/** The text of `git diff <from> <to>` in `repo`; the CLI passes src/git's diffText. */
export type DiffLoader = (request: { readonly repo: string; readonly from: string; readonly to: string }) => Promise<string>;

export function capabilitiesOf(commands: UiCommands): Capabilities {
  return { stop: commands.stopCandidate !== undefined, message: commands.sendMessage !== undefined, chooseWinner: commands.chooseWinner !== undefined };
}
