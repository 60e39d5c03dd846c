/**
 * The run's money, shared by every candidate: what each has spent, the caps of `[budget]`,
 * and the one-time warning. A cap reached stops new work (no new iteration starts); what was
 * done is kept. Cost known only after a call, so one call may go past a cap.
 */
/**
 * Whom the voters' calls are charged to: the run, not a candidate. They count toward
 * `max_total_cost_usd` (and `warn_at_usd`), never toward a candidate's `max_candidate_cost_usd`:
 * judging the others is not a candidate's own work. Not a valid candidate id.
 */
export const VOTE_PAYER = '(vote)';
/** Whom the distinguish step's tester is charged to: the run, as the voters are. */
export const DISTINGUISH_PAYER = '(distinguish)';

export interface BudgetLimits {
  readonly maxTotalCostUsd?: number;
  readonly maxCandidateCostUsd?: number;
  readonly warnAtUsd?: number;
}

export class BudgetLedger {
  private readonly spent = new Map<string, number>();
  private warned = false;

  constructor(
    private readonly limits: BudgetLimits,
    alreadySpent: Readonly<Record<string, number>> = {},
  ) {
    for (const [candidate, usd] of Object.entries(alreadySpent)) this.spent.set(candidate, usd);
    this.warned = limits.warnAtUsd !== undefined && this.total >= limits.warnAtUsd;
  }

  get total(): number {
    let sum = 0;
    for (const usd of this.spent.values()) sum += usd;
    return sum;
  }

  spentBy(candidate: string): number {
    return this.spent.get(candidate) ?? 0;
  }

  /** Records a cost; returns a warning the first time the total passes `warn_at_usd`. */
  record(candidate: string, usd: number): string | undefined {
    this.spent.set(candidate, this.spentBy(candidate) + usd);
    if (!this.warned && this.limits.warnAtUsd !== undefined && this.total >= this.limits.warnAtUsd) {
      this.warned = true;
      return `the run has spent $${this.total.toFixed(2)}, past warn_at_usd = $${this.limits.warnAtUsd.toFixed(2)}${this.limits.maxTotalCostUsd !== undefined ? ` (cap $${this.limits.maxTotalCostUsd.toFixed(2)})` : ''}`;
    }
    return undefined;
  }

  /** Why the candidate may not start new work, if a cap is reached. */
  blocked(candidate: string): 'budget_total' | 'budget_candidate' | undefined {
    if (this.limits.maxTotalCostUsd !== undefined && this.total >= this.limits.maxTotalCostUsd) return 'budget_total';
    if (this.limits.maxCandidateCostUsd !== undefined && this.spentBy(candidate) >= this.limits.maxCandidateCostUsd) return 'budget_candidate';
    return undefined;
  }

  /** What is left for this candidate, for its prompt; undefined when there is no cap. */
  left(candidate: string): number | undefined {
    const caps = [
      this.limits.maxTotalCostUsd !== undefined ? this.limits.maxTotalCostUsd - this.total : undefined,
      this.limits.maxCandidateCostUsd !== undefined ? this.limits.maxCandidateCostUsd - this.spentBy(candidate) : undefined,
    ].filter((v): v is number => v !== undefined);
    return caps.length > 0 ? Math.max(0, Math.min(...caps)) : undefined;
  }
}
