/**
 * LoopContext: what stays the same for the whole loop of one candidate, apart from the steps that
 * use it (./iteration.ts, ./agent-call.ts, ./commit-step.ts) so that none of them imports another
 * for its type.
 */
import type { Provider } from '../../providers/types.js';
import type { Env } from '../../env.js';
import type { BudgetLedger } from './budget.js';
import type { UnstampedEvent } from '../record/run-types.js';
import type { CandidatePlan, RunPlan } from '../plan/plan.js';
import type { SecretSet } from '../sandbox/secrets.js';
import type { SetupGuard } from '../workspace/setup-guard.js';
import type { LoopLimits } from './stop-rules.js';
import type { BaseTests } from '../scoring/base-reference.js';
import type { OthersStop } from './others-stop.js';

export interface LoopContext {
  readonly plan: RunPlan;
  readonly candidate: CandidatePlan;
  readonly signal: AbortSignal;
  readonly emit: (event: UnstampedEvent) => void;
  /** Runs an agent call under the per-provider-kind concurrency limit. */
  readonly limitProvider: <T>(candidate: CandidatePlan, call: () => Promise<T>) => Promise<T>;
  /** The run's money, shared by every candidate. */
  readonly budget: BudgetLedger;
  /** The run's secrets: redacted in what providers write, and files holding one are never committed. */
  readonly secrets: SecretSet;
  readonly provider: Provider;
  readonly reviewer: Provider | undefined;
  /** The agent's environment (the user's, the spec's `env`, the candidate's identity). */
  readonly agentEnv: Env;
  /** The checks' (and the reviewer's) environment: never the agent's extra env. */
  readonly checkEnv: Env;
  /** Untracked files from setup: never committed, kept through the checks. */
  readonly setupPaths: readonly string[];
  /** Watches what setup made between scorings (../workspace/setup-guard.ts). @default none */
  readonly setupGuard?: SetupGuard | undefined;
  readonly limits: LoopLimits;
  /**
   * Base's tests for the checks that read a test report (../scoring/base-reference.ts), which each
   * scoring holds the candidate's reports to; started with the run, awaited by the first scoring
   * that needs it. Undefined: base's run failed, and the run is stopping. @default none (no report check)
   */
  readonly baseTests?: (() => Promise<BaseTests | undefined>) | undefined;
  /** `[select] stop_others = "on_threshold"`: the run's flag, read at every iteration boundary (./others-stop.ts). @default never set */
  readonly othersStop?: OthersStop | undefined;
}
