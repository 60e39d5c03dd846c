/**
 * bestof's exit codes, in one place: the engine puts one in run.finished, the CLI returns it,
 * and the README's table lists exactly these.
 */
export const EXIT_CODES = {
  /** Every command but run and resume: it did what was asked. */
  ok: 0,
  /** A winner was chosen (and merged as the spec says). */
  winner: 0,
  /** No candidate passed. */
  noWinner: 1,
  /** Bad input: a wrong spec, a missing file or CLI, an unknown run. Nothing was created. */
  badInput: 2,
  /** A winner was chosen but the merge was refused or failed (its branch is kept). */
  mergeFailed: 3,
  /** A bug of bestof's: an unexpected exception reached the command line. */
  internalError: 70,
  /** Cancelled (Ctrl-C / SIGTERM). */
  cancelled: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
