/**
 * `--baseline old-bench.json`: did an agent get worse? Agents are matched by id.
 *
 * The rules (a regression makes the bench exit 1):
 * - **Resolved rate.** The rate dropped by more than `tolerance.resolvedRateDrop` (absolute:
 *   0.1 is ten percentage points) *and* the baseline's rate lies above the upper bound of the
 *   current rate's 95% Wilson interval: the old rate is no longer plausible for the agent today.
 *   Both must hold: the tolerance alone would fail CI on the noise of three trials, the interval
 *   alone on a drop too small to matter with a thousand. Only the current interval is used (not
 *   "the two intervals do not overlap"), because the baseline is the reference being tested
 *   against, and non-overlap of two 95% intervals is a far stricter test than 95%.
 * - **Cost.** The mean cost of a valid trial rose by more than `tolerance.costUsdRise` (a
 *   fraction: 0.2 is 20%). No interval: cost has no natural one here and is not noisy in the
 *   way a pass/fail is. From a baseline mean of $0, any rise counts (there is no fraction of 0).
 *
 * Agents only in one of the two, agents without valid trials, and baselines of another spec
 * (different tasks: the rates measure different things) are not regressions; they are notes.
 */
import { percent, percentInterval, pointsSize, usd } from './format.js';
import type { AgentSummary, BenchSummary } from './summary.js';

export interface BaselineTolerance {
  /** The largest drop of the resolved rate that is not a regression, absolute (0.1 = 10 points). */
  readonly resolvedRateDrop: number;
  /** The largest rise of the mean cost that is not a regression, a fraction (0.2 = 20%). */
  readonly costUsdRise: number;
}

export interface Regression {
  readonly agent: string;
  readonly kind: 'resolved_rate' | 'cost';
  readonly baseline: number;
  readonly current: number;
  /** One sentence for the Markdown and the console. */
  readonly message: string;
}

/** One agent in both benches, for the report's "compared with the baseline" table. */
export interface AgentChange {
  readonly agent: string;
  readonly baselineRate: number | null;
  readonly currentRate: number | null;
  readonly baselineCostUsd: number | null;
  readonly currentCostUsd: number | null;
  readonly regressed: boolean;
}

export interface BaselineComparison {
  readonly tolerance: BaselineTolerance;
  readonly regressions: readonly Regression[];
  readonly changes: readonly AgentChange[];
  readonly notes: readonly string[];
}

const SLACK = 1e-9;

export function compareToBaseline(current: BenchSummary, baseline: BenchSummary, tolerance: BaselineTolerance): BaselineComparison {
  const notes: string[] = [];
  if (current.specHash !== baseline.specHash) {
    notes.push(
      `the baseline ran another spec (hash ${baseline.specHash}, now ${current.specHash}): its rates are over other tasks or settings, compare them with care`,
    );
  }
  const regressions: Regression[] = [];
  const changes: AgentChange[] = [];
  for (const now of current.agents) {
    const before = baseline.agents.find((a) => a.agent === now.agent);
    if (before === undefined) {
      notes.push(`${now.agent} is not in the baseline: nothing to compare it with`);
      continue;
    }
    const found = [rateRegression(now, before, tolerance, notes), costRegression(now, before, tolerance)].filter((r): r is Regression => r !== undefined);
    regressions.push(...found);
    changes.push({
      agent: now.agent,
      baselineRate: before.rate,
      currentRate: now.rate,
      baselineCostUsd: before.costUsd.mean,
      currentCostUsd: now.costUsd.mean,
      regressed: found.length > 0,
    });
  }
  for (const gone of baseline.agents.filter((b) => !current.agents.some((a) => a.agent === b.agent))) {
    notes.push(`${gone.agent} is in the baseline only: it did not run in this bench`);
  }
  return { tolerance, regressions, changes, notes };
}

function rateRegression(now: AgentSummary, before: AgentSummary, tolerance: BaselineTolerance, notes: string[]): Regression | undefined {
  if (now.rate === null || now.interval === null || before.rate === null) {
    notes.push(`${now.agent}: no resolved rate to compare (${now.rate === null ? 'no valid trial in this bench' : 'no valid trial in the baseline'})`);
    return undefined;
  }
  const drop = before.rate - now.rate;
  if (drop <= tolerance.resolvedRateDrop + SLACK || before.rate <= now.interval.high + SLACK) return undefined;
  return {
    agent: now.agent,
    kind: 'resolved_rate',
    baseline: before.rate,
    current: now.rate,
    message:
      `${now.agent}: resolved rate fell from ${percent(before.rate)} to ${percent(now.rate)} (${now.resolved}/${now.valid}), ` +
      `a drop of ${pointsSize(drop)}, more than the tolerated ${pointsSize(tolerance.resolvedRateDrop)}, ` +
      `and the baseline's ${percent(before.rate)} is above today's 95% interval ${percentInterval(now.interval)}`,
  };
}

function costRegression(now: AgentSummary, before: AgentSummary, tolerance: BaselineTolerance): Regression | undefined {
  const was = before.costUsd.mean;
  const is = now.costUsd.mean;
  if (was === null || is === null) return undefined;
  const rose = was === 0 ? is > 0 : (is - was) / was > tolerance.costUsdRise + SLACK;
  if (!rose) return undefined;
  const by = was === 0 ? '' : ` (+${((is / was - 1) * 100).toFixed(0)}%)`;
  return {
    agent: now.agent,
    kind: 'cost',
    baseline: was,
    current: is,
    message: `${now.agent}: mean cost of a trial rose from ${usd(was)} to ${usd(is)}${by}, more than the tolerated ${(tolerance.costUsdRise * 100).toFixed(0)}%`,
  };
}
