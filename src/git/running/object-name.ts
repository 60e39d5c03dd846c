/**
 * Git object names as bestof passes them around: full names (sha-1: 40 lowercase hex digits,
 * sha-256: 64) name one object for good, so what git said about one need not be asked again, and
 * a full name is never taken for a branch or a tag whose target may move.
 */
const FULL_OBJECT_NAME = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** Is `text` a full object name (40 or 64 lowercase hex digits)? */
export function isFullObjectName(text: string): boolean {
  return FULL_OBJECT_NAME.test(text);
}
