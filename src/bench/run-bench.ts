/**
 * Runs a bench, or one shard of it: every cell of the slice is a trial (./run-trial.ts), up to
 * `max_concurrency` at once, in matrix order. Limits are checked before a trial starts, never
 * during one: once `time_limit` has passed or `max_total_cost_usd` is spent, the cells left are
 * recorded as infra records "not run" (so a shard's file still covers its whole slice and the
 * merge can tell a short bench from a lost shard), and the rates leave them out.
 *
 * Every record is appended to `<out>/records.jsonl` as its trial ends (the first line names the
 * spec's hash and the shard), so that a bench stopped by Ctrl-C, a kill or a lost CI runner can go
 * on with `--resume`: the cells recorded there are kept, except those that were not run or whose
 * run was cancelled, and only the rest run. Without `--resume` the journal starts anew.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import PQueue from 'p-queue';
import { headCommit } from '../git/worktrees/task-repo.js';
import { formatDuration } from '../spec/duration.js';
import { packageRoot } from '../package-root.js';
import type { LoadedBench } from './bench-spec.js';
import { err, ok, type Result } from '../result.js';
import type { BenchEvent, BenchEventListener } from './events.js';
import { allCells, cellIndex, cellLabel } from './matrix.js';
import { hasOracle } from './oracle.js';
import { infraRecord, prepareTaskRepo, runTrial, trialSpecFile, trialSpecToml, writeTrialSpec, type TaskRepo } from './run-trial.js';
import { cellsOfShard, formatShard } from './shard.js';
import { BENCH_FORMAT_VERSION, type BenchFile, type BenchHarness, type BenchMatrix, type Cell, type Shard, type TrialRecord } from './types.js';

export interface RunBenchOptions {
  readonly bench: LoadedBench;
  /** Where repos/ and trials/ go (bench.json and the reports are the caller's). */
  readonly outDir: string;
  readonly shard: Shard | null;
  readonly signal: AbortSignal;
  readonly bestofVersion: string;
  /** Go on from the journal of an earlier run of this bench in `outDir` (see resumedRecords). */
  readonly resume?: readonly TrialRecord[];
  readonly onEvent?: BenchEventListener;
}

const JOURNAL = 'records.jsonl';

interface JournalHeader {
  readonly journal: 'bestof-bench';
  readonly specHash: string;
  readonly shard: string | null;
}

/**
 * The records an earlier run of this bench left in `outDir` that `--resume` keeps, or why it
 * cannot go on (another spec, another shard, no journal).
 */
export function resumedRecords(outDir: string, bench: LoadedBench, shard: Shard | null): Result<TrialRecord[]> {
  const file = join(outDir, JOURNAL);
  if (!existsSync(file)) return err(`--resume: ${outDir} holds no bench to go on with (no ${JOURNAL}); run it without --resume`);
  const [first, ...lines] = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
  let header: JournalHeader | undefined;
  try {
    header = JSON.parse(first ?? '') as JournalHeader;
  } catch {
    header = undefined;
  }
  if (header?.journal !== 'bestof-bench') return err(`--resume: ${file} is not a bench journal`);
  if (header.specHash !== bench.hash)
    return err(`--resume: the bench spec or a task's spec changed since ${file} was written; run it without --resume to start anew`);
  const wanted = shard ? formatShard(shard) : null;
  if (header.shard !== wanted)
    return err(
      `--resume: ${file} is of ${header.shard ? `shard ${header.shard}` : 'the whole bench'}, not of ${wanted ? `shard ${wanted}` : 'the whole bench'}`,
    );
  const records: TrialRecord[] = [];
  for (const line of lines) {
    try {
      records.push(JSON.parse(line) as TrialRecord);
    } catch {
      // A line cut by a kill: that trial runs again.
    }
  }
  // Trials that did not really run, or were cancelled halfway, run again.
  return ok(records.filter((r) => r.outcome.reason !== 'not_run' && r.outcome.status !== 'cancelled'));
}

export function benchMatrix(bench: LoadedBench): BenchMatrix {
  const { spec } = bench;
  return {
    tasks: spec.tasks.map((t) => ({ id: t.id, bar: t.bar })),
    agents: spec.agents.map((a) => ({ id: a.id, kind: a.kind, model: a.model ?? null })),
    trials: spec.trials,
    // Only a bench with an oracle scores selections: bench.json of one without stays as it was.
    ...([...bench.tasks.values()].some(hasOracle) ? { selections: bench.selections } : {}),
  };
}

