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
  /** `bestof clean`: a worktree was kept because its work could not be saved (the user has something to do). */
  cleanKeptWork: 1,
  /** `bestof bench`: a regression against `--baseline`. */
  benchRegression: 1,
  /** A bug of bestof's: an unexpected exception reached the command line. */
  internalError: 70,
  /** Cancelled (Ctrl-C / SIGTERM). */
  cancelled: 130,
} as const;

export type ExitCode = (typeof EXIT_CODES)[keyof typeof EXIT_CODES];

/**
 * What each code means, in the words `bestof --help` prints (./help.ts in src/cli reads it): the
 * run's codes first, then the commands whose 1 means something else. A test holds it to EXIT_CODES
 * and to the README's table.
 */
export const EXIT_CODE_WORDS: readonly { readonly code: ExitCode; readonly words: string; readonly command?: 'clean' | 'bench' }[] = [
  { code: EXIT_CODES.winner, words: 'winner chosen' },
  { code: EXIT_CODES.noWinner, words: 'no candidate can win' },
  { code: EXIT_CODES.badInput, words: 'bad input' },
  { code: EXIT_CODES.mergeFailed, words: 'merge refused' },
  { code: EXIT_CODES.incomplete, words: 'incomplete (a candidate lost, work kept uncommitted, a full disk)' },
  { code: EXIT_CODES.internalError, words: 'internal error' },
  { code: EXIT_CODES.cancelled, words: 'cancelled' },
  { code: EXIT_CODES.cleanKeptWork, words: 'a worktree kept with work that could not be saved', command: 'clean' },
  { code: EXIT_CODES.benchRegression, words: 'a regression against --baseline', command: 'bench' },
];
