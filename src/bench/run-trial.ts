/**
 * One trial of a bench: a real `bestof run` of the task's run spec with the agent's table as its
 * only provider, in the task's repo, merging nothing. The same engine, sandbox and honest scoring
 * as any run; a child process per trial, so that trials are as isolated from each other as two
 * runs a user starts (each has its own run key, signals, and process tree), and one that crashes
 * is a record, never the end of the bench.
 *
 * The task's repo: a plain `folder` becomes a git repo of its files (committed once per bench);
 * otherwise the run spec's `repo` is cloned (`--shared`: no objects copied) at its `base`, so that
 * the trials' branches and run folders never land in the team's own repo.
 *
 * What the trial's record says comes from the run's report.json: the best candidate (the winner,
 * or the first of the ranking), its final check results against the task's roles (`resolved`),
 * the run's cost and duration. A run refused before it started (exit 2: a CLI, key or file
 * missing) and a candidate lost to setup or infrastructure are infra failures: apart, not rates.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse, stringify } from 'smol-toml';
import { cloneAt, headCommit, repoAtBase, repoFromFolder, sourceTop } from '../git/worktrees/task-repo.js';
import type { LoadedSpec } from '../spec/load.js';
import { pathsToCheck } from '../spec/file-rules.js';
import { resolveSpecPath } from '../spec/load.js';
import { packageRoot } from '../package-root.js';
import { runProcess } from '../process/run-process.js';
import type { ProcessResult } from '../process/types.js';
import type { BenchAgentSpec, BenchTaskSpec } from './bench-spec.js';
import { hasOracle, runOracle } from './oracle.js';
import { policyPicks, runPicks, type RunPicks } from './picks.js';
import type { BenchSelection, Cell, TrialOracle, TrialRecord } from './types.js';

/** Stop reasons that say the machine, not the agent, failed the trial. */
const INFRA_REASONS = new Set(['setup_failed', 'infrastructure_failed', 'internal_error', 'auth_error']);

export interface TaskRepo {
  readonly repo: string;
  readonly base: string;
  /** Folders the trials' sandbox hides besides the spec's: with `history = "base"`, the source repo (its HEAD holds the task's future). */
  readonly hide?: readonly string[];
}

/** The task's repo for this bench (made once, reused by every trial of the task). */
export async function prepareTaskRepo(task: BenchTaskSpec, loaded: LoadedSpec, benchSpecDir: string, benchDir: string): Promise<TaskRepo> {
  const dir = join(benchDir, 'repos', task.id);
  const source = resolveSpecPath(loaded.specDir, loaded.spec.repo ?? '.');
  const baseOnly = task.folder === undefined && task.history === 'base';
  const hide = baseOnly ? { hide: [await sourceTop(source)] } : {};
  // Made once per bench folder: a second bench in the same folder reuses it.
  if (existsSync(join(dir, '.git'))) return { repo: dir, base: await headCommit(dir), ...hide };
  mkdirSync(dirname(dir), { recursive: true });
  const base =
    task.folder !== undefined
      ? await repoFromFolder(resolve(benchSpecDir, task.folder), dir, `task ${task.id}`)
      : baseOnly
        ? await repoAtBase(source, loaded.spec.base, dir)
        : await cloneAt(source, loaded.spec.base, dir);
  return { repo: dir, base, ...hide };
}

/**
 * The trial's run spec: the task's, with the agent as its only provider (`best_of` candidates),
 * the task's repo and base, nothing merged, and every path made absolute so that the file runs
 * from wherever it is written.
 */
