/**
 * How an agent call can end: the closed set every provider maps its CLI's end to (./types.ts), and
 * every outcome has its own branch in the engine. Apart from ./types.ts so that ./script-steps.ts,
 * whose Script that module names, can read the list without importing it back.
 */
export const OUTCOMES = [
  'success',
  'max_turns',
  'max_tokens',
  'refusal',
  'context_overflow',
  'rate_limited',
  'usage_limit',
  'auth_error',
  'timeout',
  'crashed',
  'cancelled',
] as const;
export type Outcome = (typeof OUTCOMES)[number];
