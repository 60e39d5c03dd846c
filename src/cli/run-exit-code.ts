/**
 * The exit code of `bestof run` and `bestof resume` once the run has ended: a winner the user
 * chose in the compare view decides it as a policy winner would; a run whose event log could not
 * be written is incomplete, whatever the engine concluded; else it is the engine's.
 */
import { EXIT_CODES } from '../engine/exit-codes.js';

export interface RunEndFacts {
  /** What the user chose in the compare view, if anything: `ok` when its merge went through. */
  readonly choice: { readonly ok: boolean } | undefined;
  /** The event log could not be written, and the run was stopped for it. */
  readonly logFailed: boolean;
  /** The engine's exit code (undefined: it recorded none, a bug). */
  readonly runExitCode: number | undefined;
}

export interface RunEnd {
  readonly exitCode: number;
  /**
   * The session must say that the run is incomplete because of its record: the engine did not
   * (it says so itself, and ends with `incomplete`, when it met the failing disk too).
   */
  readonly sayIncomplete: boolean;
}

export function runEnd(facts: RunEndFacts): RunEnd {
  if (facts.choice) return { exitCode: facts.choice.ok ? EXIT_CODES.winner : EXIT_CODES.mergeFailed, sayIncomplete: false };
  if (facts.logFailed) return { exitCode: EXIT_CODES.incomplete, sayIncomplete: facts.runExitCode !== EXIT_CODES.incomplete };
  return { exitCode: facts.runExitCode ?? EXIT_CODES.internalError, sayIncomplete: false };
}