export function trialSpecToml(input: {
  readonly loaded: LoadedSpec;
  readonly agentTable: Record<string, unknown>;
  readonly taskRepo: TaskRepo;
  readonly name: string;
  readonly bestOf: number;
  /**
   * The task's known-good patch (absolute), when it has one: the reference agent (`toAgent`) gets
   * its path as BESTOF_BENCH_REFERENCE; every other agent's sandbox hides its folder.
   */
  readonly reference?: { readonly file: string; readonly toAgent: boolean };
}): string {
  const data = parse(input.loaded.source) as Record<string, unknown>;
  for (const { path, value, rule } of pathsToCheck(data)) {
    if (rule === 'existing-file' && !isAbsolute(value)) setAt(data, path, resolveSpecPath(input.loaded.specDir, value));
  }
  // Programs named by a path relative to the task spec (a reviewer's, a voter's, shannon's).
  const table = (key: string): Record<string, unknown> | undefined => data[key] as Record<string, unknown> | undefined;
  const distinguish = (table('select')?.distinguish as Record<string, unknown> | undefined)?.provider as Record<string, unknown> | undefined;
  const programs = [table('review'), table('shannon'), distinguish, ...(((table('vote')?.voters as unknown[]) ?? []) as Record<string, unknown>[])];
  for (const t of programs) {
    if (t && typeof t.command === 'string' && t.command.includes('/') && !isAbsolute(t.command)) t.command = resolve(input.loaded.specDir, t.command);
  }
  // The oracle never reaches the run: the bench runs it itself once the run is over (./oracle.ts).
  // Its folders are hidden from the run's sandboxed processes all the same (`[sandbox] hide`).
  const checks = data.checks as { items?: { kind?: string; hidden?: string }[] } | undefined;
  const oracleFolders = (checks?.items ?? []).flatMap((item) =>
    item.kind === 'oracle' && typeof item.hidden === 'string' ? [resolveSpecPath(input.loaded.specDir, item.hidden)] : [],
  );
  if (checks?.items) checks.items = checks.items.filter((item) => item.kind !== 'oracle');
  const sandbox = (data.sandbox as Record<string, unknown> | undefined) ?? {};
  const hide = ((sandbox.hide as string[] | undefined) ?? []).map((folder) => resolveSpecPath(input.loaded.specDir, folder));
  // Hidden from the agents beside the oracle: the source repo of a base-only task repo, whose HEAD
  // holds the task's future, and the reference patch's folder for every agent but the reference one.
  const reference = input.reference;
  const more = [...(input.taskRepo.hide ?? []), ...(reference && !reference.toAgent ? [dirname(reference.file)] : [])];
  const hidden = [...hide, ...oracleFolders, ...more];
  if (hidden.length > 0) data.sandbox = { ...sandbox, hide: hidden };
  data.name = input.name;
  data.repo = input.taskRepo.repo;
  data.base = input.taskRepo.base;
  data.provider = input.agentTable;
  if (reference?.toAgent) {
    const provider = input.agentTable;
    data.provider = { ...provider, env: { ...((provider.env as Record<string, string> | undefined) ?? {}), BESTOF_BENCH_REFERENCE: reference.file } };
    // bestof's own known-good change, applied by a trusted command: without the sandbox, which
    // hides HOME and /tmp, where a bench (and so its patches) often lives.
    data.sandbox = { ...((data.sandbox as Record<string, unknown> | undefined) ?? {}), mode: 'off' };
  }
  const parallel: Record<string, unknown> = { ...((data.parallel as Record<string, unknown>) ?? {}), candidates: input.bestOf };
  delete parallel.providers;
  data.parallel = parallel;
  data.select = { ...((data.select as Record<string, unknown>) ?? {}), merge: 'none' };
  return `# A trial of bestof bench, made from ${input.loaded.specPath}\n${stringify(data)}\n`;
}

