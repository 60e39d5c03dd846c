/**
 * The bench the bench tests work out by hand: 2 tasks x 3 agents x 3 trials, one infra failure.
 *
 *   R = resolved (score 10/10), U = not resolved (score 4/10), I = infra failure
 *
 *   task (bar)   claude-sonnet   codex-mini   gemini-flash
 *   t1 (0.5)     R R R           U R U        R I U
 *   t2 (0.6)     R U R           U U R        U U U
 *
 *   costs ($)    t1: .10 .20 .30  t1: .05 .05 .05  t1: .01 (.005) .03
 *                t2: .40 .50 .60  t2: .10 .10 .10  t2: .02 .04 .05
 *   durations(s) t1: 30 40 50     all 10           t1: 5 (1) 6
 *                t2: 60 70 80                      t2: 7 8 9
 *
 * (the values in parentheses are the infra trial's).
 */
import type { BenchFile, TrialRecord } from '../../src/bench/types.js';

type Mark = 'R' | 'U' | 'I';

export const AGENTS = [
  { id: 'claude-sonnet', kind: 'claude', model: 'sonnet' },
  { id: 'codex-mini', kind: 'codex', model: 'gpt-5-mini' },
  { id: 'gemini-flash', kind: 'gemini', model: 'gemini-2.5-flash' },
] as const;

const PLAN: Record<string, Record<string, readonly [Mark, number, number][]>> = {
  t1: {
    'claude-sonnet': [
      ['R', 0.1, 30],
      ['R', 0.2, 40],
      ['R', 0.3, 50],
    ],
    'codex-mini': [
      ['U', 0.05, 10],
      ['R', 0.05, 10],
      ['U', 0.05, 10],
    ],
    'gemini-flash': [
      ['R', 0.01, 5],
      ['I', 0.005, 1],
      ['U', 0.03, 6],
    ],
  },
  t2: {
    'claude-sonnet': [
      ['R', 0.4, 60],
      ['U', 0.5, 70],
      ['R', 0.6, 80],
    ],
    'codex-mini': [
      ['U', 0.1, 10],
      ['U', 0.1, 10],
      ['R', 0.1, 10],
    ],
    'gemini-flash': [
      ['U', 0.02, 7],
      ['U', 0.04, 8],
      ['U', 0.05, 9],
    ],
  },
};

export function trialRecord(task: string, agentId: string, trial: number, mark: Mark, costUsd: number, seconds: number): TrialRecord {
  const agent = AGENTS.find((a) => a.id === agentId) ?? { id: agentId, kind: 'script', model: null };
  const infra = mark === 'I';
  return {
    task,
    agent: agent.id,
    kind: agent.kind,
    model: agent.model,
    cliVersion: infra ? null : '1.2.3',
    trial,
    outcome: infra
      ? { status: 'failed', reason: 'setup failed: npm ci exited with code 1' }
      : mark === 'R'
        ? { status: 'winner', reason: 'c1 reached 10/10' }
        : { status: 'no_winner', reason: 'no candidate reached the threshold' },
    resolved: mark === 'R',
    score: infra ? 0 : mark === 'R' ? 10 : 4,
    maxScore: 10,
    iterations: mark === 'R' ? 1 : 3,
    costUsd,
    tokens: { input: 1000 * trial, output: 100 * trial },
    durationMs: seconds * 1000,
    infra,
    infraReason: infra ? 'setup failed: npm ci exited with code 1' : null,
    runId: `r-${task}-${agent.id}-${trial}`,
  };
}

/** Every record of the hand-worked bench, in matrix order. */
export function handWorkedRecords(): TrialRecord[] {
  return Object.entries(PLAN).flatMap(([task, byAgent]) =>
    AGENTS.flatMap((agent) => (byAgent[agent.id] ?? []).map(([mark, cost, seconds], i) => trialRecord(task, agent.id, i + 1, mark, cost, seconds))),
  );
}

/** The unsharded run's bench.json. */
export function handWorkedBench(records: readonly TrialRecord[] = handWorkedRecords()): BenchFile {
  return {
    format: 1,
    bench: 'nightly',
    specHash: 'sha256:0123abcd',
    matrix: {
      tasks: [
        { id: 't1', bar: 0.5 },
        { id: 't2', bar: 0.6 },
      ],
      agents: AGENTS.map((a) => ({ ...a })),
      trials: 3,
    },
    shard: null,
    startedAt: '2025-01-10T02:00:00.000Z',
    finishedAt: '2025-01-10T02:30:00.000Z',
    harness: { bestofVersion: '0.1.0', gitCommit: '8b1b4470c0ffee00112233445566778899aabbcc' },
    records,
  };
}
