/**
 * What the terminal view of a running bench shows, folded from its BenchEvents by a pure
 * reducer: a mark per cell, the counts of the header, the resolved rate of each agent and the
 * ETA. The view draws this state and nothing else, so every number on screen can be worked out
 * by hand from an event sequence (test/ui/bench-view.test.tsx does).
 *
 * Rates follow the reports (src/bench/summary.ts): infra failures are left out of them, and of
 * the mean duration the ETA is computed from (a trial that could not start says nothing about
 * how long one takes).
 */
import type { BenchEvent } from '../../bench/events.js';
import type { BenchMatrix, Cell, Shard, TrialRecord } from '../../bench/types.js';

/**
 * A cell's key in `marks`: `task/agent#trial`, as src/bench/matrix.ts labels cells (the UI may
 * import only the bench's types, so the one-liner is repeated here).
 */
export function cellKey(cell: Cell): string {
  return `${cell.task}/${cell.agent}#${cell.trial}`;
}

/** The state of one cell: a glyph of the matrix. */
export type CellMark = 'waiting' | 'running' | 'resolved' | 'unresolved' | 'infra' | 'not-run';

export interface AgentTally {
  readonly resolved: number;
  /** Trials that were not infra failures: the denominator of the rate. */
  readonly valid: number;
}

/** The ETA as estimated at `at` (epoch ms): the view counts it down from there. */
export interface Eta {
  readonly ms: number;
  readonly at: number;
}

export interface BenchViewState {
  /** False until bench.started. */
  readonly started: boolean;
  readonly bench: string;
  readonly matrix: BenchMatrix;
  readonly shard: Shard | null;
  readonly concurrency: number;
  readonly outDir: string;
  /** Epoch ms of bench.started: elapsed is this run's, not that of a resumed bench's first run. */
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly cancelled: boolean;
  /** q or Ctrl-C in the view, or a signal: the bench is being cancelled. */
  readonly cancelRequested: boolean;
  /** By cellKey; a cell of the matrix outside this run's slice (another shard's) has none. */
  readonly marks: ReadonlyMap<string, CellMark>;
  /** Trials of the slice. */
  readonly total: number;
  /** Trials of the slice with a record: finished now, or kept from an earlier run (`resumed`). */
  readonly done: number;
  readonly running: number;
  readonly resumed: number;
  /** What every recorded trial cost, the resumed ones included (as the bench's own budget counts it). */
  readonly costUsd: number;
  /** false once a recorded trial reported no cost (a command agent): `costUsd` is then a lower bound, shown "–" or "$x+", never $0. */
  readonly costKnown: boolean;
  /** Trials timed for the ETA: every record that is not an infra failure, resumed ones included. */
  readonly timed: { readonly count: number; readonly totalMs: number };
  readonly agents: ReadonlyMap<string, AgentTally>;
  /** The last finished trials of this run, oldest first (resumed records are not news). */
  readonly recent: readonly TrialRecord[];
  /** `null` until a trial that really ran has a duration. */
  readonly eta: Eta | null;
}

export type BenchViewAction = BenchEvent | { readonly type: 'cancel-requested' };

/** How many finished trials the state keeps for the view's last lines. */
export const RECENT_KEPT = 8;

export function initialBenchViewState(): BenchViewState {
  return {
    started: false,
    bench: '',
    matrix: { tasks: [], agents: [], trials: 0 },
    shard: null,
    concurrency: 1,
    outDir: '',
    startedAt: 0,
    finishedAt: null,
    cancelled: false,
    cancelRequested: false,
    marks: new Map(),
    total: 0,
    done: 0,
    running: 0,
    resumed: 0,
    costUsd: 0,
    costKnown: true,
    timed: { count: 0, totalMs: 0 },
    agents: new Map(),
    recent: [],
    eta: null,
  };
}

export function markOf(record: TrialRecord): CellMark {
  // "not_run" is the bench's own word for a cell it never started (cancelled, a limit reached, no repo).
  if (record.outcome.reason === 'not_run') return 'not-run';
  if (record.infra) return 'infra';
  return record.resolved ? 'resolved' : 'unresolved';
}

/**
 * The mean duration of the timed trials times the trials left, spread over the slots that will
 * run them: the concurrency, or fewer when fewer trials are left (one trial left takes a whole
 * mean, not a quarter of one, at a concurrency of 4).
 */
