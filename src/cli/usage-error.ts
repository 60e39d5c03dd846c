/** Bad input from the command line: printed as one line, exit code 2. */
export class UsageError extends Error {
  readonly code = 'USAGE';
}
