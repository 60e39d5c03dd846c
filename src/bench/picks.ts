/**
 * Each selection's pick in a trial, read from the run's report.json `picks`: which candidate each
 * policy picks from the same candidates (tie_break: score, then the spec's tie-breaks; vote: the
 * vote's ranking, present when a vote decided; distinguish: the distinguishing tests' ranking,
 * present when the step ran and decided). So every policy is scored on the same trial, paired,
 * with no agent run of its own.
 *
 * A policy whose pick is absent did not decide this trial (no vote, no tie to tell apart): the run
 * then picked by the tie-break, so its pick is the tie-break's, marked `fellBack`. A report without
 * `picks` (a bestof from before them) is read as `{ tie_break: winner }`.
 */
import type { BenchSelection, OracleVerdict, PolicyPick, SelectionPolicy } from './types.js';

/** report.json's `picks`. */
export type RunPicks = { readonly tie_break: string | null } & { readonly [P in Exclude<SelectionPolicy, 'tie_break'>]?: string | null };

export function runPicks(report: { readonly picks?: RunPicks; readonly winner: string | null }): RunPicks {
  return report.picks ?? { tie_break: report.winner };
}

export function policyPicks(selections: readonly BenchSelection[], picks: RunPicks, verdicts: readonly OracleVerdict[]): PolicyPick[] {
  const passing = new Set(verdicts.filter((v) => v.passed).map((v) => v.candidate));
  return selections.map((s) => {
    const own = picks[s.policy];
    const candidate = own !== undefined ? own : picks.tie_break;
    return {
      selection: s.name,
      policy: s.policy,
      candidate,
      passes: candidate !== null && passing.has(candidate),
      fellBack: own === undefined,
    };
  });
}