export function estimateEtaMs(state: Pick<BenchViewState, 'timed' | 'total' | 'done' | 'concurrency'>): number | null {
  const left = state.total - state.done;
  if (left <= 0) return 0;
  if (state.timed.count === 0) return null;
  const mean = state.timed.totalMs / state.timed.count;
  return (mean * left) / Math.max(1, Math.min(state.concurrency, left));
}

/** Folds a record into the counts that do not depend on whether it is new or resumed. */
function tally(
  state: BenchViewState,
  record: TrialRecord,
  marks: Map<string, CellMark>,
  agents: Map<string, AgentTally>,
): Pick<BenchViewState, 'costUsd' | 'costKnown' | 'timed'> {
  marks.set(cellKey(record), markOf(record));
  const agent = agents.get(record.agent) ?? { resolved: 0, valid: 0 };
  if (!record.infra) agents.set(record.agent, { resolved: agent.resolved + (record.resolved ? 1 : 0), valid: agent.valid + 1 });
  return {
    costUsd: state.costUsd + record.costUsd,
    costKnown: state.costKnown && record.costKnown !== false,
    timed: record.infra ? state.timed : { count: state.timed.count + 1, totalMs: state.timed.totalMs + record.durationMs },
  };
}

function countRunning(marks: ReadonlyMap<string, CellMark>): number {
  let running = 0;
  for (const mark of marks.values()) if (mark === 'running') running += 1;
  return running;
}

export function benchViewReducer(state: BenchViewState, action: BenchViewAction): BenchViewState {
  switch (action.type) {
    case 'bench.started': {
      const marks = new Map<string, CellMark>(action.cells.map((cell) => [cellKey(cell), 'waiting']));
      const agents = new Map<string, AgentTally>(action.matrix.agents.map((a) => [a.id, { resolved: 0, valid: 0 }]));
      let next: BenchViewState = {
        ...initialBenchViewState(),
        started: true,
        bench: action.bench,
        matrix: action.matrix,
        shard: action.shard,
        concurrency: action.concurrency,
        outDir: action.outDir,
        startedAt: action.at,
        cancelRequested: state.cancelRequested,
        total: action.cells.length,
      };
      let done = 0;
      for (const record of action.done) {
        if (!marks.has(cellKey(record))) continue;
        next = { ...next, ...tally(next, record, marks, agents) };
        done += 1;
      }
      next = { ...next, marks, agents, done, resumed: done };
      const eta = estimateEtaMs(next);
      return { ...next, eta: eta === null ? null : { ms: eta, at: action.at } };
    }
    case 'trial.started': {
      const label = cellKey(action.cell);
      if (state.marks.get(label) !== 'waiting') return state;
      const marks = new Map(state.marks);
      marks.set(label, 'running');
      return { ...state, marks, running: state.running + 1 };
    }
    case 'trial.finished': {
      const label = cellKey(action.record);
      const before = state.marks.get(label);
      // Not a cell of this slice, or recorded already: nothing to count.
      if (before === undefined || (before !== 'waiting' && before !== 'running')) return state;
      const marks = new Map(state.marks);
      const agents = new Map(state.agents);
      const counted = tally(state, action.record, marks, agents);
      const next: BenchViewState = {
        ...state,
        ...counted,
        marks,
        agents,
        done: state.done + 1,
        running: countRunning(marks),
        recent: [...state.recent, action.record].slice(-RECENT_KEPT),
      };
      const eta = estimateEtaMs(next);
      return { ...next, eta: eta === null ? null : { ms: eta, at: action.at } };
    }
    case 'bench.finished':
      return { ...state, finishedAt: action.at, cancelled: action.cancelled };
    case 'cancel-requested':
      return state.cancelRequested ? state : { ...state, cancelRequested: true };
    default: {
      const unreachable: never = action;
      return unreachable;
    }
  }
}

export function foldBenchEvents(actions: readonly BenchViewAction[], state: BenchViewState = initialBenchViewState()): BenchViewState {
  return actions.reduce(benchViewReducer, state);
}

/** The ETA left at `now`: the estimate counted down since it was made, never below zero. */
export function etaLeftMs(state: BenchViewState, now: number): number | null {
  if (state.eta === null) return null;
  return Math.max(0, state.eta.ms - Math.max(0, now - state.eta.at));
}