function setAt(data: Record<string, unknown>, path: readonly (string | number)[], value: string): void {
  let node: unknown = data;
  for (const segment of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[segment];
  (node as Record<string | number, unknown>)[path[path.length - 1] as string | number] = value;
}

/** report.json as far as a trial reads it. */
interface TrialReport {
  runId: string;
  status: TrialRecord['outcome']['status'];
  message?: string;
  winner: string | null;
  /** Each selection policy's pick (absent from a bestof before them: ./picks.ts). */
  picks?: RunPicks;
  costUsd: number;
  /** false when some agent call reported no cost (src/report/report.ts). */
  costKnown?: boolean;
  durationMs: number;
  ranking: { candidate: string }[];
  candidates: {
    id: string;
    status: string;
    reason: string | null;
    message: string | null;
    score: number | null;
    maxScore: number;
    iterations: number;
    usage: { input: number; output: number };
    cli: { version?: string } | null;
    tampered: boolean;
    /** What it changed of the kept paths, by rule (absent from a bestof before them). */
    tamperedPaths?: { path: string; rule?: string }[];
    ref?: string;
    commit?: string | null;
    history: { iteration: number; checks?: { name: string; passed: boolean }[] }[];
  }[];
}

export interface TrialRun {
  readonly cell: Cell;
  readonly task: BenchTaskSpec;
  readonly agent: BenchAgentSpec;
  readonly loaded: LoadedSpec;
  /** The trial's spec file (written by the caller with trialSpecToml). */
  readonly specFile: string;
  readonly cwd: string;
  readonly signal: AbortSignal;
  /** Where the task's oracle runs, when it has one: the task's repo and base, the bench's folder for it, the selections to score. */
  readonly oracle?: {
    readonly repo: string;
    readonly base: string;
    readonly workDir: string;
    readonly selections: readonly BenchSelection[];
  };
}

/** The record of a trial the machine lost, or that never ran: no score, no cost, out of the rates. */
export function infraRecord(
  cell: Cell,
  agent: { readonly kind: string; readonly model: string | null },
  outcome: TrialRecord['outcome'],
  why: string,
  durationMs = 0,
): TrialRecord {
  return {
    task: cell.task,
    agent: cell.agent,
    kind: agent.kind,
    model: agent.model,
    cliVersion: null,
    trial: cell.trial,
    outcome,
    resolved: false,
    score: 0,
    maxScore: 0,
    iterations: 0,
    costUsd: 0,
    tokens: { input: 0, output: 0 },
    durationMs,
    infra: true,
    infraReason: why,
    runId: '',
  };
}

/** Runs one trial and returns its record; never throws for what the run did. */
export async function runTrial(trial: TrialRun): Promise<TrialRecord> {
  const started = Date.now();
  // The trial's place in the matrix, for the agent and the checks (bestof passes its environment on).
  const env = { ...process.env, BESTOF_BENCH_TASK: trial.cell.task, BESTOF_BENCH_AGENT: trial.cell.agent, BESTOF_BENCH_TRIAL: String(trial.cell.trial) };
  const result = await runBestof(['run', trial.specFile, '--json', '--no-tui'], trial.cwd, env, trial.signal);
  const base = {
    task: trial.cell.task,
    agent: trial.cell.agent,
    kind: trial.agent.kind,
    model: trial.agent.model ?? null,
    trial: trial.cell.trial,
  };
  let report: TrialReport | undefined;
  try {
    report = JSON.parse(result.stdout) as TrialReport;
  } catch {
    report = undefined;
  }
  if (!report) {
    // Cancelled before the run could say anything (the signal came before its handler was set):
    // a cancelled trial, which --resume runs again, not a crash of the machine's.
    const cancelled = trial.signal.aborted;
    // How the trial's bestof ended, and its last words, even when cancelled: a run that had begun
    // prints its report when it is cancelled, so a missing one after a cancel is worth reading.
    const ended =
      result.spawnError ??
      (result.signal
        ? `bestof was ended by ${result.signal}`
        : result.exitCode !== undefined
          ? `bestof exited with ${result.exitCode}`
          : 'bestof was not started');
    const said = lastLines(result.stderr);
    const why = cancelled ? `cancelled before its run recorded anything (${ended}${said ? `: ${said}` : ''})` : said || ended;
    const outcome: TrialRecord['outcome'] = cancelled
      ? { status: 'cancelled', reason: 'cancelled' }
      : { status: 'failed', reason: result.exitCode === 2 ? 'refused' : 'crashed' };
    return infraRecord(trial.cell, { kind: trial.agent.kind, model: trial.agent.model ?? null }, outcome, why, Date.now() - started);
  }
  const best = report.candidates.find((c) => c.id === (report.winner ?? report.ranking[0]?.candidate)) ?? report.candidates[0];
  const allInfra = report.candidates.length > 0 && report.candidates.every((c) => c.reason !== null && INFRA_REASONS.has(c.reason));
  const oracle = allInfra ? undefined : await trialOracle(trial, report, env);
  const tampered = frozenPathsChanged(report);
  const tokens = report.candidates.reduce((sum, c) => ({ input: sum.input + c.usage.input, output: sum.output + c.usage.output }), { input: 0, output: 0 });
  return {
    ...base,
    cliVersion: best?.cli?.version ?? null,
    outcome: { status: report.status, reason: best?.reason ?? report.status },
    resolved: best !== undefined && !allInfra && (trial.task.resolved_by === 'oracle' ? passesOracle(best, oracle) : isResolved(best, trial.loaded)),
    score: best?.score ?? 0,
    maxScore: best?.maxScore ?? 0,
    iterations: best?.iterations ?? 0,
    costUsd: report.costUsd,
    ...(report.costKnown === false ? { costKnown: false as const } : {}),
    tokens,
    durationMs: report.durationMs,
    infra: allInfra,
    infraReason: allInfra ? `${best?.reason}: ${best?.message ?? ''}`.trim() : null,
    runId: report.runId,
    ...(oracle ? { oracle } : {}),
    ...(tampered.length > 0 ? { tampered } : {}),
  };
}

/**
 * The frozen paths any candidate of the run changed, as the run's selection reads them (a path of
 * `[checks] editable`'s rule is reverted before a merge, not a cheat). Every candidate, not only
 * the one judged: with best_of = 2, an agent that cheats in one candidate cheated in the trial.
 */
function frozenPathsChanged(report: TrialReport): string[] {
  const paths = report.candidates.flatMap((c) => (c.tamperedPaths ?? []).filter((p) => (p.rule ?? 'frozen') === 'frozen').map((p) => p.path));
  return [...new Set(paths)].sort();
}

/** The oracle on every candidate of the trial, and each selection's pick against it; none when the task has no oracle. */
async function trialOracle(trial: TrialRun, report: TrialReport, env: NodeJS.ProcessEnv): Promise<TrialOracle | undefined> {
  if (!trial.oracle || !hasOracle(trial.loaded)) return undefined;
  const candidates = await runOracle({
    repo: trial.oracle.repo,
    base: trial.oracle.base,
    loaded: trial.loaded,
    runId: report.runId,
    candidates: report.candidates.map((c) => ({ id: c.id, ref: c.ref ?? null, commit: c.commit ?? null })),
    workDir: trial.oracle.workDir,
    env,
    signal: trial.signal,
  });
  return { candidates, picks: policyPicks(trial.oracle.selections, runPicks(report), candidates) };
}

/**
 * SWE-bench's rule: every fail-to-pass and pass-to-pass check passed in the final scoring (a check
 * that did not run counts as failed); in a task without roles, every check passed. A candidate
 * that changed a frozen path is never resolved.
 */
export function isResolved(candidate: TrialReport['candidates'][number], loaded: LoadedSpec): boolean {
  if (candidate.tampered) return false;
  const final = candidate.history.find((h) => h.iteration === candidate.iterations)?.checks ?? [];
  const passed = new Set(final.filter((k) => k.passed).map((k) => k.name));
  const items = loaded.spec.checks.items;
  const roles = items.filter((k) => k.kind === 'fail_to_pass' || k.kind === 'pass_to_pass');
  // The oracle is never in the run's checks (./oracle.ts judges it apart).
  const needed = roles.length > 0 ? roles : items.filter((k) => k.kind !== 'oracle');
  return needed.length > 0 && needed.every((k) => passed.has(k.name));
}

/** `resolved_by = "oracle"`: the trial's candidate passed every oracle check, and did not tamper. */
function passesOracle(candidate: TrialReport['candidates'][number], oracle: TrialOracle | undefined): boolean {
  if (candidate.tampered) return false;
  return oracle?.candidates.find((v) => v.candidate === candidate.id)?.passed === true;
}

function lastLines(text: string, n = 3): string {
  return text.trim().split('\n').slice(-n).join(' / ');
}

/**
 * `bestof <args>` as a child. On abort it gets SIGTERM, bestof's clean cancel (every agent stopped,
 * its work committed and kept), and a minute for it before the SIGKILL.
 */
function runBestof(args: readonly string[], cwd: string, env: NodeJS.ProcessEnv, signal: AbortSignal): Promise<ProcessResult> {
  return runProcess(process.execPath, [join(packageRoot(), 'bin', 'bestof.js'), ...args], {
    cwd,
    env,
    signal,
    killGraceMs: 60_000,
    maxBufferTail: 64 * 1024 * 1024,
  });
}

export function trialSpecFile(benchDir: string, cell: Cell): string {
  return join(benchDir, 'trials', cell.task, cell.agent, `trial-${cell.trial}.toml`);
}

export function writeTrialSpec(file: string, toml: string): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, toml);
}
