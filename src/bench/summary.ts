/**
 * From a bench's records to the numbers every report shows: per cell (task x agent), per agent,
 * and per pair of agents. Pure and JSON-ready; the Markdown, the JUnit and the baseline
 * comparison read this and nothing else, so the three always agree.
 *
 * Decisions:
 * - A **valid** trial is one that is not an infra failure. Rates, pass@k, mean score, cost and
 *   duration statistics use valid trials only; infra failures are counted and listed apart.
 *   The total cost (what the bench spent) counts every trial.
 * - The **resolved rate** of an agent is pooled: resolved valid trials over valid trials, with
 *   its Wilson interval. pass@1 is the mean over tasks of each task's rate; the two agree when
 *   every task has as many valid trials, and differ when infra failures make them unequal
 *   (pass@1 then weighs every task the same, the pooled rate every trial).
 * - **pass@k** averages over the tasks where the agent has at least one valid trial; k can be
 *   at most the smallest valid trial count over those tasks. A k past it is reported as not
 *   possible, with the task that limits it, rather than silently lowered. Default k: the trials
 *   per cell (pass@n), besides pass@1.
 * - **Mean score** is the mean of score / maxScore over valid trials (a trial whose maxScore is
 *   0 has no fraction and is left out of it).
 * - **Paired differences** (stats.ts) are over the tasks where both agents have a valid trial,
 *   for each pair of agents in matrix order (first minus second).
 * - A cell's **verdict** (the JUnit case): `skipped` when it has no valid trial (every trial an
 *   infra failure, or none recorded), `failed` when its rate is under the task's bar (with
 *   1e-9 slack, so that a bar of 2/3 written as 0.6666666667 is met by 2 of 3), else `passed`.
 */
import { allCells, cellIndex } from './matrix.js';
import { summarizePicks, type PickSummary } from './pick-summary.js';
import { cellsOfShard } from './shard.js';
import { mean, pairedEstimate, passAtK, percentile, wilsonInterval, type Interval, type PairedEstimate } from './stats.js';
import type { BenchAgent, BenchFile, BenchHarness, BenchMatrix, Shard, TrialRecord } from './types.js';

const BAR_SLACK = 1e-9;

export interface SummaryOptions {
  /** The k of pass@k to report besides pass@1. Default: the trials per cell, when above 1. */
  readonly k?: readonly number[];
}

export type CellVerdict = 'passed' | 'failed' | 'skipped';

/** One task x agent pair: its trials and its JUnit verdict. */
export interface CellSummary {
  readonly task: string;
  readonly agent: string;
  /** Its records, in trial order. */
  readonly records: readonly TrialRecord[];
  readonly valid: number;
  readonly resolved: number;
  readonly infra: number;
  /** Trials that changed a frozen path (TrialRecord.tampered): unresolved, and said apart from the lazy ones. */
  readonly tampered: number;
  /** resolved / valid; `null` without a valid trial. */
  readonly rate: number | null;
  readonly bar: number;
  readonly verdict: CellVerdict;
}

export interface PassAtKValue {
  readonly k: number;
  /** `null` when k is more than the agent's smallest valid trial count over its tasks. */
  readonly value: number | null;
}

/** Mean and nearest-rank p50 / p90; all `null` without a value. */
export interface Distribution {
  readonly mean: number | null;
  readonly p50: number | null;
  readonly p90: number | null;
}

export interface AgentSummary {
  readonly agent: string;
  readonly kind: string;
  readonly model: string | null;
  /** Every record of the agent, infra failures included. */
  readonly trials: number;
  readonly valid: number;
  readonly resolved: number;
  readonly infra: number;
  /** Pooled resolved rate of valid trials; `null` without one. */
  readonly rate: number | null;
  readonly interval: Interval | null;
  readonly passAt1: number | null;
  readonly passAtK: readonly PassAtKValue[];
  /** The largest k pass@k can be computed for: the smallest valid trial count over its tasks (0 when none). */
  readonly maxK: number;
  /** Tasks where the agent has a valid trial: what pass@k averages over. */
  readonly tasks: number;
  readonly meanScore: number | null;
  /** Over the valid trials that reported their cost; all null when none did (a command agent reports none). */
  readonly costUsd: Distribution;
  readonly durationMs: Distribution;
  /** Every trial, infra failures included: what the agent cost the bench (a lower bound when `costUnknown`); null when no trial reported a cost. */
  readonly totalCostUsd: number | null;
  /** Trials (infra failures included) that reported no cost. */
  readonly costUnknown: number;
  readonly tokens: { readonly input: number; readonly output: number };
}

