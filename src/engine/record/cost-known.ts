/**
 * Whether a candidate's cost is known (run-state.ts folds it from provider.finished): an unknown
 * cost is shown as "–", never as $0.
 */
import { reportsCost } from '../../providers/definitions.js';
import type { CandidateState, EventOf } from './run-types.js';

/**
 * Whether an agent call's cost is known. The call's event says what was spent, not whether it
 * was reported, so this reads it from what is there: a cost above 0 was reported; an agent
 * whose kind reports no cost (a command agent; see the provider table) reported none; tokens spent at no cost are tokens of a model without a price. A call
 * that spent no token and reported 0 (a CLI that failed before its first request) cost $0.
 */
export function costReported(event: EventOf<'provider.finished'>, kind: CandidateState['provider'] | undefined): boolean {
  if (event.costUsd > 0) return true;
  if (kind !== undefined && !reportsCost(kind)) return false;
  const { input, output, cacheRead, cacheWrite } = event.usage;
  return input + output + cacheRead + cacheWrite === 0;
}

/** A candidate's cost is known unless a call of it reported none (older records carry no flag: known). */
export function costIsKnown(c: { readonly costKnown?: boolean }): boolean {
  return c.costKnown !== false;
}
