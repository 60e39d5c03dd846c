/**
 * The failures of node's test runner that say a test did not run to its end rather than that it
 * failed: a test cancelled by its parent's timeout or end, or one whose hook failed before it ran.
 * Node names them in TAP's `failureType` and in JUnit's `<failure type>`; both parsers read them as
 * `errored`, so that the same run reads alike in either format.
 */
const NOT_RUN_FAILURE_TYPES: ReadonlySet<string> = new Set(['cancelledByParent', 'parentAlreadyFinished', 'hookFailure']);

/** Whether a failure of this type (node's `failureType`) is a test that could not run, not one that failed. */
export function isNotRunFailure(type: string | undefined): boolean {
  return type !== undefined && NOT_RUN_FAILURE_TYPES.has(type);
}