export interface TaskDifference {
  readonly task: string;
  readonly rateA: number;
  readonly rateB: number;
  /** rateA - rateB */
  readonly difference: number;
}

/** Agent `a` minus agent `b`, paired on the tasks both have a valid trial of. */
export interface PairSummary {
  readonly a: string;
  readonly b: string;
  readonly perTask: readonly TaskDifference[];
  /** `null` when no task has a valid trial of both. */
  readonly estimate: PairedEstimate | null;
}

export interface InfraFailure {
  readonly task: string;
  readonly agent: string;
  readonly trial: number;
  readonly reason: string;
  readonly runId: string;
}

/** A trial that changed frozen paths (TrialRecord.tampered). */
export interface TamperedTrial {
  readonly task: string;
  readonly agent: string;
  readonly trial: number;
  /** Sorted; at least one. */
  readonly paths: readonly string[];
  readonly runId: string;
}

export interface BenchSummary {
  readonly bench: string;
  readonly specHash: string;
  readonly matrix: BenchMatrix;
  readonly shard: Shard | null;
  readonly startedAt: string;
  readonly finishedAt: string;
  readonly harness: BenchHarness;
  /** Trials recorded, and trials the file should hold (the matrix, or its shard's slice). */
  readonly recorded: number;
  readonly expected: number;
  /** Task x agent, in matrix order. */
  readonly cells: readonly CellSummary[];
  readonly agents: readonly AgentSummary[];
  readonly pairs: readonly PairSummary[];
  readonly infraFailures: readonly InfraFailure[];
  /** Trials whose agent changed a frozen path, in matrix order. */
  readonly tampering: readonly TamperedTrial[];
  /** Sentences for the reader: a k that was not possible, a task left out of an agent's pass@k. */
  readonly notes: readonly string[];
  /** The pick against the tasks' oracle, per agent and selection (./pick-summary.ts); `null` without an oracle. */
  readonly picks: PickSummary | null;
}

/** Summarises a bench file (a whole bench, a shard, or merged shards). */
export function summarizeBench(file: BenchFile, options: SummaryOptions = {}): BenchSummary {
  const { matrix } = file;
  const sorted = [...file.records].sort((x, y) => cellIndex(matrix, x) - cellIndex(matrix, y));
  const cells = matrix.tasks.flatMap((task) =>
    matrix.agents.map((agent) =>
      summarizeCell(
        task.id,
        agent.id,
        task.bar,
        sorted.filter((r) => r.task === task.id && r.agent === agent.id),
      ),
    ),
  );
  const ks = requestedKs(matrix, options);
  const notes: string[] = [];
  const agents = matrix.agents.map((agent) =>
    summarizeAgent(
      agent,
      cells.filter((c) => c.agent === agent.id),
      ks,
      notes,
    ),
  );
  const pairs = matrix.agents.flatMap((a, i) => matrix.agents.slice(i + 1).map((b) => pairOf(a.id, b.id, cells)));
  const infraFailures = sorted
    .filter((r) => r.infra)
    .map((r) => ({ task: r.task, agent: r.agent, trial: r.trial, reason: r.infraReason ?? 'no reason recorded', runId: r.runId }));
  const tampering = sorted.flatMap((r) =>
    r.tampered && r.tampered.length > 0 ? [{ task: r.task, agent: r.agent, trial: r.trial, paths: r.tampered, runId: r.runId }] : [],
  );
  return {
    bench: file.bench,
    specHash: file.specHash,
    matrix,
    shard: file.shard,
    startedAt: file.startedAt,
    finishedAt: file.finishedAt,
    harness: file.harness,
    recorded: sorted.length,
    expected: file.shard === null ? allCells(matrix).length : cellsOfShard(matrix, file.shard).length,
    cells,
    agents,
    pairs,
    infraFailures,
    tampering,
    notes,
    picks: summarizePicks(file),
  };
}

function requestedKs(matrix: BenchMatrix, options: SummaryOptions): number[] {
  const asked = options.k ?? (matrix.trials > 1 ? [matrix.trials] : []);
  const bad = asked.find((k) => !Number.isInteger(k) || k < 1);
  if (bad !== undefined) throw new Error(`bug: pass@${bad} asked for; k is a whole number of at least 1`);
  return [...new Set(asked)].filter((k) => k !== 1).sort((a, b) => a - b);
}

