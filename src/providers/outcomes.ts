/**
 * How an agent call can end, every one a branch of its own in the engine (src/engine/loop/outcome-policy.ts).
 * A module without imports, so that the script provider's steps (./script-steps.ts), which name
 * outcomes, and the provider contract (./types.ts), which carries a script, do not import each other.
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
