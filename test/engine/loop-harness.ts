import { SHAPES_ONLY } from '../../src/engine/sandbox/secrets.js';
import { execFileSync } from 'node:child_process';
/**
 * The candidate loop in-process, without the binary: a real temp git repo, a RunPlan made
 * by the real planner from a spec object, real check commands, and a fake Provider object
 * that plays scripted turns (writes files in the worktree, returns a scripted ProviderResult).
 *
 * Checks: five checks `p1` ... `p5` worth 20 points each (`test -f pK`); a turn with
 * `score: 60` leaves exactly p1..p3 in the worktree, so the iteration scores 60.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { vi } from 'vitest';
import { BudgetLedger } from '../../src/engine/loop/budget.js';
import { runCandidate, type CandidateContext, type CandidateEnd } from '../../src/engine/loop/candidate.js';
import type { RunEvent, UnstampedEvent } from '../../src/engine/record/events.js';
import { planRun, type RunPlan } from '../../src/engine/plan/plan.js';
import { ZERO_USAGE, type Outcome, type Provider, type ProviderRequest, type ProviderResult } from '../../src/providers/types.js';
import { specSchema, type SpecInput } from '../../src/spec/schema.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';

export const CHECK_COUNT = 5;
export const POINTS_PER_CHECK = 20;

export const FIVE_CHECKS = Array.from({ length: CHECK_COUNT }, (_, i) => ({ name: `p${i + 1}`, command: `test -f p${i + 1}`, score: POINTS_PER_CHECK }));

export interface Turn {
  readonly outcome?: Outcome;
  /** Leave exactly score / 20 of the files p1..p5 in the worktree. */
  readonly score?: number;
  /** Other files to write, relative to the worktree. */
  readonly write?: Readonly<Record<string, string>>;
  readonly message?: string;
  readonly retryAfterMs?: number;
  readonly costUsd?: number;
  /** Wait this long before answering (ends early with `cancelled` when the signal aborts). */
  readonly delayMs?: number;
  /** Wait until the request's signal aborts, then answer `cancelled`. */
  readonly untilAborted?: boolean;
  /** Work until just past the request's timeoutMs (as an agent cut at its time limit would). */
  readonly untilTimeout?: boolean;
  /** Throw instead of answering (a bug in a provider). */
  readonly throws?: string;
  /** A shell line the agent runs in its worktree after its writes (git moves of its own). */
  readonly shell?: string;
}

export class FakeProvider implements Provider {
  readonly kind = 'command' as const;
  readonly requests: ProviderRequest[] = [];
  closed = 0;
  private next = 0;

  /** The last turn repeats once the script runs out. */
  constructor(private readonly turns: readonly Turn[]) {}

  get prompts(): string[] {
    return this.requests.map((r) => r.prompt);
  }

  async run(request: ProviderRequest): Promise<ProviderResult> {
    this.requests.push(request);
    const turn = this.turns[Math.min(this.next++, this.turns.length - 1)] ?? {};
    const started = Date.now();
    if (turn.throws) throw new Error(turn.throws);
    if (turn.score !== undefined) {
      for (let k = 1; k <= CHECK_COUNT; k++) {
        const file = join(request.cwd, `p${k}`);
        if (k <= turn.score / POINTS_PER_CHECK) writeFileSync(file, `iteration ${request.iteration}\n`);
        else rmSync(file, { force: true });
      }
    }
    for (const [path, content] of Object.entries(turn.write ?? {})) {
      mkdirSync(dirname(join(request.cwd, path)), { recursive: true });
      writeFileSync(join(request.cwd, path), content);
    }
    if (turn.shell !== undefined) execFileSync('bash', ['-c', turn.shell], { cwd: request.cwd, stdio: 'pipe' });
    let outcome = turn.outcome ?? 'success';
    if (turn.untilAborted || turn.untilTimeout || turn.delayMs !== undefined) {
      const ms = turn.untilAborted ? 60_000 : turn.untilTimeout ? request.timeoutMs + 50 : (turn.delayMs as number);
      await sleep(ms, undefined, { signal: request.signal }).catch(() => undefined);
      if (request.signal.aborted) outcome = 'cancelled';
    }
    return {
      outcome,
      text: 'done',
      usage: ZERO_USAGE,
      costUsd: turn.costUsd ?? 0,
      costEstimated: false,
      sessionId: undefined,
      turns: 1,
      durationMs: Date.now() - started,
      ...(turn.message !== undefined ? { message: turn.message } : {}),
      ...(turn.retryAfterMs !== undefined ? { retryAfterMs: turn.retryAfterMs } : {}),
    };
  }

