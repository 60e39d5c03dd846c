/**
 * The small command interface front ends use to steer a run (DESIGN: "the UI never reaches
 * into the engine except through events and a small command interface"). The CLI builds
 * one per run; the Ink UI receives it as a prop and never imports engine internals.
 */
import type { MergeMode } from '../../spec/schema.js';

export interface ChooseWinnerResult {
  readonly ok: boolean;
  readonly message: string;
}

export interface RunCommands {
  /** Ask a candidate to stop at its next iteration boundary; its work is kept. */
  stopCandidate(candidateId: string): void;
  /** Send a message that goes into the candidate's next prompt. */
  sendMessage(candidateId: string, text: string): void;
  /** Cancel the whole run, exactly like Ctrl-C / SIGINT. */
  cancelRun(): void;
  /**
   * After a run: make another candidate the winner and apply a merge mode to it (the same
   * merge code as the engine). Only offered once the run has finished.
   */
  chooseWinner?(candidateId: string, mode: MergeMode): Promise<ChooseWinnerResult>;
}
