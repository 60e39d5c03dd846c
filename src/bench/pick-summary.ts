/**
 * The pick, measured against an oracle: per agent (the agent set of its trials' candidates) and
 * per selection, three rates over the trials of every task, and the paired differences between
 * selections. Pure and JSON-ready, as ./summary.ts is; the Markdown and the JUnit read this.
 *
 *   random   what picking a candidate at random would score: the mean over trials of the share of
 *            the trial's candidates that pass the oracle. Its 95% interval is a Wilson interval on
 *            the pooled candidates (passing candidates over all candidates), which is the same rate
 *            when every trial has as many candidates (best_of), and treats candidates as
 *            independent, so it is narrower than one that clustered them by trial would be
 *   pick     the share of trials whose pick passes the oracle, with its Wilson interval; a trial
 *            where the run picked no one counts as a wrong pick
 *   oracle   the share of trials where at least one candidate passes: the best any selection could
 *            do on these candidates, with its Wilson interval
 *
 * The random and oracle rates do not depend on the selection (every selection scores the same
 * candidates); each row repeats them so that a row reads alone. Only valid trials (not infra
 * failures) that carry an oracle verdict count. The paired difference of two selections is over
 * the same trials (./stats.ts pairedProportionDifference), for each pair in `[[selections]]` order
 * (first minus second).
 */
import { mean, pairedProportionDifference, wilsonInterval, type Interval, type PairedProportionDifference } from './stats.js';
import type { BenchFile, SelectionPolicy, TrialRecord } from './types.js';

export interface SelectionSummary {
  readonly agent: string;
  readonly selection: string;
  readonly policy: SelectionPolicy;
  /** Valid trials with an oracle verdict. */
  readonly trials: number;
  readonly candidates: number;
  readonly passingCandidates: number;
  readonly random: number | null;
  readonly randomInterval: Interval | null;
  /** Trials whose pick passes the oracle. */
  readonly picked: number;
  readonly pick: number | null;
  readonly pickInterval: Interval | null;
  /** Trials the policy did not decide (its pick is the tie-break's). */
  readonly fellBack: number;
  /** Trials where at least one candidate passes. */
  readonly solvable: number;
  readonly oracle: number | null;
  readonly oracleInterval: Interval | null;
}

/** Selection `a` minus selection `b`, for one agent, on the same trials. */
export interface SelectionPair {
  readonly agent: string;
  readonly a: string;
  readonly b: string;
  readonly difference: PairedProportionDifference | null;
}

export interface PickSummary {
  readonly selections: readonly SelectionSummary[];
  readonly pairs: readonly SelectionPair[];
}

/** `null` for a bench without an oracle (its matrix lists no selections). */
export function summarizePicks(file: BenchFile): PickSummary | null {
  const selections = file.matrix.selections;
  if (selections === undefined) return null;
  const rows: SelectionSummary[] = [];
  const pairs: SelectionPair[] = [];
  for (const agent of file.matrix.agents) {
    const judged = file.records.filter((r) => r.agent === agent.id && !r.infra && r.oracle !== undefined);
    for (const s of selections) rows.push(selectionRow(agent.id, s.name, s.policy, judged));
    selections.forEach((a, i) => {
      for (const b of selections.slice(i + 1)) {
        const both = judged.map((r) => [passes(r, a.name), passes(r, b.name)] as const);
        pairs.push({ agent: agent.id, a: a.name, b: b.name, difference: pairedProportionDifference(both) });
      }
    });
  }
  return { selections: rows, pairs };
}

function passes(r: TrialRecord, selection: string): boolean {
  return r.oracle?.picks.find((p) => p.selection === selection)?.passes ?? false;
}

function selectionRow(agent: string, selection: string, policy: SelectionPolicy, judged: readonly TrialRecord[]): SelectionSummary {
  const verdicts = judged.map((r) => r.oracle?.candidates ?? []);
  const candidates = verdicts.reduce((s, v) => s + v.length, 0);
  const passingCandidates = verdicts.reduce((s, v) => s + v.filter((c) => c.passed).length, 0);
  // A trial without candidates (none was recorded) has no share: it is left out of the random mean.
  const random = mean(verdicts.filter((v) => v.length > 0).map((v) => v.filter((c) => c.passed).length / v.length));
  const picked = judged.filter((r) => passes(r, selection)).length;
  const solvable = verdicts.filter((v) => v.some((c) => c.passed)).length;
  const n = judged.length;
  return {
    agent,
    selection,
    policy,
    trials: n,
    candidates,
    passingCandidates,
    random,
    randomInterval: wilsonInterval(passingCandidates, candidates),
    picked,
    pick: n === 0 ? null : picked / n,
    pickInterval: wilsonInterval(picked, n),
    fellBack: judged.filter((r) => r.oracle?.picks.find((p) => p.selection === selection)?.fellBack).length,
    solvable,
    oracle: n === 0 ? null : solvable / n,
    oracleInterval: wilsonInterval(solvable, n),
  };
}
