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
  /**
   * The run could not do everything for every candidate: one was lost to a failure of git or of
   * bestof during setup (nothing is merged: the comparison is incomplete), or a worktree was kept
   * because its work could not be committed. The closing line says which and what to do.
   */
  incomplete: 4,
  /** A bug of bestof's: an unexpected exception reached the command line. */
  internalError: 70,
  /** Cancelled (Ctrl-C / SIGTERM). */
  cancelled: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];
