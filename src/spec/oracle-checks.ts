/**
 * Checks of `kind = "oracle"`: the spec author's judge of whether a candidate is really right,
 * which only `bestof bench` runs, itself, on every candidate's final commit once the trial's run
 * is over (src/bench/oracle.ts). A run never runs, scores or shows one: the plan takes the spec
 * without them (src/engine/plan/plan.ts), so no prompt, score, event or report of a run names it.
 */
import type { Spec } from './schema.js';

type Check = Spec['checks']['items'][number];

export function isOracleCheck(check: Pick<Check, 'kind'>): boolean {
  return check.kind === 'oracle';
}

/** The spec as a run sees it: its oracle checks left out. */
export function withoutOracleChecks(spec: Spec): Spec {
  if (!spec.checks.items.some(isOracleCheck)) return spec;
  return { ...spec, checks: { ...spec.checks, items: spec.checks.items.filter((check) => !isOracleCheck(check)) } };
}

/** The spec's oracle checks, in spec order. */
export function oracleChecks(spec: Spec): Check[] {
  return spec.checks.items.filter(isOracleCheck);
}
