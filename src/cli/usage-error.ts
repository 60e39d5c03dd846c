/** Bad input from the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';

  /**
   * `didYouMean`: a mistyped word and the words it may have meant. ./main.ts finds the closest
   * one when it prints the error (src/spec/suggestions.ts pulls in the spec's schema, which the
   * quick commands must not load at every start) and then prints `say(closest)` instead.
   */
  constructor(
    message: string,
    readonly didYouMean?: { readonly typed: string; readonly among: readonly string[]; readonly say: (closest: string) => string },
  ) {
    super(message);
  }
}