export async function runBench(options: RunBenchOptions): Promise<BenchFile> {
  const { bench, outDir, signal } = options;
  const { spec } = bench;
  const matrix = benchMatrix(bench);
  const cells = options.shard ? cellsOfShard(matrix, options.shard) : allCells(matrix);
  const startedAt = new Date();
  const deadline = spec.time_limit !== undefined ? startedAt.getTime() + spec.time_limit : undefined;
  const emit = (event: BenchEvent): void => options.onEvent?.(event);
  const inSlice = new Set(cells.map(cellLabel));
  const kept = new Map((options.resume ?? []).filter((r) => inSlice.has(cellLabel(r))).map((r) => [cellLabel(r), r]));
  const records: TrialRecord[] = [...kept.values()];
  let spent = records.reduce((sum, r) => sum + r.costUsd, 0);
  const journal = join(outDir, JOURNAL);
  const header: JournalHeader = { journal: 'bestof-bench', specHash: bench.hash, shard: options.shard ? formatShard(options.shard) : null };
  writeFileSync(journal, [header, ...records].map((line) => `${JSON.stringify(line)}\n`).join(''));
  emit({
    type: 'bench.started',
    bench: spec.name,
    matrix,
    shard: options.shard,
    cells,
    done: records,
    concurrency: spec.max_concurrency,
    outDir,
    at: Date.now(),
  });
  const repos = new Map<string, Promise<TaskRepo>>();
  const repoOf = (taskId: string): Promise<TaskRepo> => {
    let repo = repos.get(taskId);
    if (!repo) {
      const task = spec.tasks.find((t) => t.id === taskId);
      const loaded = bench.tasks.get(taskId);
      if (!task || !loaded) throw new Error(`no task ${taskId} in the bench spec`);
      repo = prepareTaskRepo(task, loaded, bench.specDir, outDir);
      repos.set(taskId, repo);
    }
    return repo;
  };
  const queue = new PQueue({ concurrency: spec.max_concurrency });
  const record = (r: TrialRecord): void => {
    records.push(r);
    appendFileSync(journal, `${JSON.stringify(r)}\n`);
    emit({ type: 'trial.finished', record: r, at: Date.now() });
  };
  await Promise.all(
    cells
      .filter((cell) => !kept.has(cellLabel(cell)))
      .map((cell) =>
        queue.add(async () => {
          const task = spec.tasks.find((t) => t.id === cell.task);
          const agent = spec.agents.find((a) => a.id === cell.agent);
          const loaded = bench.tasks.get(cell.task);
          if (!task || !agent || !loaded) return;
          const why = signal.aborted
            ? 'the bench was cancelled'
            : deadline !== undefined && Date.now() >= deadline
              ? `time_limit reached (${formatDuration(spec.time_limit ?? 0)}); --resume goes on with a new time_limit from its start`
              : spec.max_total_cost_usd !== undefined && spent >= spec.max_total_cost_usd
                ? `max_total_cost_usd reached ($${spent.toFixed(2)} of $${spec.max_total_cost_usd.toFixed(2)}); a bench with a higher cap is a new spec and starts anew`
                : undefined;
          if (why !== undefined) {
            record(notRun(cell, agent.kind, agent.model ?? null, `not run: ${why}`));
            return;
          }
          emit({ type: 'trial.started', cell, at: Date.now() });
          let taskRepo: TaskRepo;
          try {
            taskRepo = await repoOf(cell.task);
          } catch (error) {
            record(notRun(cell, agent.kind, agent.model ?? null, `the task's repo could not be made: ${(error as Error).message}`));
            return;
          }
          const specFile = trialSpecFile(outDir, cell);
          writeTrialSpec(
            specFile,
            trialSpecToml({
              loaded,
              agentTable: bench.agentTables.get(agent.id) ?? { kind: agent.kind },
              taskRepo,
              name: trialName(spec.name, cell),
              bestOf: spec.best_of,
              ...(task.reference !== undefined ? { reference: { file: resolve(bench.specDir, task.reference), toAgent: agent.reference } } : {}),
            }),
          );
          const oracle = { repo: taskRepo.repo, base: taskRepo.base, workDir: join(outDir, 'oracle'), selections: bench.selections };
          const r = await runTrial({ cell, task, agent, loaded, specFile, cwd: taskRepo.repo, signal, oracle });
          spent += r.costUsd;
          record(r);
        }),
      ),
  );
  records.sort((a, b) => cellIndex(matrix, a) - cellIndex(matrix, b));
  emit({ type: 'bench.finished', cancelled: signal.aborted, at: Date.now() });
  return {
    format: BENCH_FORMAT_VERSION,
    bench: spec.name,
    specHash: bench.hash,
    matrix,
    shard: options.shard,
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    harness: await harness(options.bestofVersion),
    records,
  };
}

/** The run name of a trial (letters, digits, `.`, `_`, `-`; at most 60). */
function trialName(bench: string, cell: Cell): string {
  return `${bench}-${cell.task}-${cell.agent}-${cell.trial}`.slice(0, 60).replace(/[^A-Za-z0-9]+$/, '');
}

function notRun(cell: Cell, kind: string, model: string | null, why: string): TrialRecord {
  return infraRecord(cell, { kind, model }, { status: 'cancelled', reason: 'not_run' }, why);
}

/** What ran the bench: bestof's version, and its commit when it runs from a git checkout. */
async function harness(bestofVersion: string): Promise<BenchHarness> {
  const root = packageRoot();
  const gitCommit = existsSync(join(root, '.git')) ? await headCommit(root).catch(() => null) : null;
  return { bestofVersion, gitCommit };
}