  async close(): Promise<void> {
    this.closed += 1;
  }
}

/** A reviewer that answers the same verdict line every time. */
export class FakeReviewer extends FakeProvider {
  constructor(private readonly verdict: string) {
    super([{}]);
  }

  override async run(request: ProviderRequest): Promise<ProviderResult> {
    const result = await super.run(request);
    return { ...result, text: `Looked at it.\n${this.verdict}\n` };
  }
}

export interface LoopProject {
  readonly repo: TempRepo;
  readonly outside: string;
  cleanup(): void;
}

export function makeLoopProject(): LoopProject {
  const repo = makeTempRepo({ 'README.md': '# loop\n' });
  const outside = makeTempDir('bestof-loop-');
  vi.stubEnv('BESTOF_WORKTREES_DIR', join(outside, 'worktrees'));
  return {
    repo,
    outside,
    cleanup() {
      vi.unstubAllEnvs();
      repo.cleanup();
      rmSync(outside, { recursive: true, force: true });
    },
  };
}

/** A RunPlan with one candidate, from a spec object through the real schema and planner. */
export async function planFor(project: LoopProject, spec: Partial<SpecInput> = {}): Promise<RunPlan> {
  const input: SpecInput = {
    name: 'loop',
    repo: project.repo.dir,
    prompt: { text: 'Make the checks pass.' },
    provider: { kind: 'command', command: 'true' },
    parallel: { candidates: 1 },
    select: { merge: 'branch' },
    checks: { items: FIVE_CHECKS },
    ...spec,
  } as SpecInput;
  const parsed = specSchema.parse(input);
  const specPath = join(project.outside, 'spec.toml');
  writeFileSync(specPath, '# built by the test\n');
  const planned = await planRun({ spec: parsed, specPath, specDir: project.outside, source: '' });
  if (!planned.ok) throw new Error(`plan: ${planned.error.join('; ')}`);
  return planned.value;
}

export interface LoopRun {
  readonly end: CandidateEnd | undefined;
  readonly error: Error | undefined;
  readonly events: RunEvent[];
  readonly provider: FakeProvider;
  readonly reviewer: FakeProvider | undefined;
  /** The candidate.finished event. */
  readonly finished: Extract<RunEvent, { type: 'candidate.finished' }> | undefined;
  of<T extends RunEvent['type']>(type: T): Extract<RunEvent, { type: T }>[];
}

export interface LoopRunOptions {
  readonly reviewer?: FakeProvider;
  readonly signal?: AbortSignal;
  readonly budget?: BudgetLedger;
  readonly runDeadline?: number;
  /** Called with each event as it is emitted (e.g. to abort at a given moment). */
  readonly onEvent?: (event: RunEvent) => void;
}

/** Runs the plan's first candidate with `turns` as its agent. */
export async function runFakeCandidate(plan: RunPlan, turns: readonly Turn[] | FakeProvider, options: LoopRunOptions = {}): Promise<LoopRun> {
  const provider = turns instanceof FakeProvider ? turns : new FakeProvider(turns);
  const events: RunEvent[] = [];
  const candidate = plan.candidates[0];
  if (!candidate) throw new Error('the plan has no candidate');
  const ctx: CandidateContext = {
    plan,
    signal: options.signal ?? new AbortController().signal,
    emit: (event: UnstampedEvent) => {
      const stamped = { t: new Date().toISOString(), ...event } as RunEvent;
      events.push(stamped);
      options.onEvent?.(stamped);
    },
    limitProvider: (_candidate, call) => call(),
    secrets: SHAPES_ONLY,
    createProvider: () => provider,
    ...(options.reviewer ? { createReviewer: () => options.reviewer as FakeProvider } : {}),
    budget: options.budget ?? new BudgetLedger({}),
    ...(options.runDeadline !== undefined ? { runDeadline: options.runDeadline } : {}),
  };
  let end: CandidateEnd | undefined;
  let error: Error | undefined;
  try {
    end = await runCandidate(ctx, candidate);
  } catch (thrown) {
    error = thrown as Error;
  }
  const of = <T extends RunEvent['type']>(type: T): Extract<RunEvent, { type: T }>[] =>
    events.filter((e): e is Extract<RunEvent, { type: T }> => e.type === type);
  return { end, error, events, provider, reviewer: options.reviewer, finished: of('candidate.finished')[0], of };
}