function summarizeCell(task: string, agent: string, bar: number, records: readonly TrialRecord[]): CellSummary {
  const valid = records.filter((r) => !r.infra);
  const resolved = valid.filter((r) => r.resolved).length;
  const rate = valid.length === 0 ? null : resolved / valid.length;
  const verdict: CellVerdict = rate === null ? 'skipped' : rate < bar - BAR_SLACK ? 'failed' : 'passed';
  const tampered = records.filter((r) => (r.tampered?.length ?? 0) > 0).length;
  return { task, agent, records, valid: valid.length, resolved, infra: records.length - valid.length, tampered, rate, bar, verdict };
}

function distribution(values: readonly number[]): Distribution {
  return { mean: mean(values), p50: percentile(values, 50), p90: percentile(values, 90) };
}

function summarizeAgent(agent: BenchAgent, cells: readonly CellSummary[], ks: readonly number[], notes: string[]): AgentSummary {
  const records = cells.flatMap((c) => c.records);
  const valid = records.filter((r) => !r.infra);
  const resolved = valid.filter((r) => r.resolved).length;
  const tasksWithTrials = cells.filter((c) => c.valid > 0);
  for (const c of cells.filter((c) => c.valid === 0)) {
    notes.push(
      `${agent.id} has no valid trial of task ${c.task} (${c.records.length === 0 ? 'none recorded' : 'every trial was an infra failure'}): the task is left out of its pass@k`,
    );
  }
  const smallest = tasksWithTrials.reduce<CellSummary | undefined>((min, c) => (min === undefined || c.valid < min.valid ? c : min), undefined);
  const maxK = smallest?.valid ?? 0;
  const passAt = (k: number): number | null => (k > maxK ? null : mean(tasksWithTrials.map((c) => passAtK(c.valid, c.resolved, k))));
  for (const k of ks.filter((k) => k > maxK)) {
    notes.push(
      smallest === undefined
        ? `pass@${k} of ${agent.id} is not possible: it has no valid trial`
        : `pass@${k} of ${agent.id} is not possible: task ${smallest.task} has only ${maxK} valid trial${maxK === 1 ? '' : 's'} of it (infra failures are left out), and k can be at most the smallest trial count`,
    );
  }
  const fractions = valid.filter((r) => r.maxScore > 0).map((r) => r.score / r.maxScore);
  // A cost never reported is not $0: it is left out of the figures (and said in the notes), never averaged in as nothing.
  const costKnown = (r: TrialRecord): boolean => r.costKnown !== false;
  const costUnknown = records.filter((r) => !costKnown(r)).length;
  if (costUnknown > 0) {
    notes.push(
      costUnknown === records.length
        ? `${agent.id} reported no cost in any trial (a command agent reports none): its cost is unknown, not $0`
        : `${agent.id} reported no cost in ${costUnknown} of ${records.length} trials: its cost figures are over the others, and its total is a lower bound`,
    );
  }
  return {
    agent: agent.id,
    kind: agent.kind,
    model: agent.model,
    trials: records.length,
    valid: valid.length,
    resolved,
    infra: records.length - valid.length,
    rate: valid.length === 0 ? null : resolved / valid.length,
    interval: wilsonInterval(resolved, valid.length),
    passAt1: passAt(1),
    passAtK: ks.map((k) => ({ k, value: passAt(k) })),
    maxK,
    tasks: tasksWithTrials.length,
    meanScore: mean(fractions),
    costUsd: distribution(valid.filter(costKnown).map((r) => r.costUsd)),
    durationMs: distribution(valid.map((r) => r.durationMs)),
    totalCostUsd: costUnknown === records.length && records.length > 0 ? null : records.reduce((s, r) => s + r.costUsd, 0),
    costUnknown,
    tokens: {
      input: records.reduce((s, r) => s + r.tokens.input, 0),
      output: records.reduce((s, r) => s + r.tokens.output, 0),
    },
  };
}

function pairOf(a: string, b: string, cells: readonly CellSummary[]): PairSummary {
  const perTask: TaskDifference[] = [];
  for (const ca of cells.filter((c) => c.agent === a)) {
    const cb = cells.find((c) => c.agent === b && c.task === ca.task);
    if (ca.rate === null || cb?.rate == null) continue;
    perTask.push({ task: ca.task, rateA: ca.rate, rateB: cb.rate, difference: ca.rate - cb.rate });
  }
  return { a, b, perTask, estimate: pairedEstimate(perTask.map((t) => t.difference)) };
}
