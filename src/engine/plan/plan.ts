/**
 * From a valid spec to a RunPlan: every question that can be answered before anything is
 * created (is this a git repo, does `base` exist, can every agent be started, are the
 * scripts valid) is answered here, so that bad input fails with exit 2 and no side effect:
 * no worktree, no branch, no run folder.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';
import { currentBranch, dirtyPaths, openRepo, resolveCommit } from '../../git/running/repo.js';
// providers/definitions.js loads a kind's file on its first use: a spec's agents need only their own kinds.
import { prepareAgent, traitsOf } from '../../providers/definitions.js';
import type { PreparedAgent } from '../../providers/types.js';
import { resolveSpecPath, type LoadedSpec } from '../../spec/load.js';
import { oracleChecks, withoutOracleChecks } from '../../spec/oracle-checks.js';
import type { ProviderSettings, Spec } from '../../spec/schema.js';
import type { CandidateInfo } from '../record/run-types.js';
import { runDirOf } from '../record/run-folder.js';
import { machineProblems, promptArgumentProblems } from './plan-machine.js';
import { hiddenPathWarnings, networkWarnings, resolveSandbox, type SandboxPlan } from '../sandbox/agent-sandbox.js';
import { missingProgramWarnings } from './check-programs.js';
import { mergeTargetProblem, suggestedBranch } from './merge-preflight.js';
import { err, ok, type Result } from '../../result.js';
import type { OverlayMounts } from '../../git/worktrees/cow-worktree.js';
import { runnerFilesOf, type RunnerFiles } from '../../checks/runner-defaults.js';
import { noEditableWarnings, unfinishedTaskProblems } from './plan-advice.js';
import { planHiddenChecks } from './hidden-checks.js';
import { planDistinguish, type DistinguishPlan } from './distinguish-plan.js';
import { checkVoters, planReview, type ReviewPlan } from './plan-judges.js';
import type { PlanContext } from './plan-context.js';

export { juryVoterSettings, type ReviewPlan } from './plan-judges.js';

export { NO_EDITABLE_WARNING } from './plan-advice.js';

export interface CandidatePlan extends CandidateInfo {
  readonly settings: ProviderSettings;
  readonly port: number;
  /** What the provider's prepare resolved for this candidate's agent (script, program path). */
  readonly agent: PreparedAgent;
}

export interface RunPlan {
  readonly runId: string;
  /**
   * Random, kept in the run folder and across resumes: every process the run starts carries it
   * as BESTOF_RUN_KEY, so that what a killed bestof left running can be found and stopped
   * (../sandbox/leftovers.ts).
   */
  readonly runKey: string;
  readonly spec: Spec;
  readonly specPath: string;
  readonly specDir: string;
  readonly specSource: string;
  readonly repoRoot: string;
  readonly baseCommit: string;
  /** The branch a winner is merged into (merge, squash, ff, pr). */
  readonly into: string | undefined;
  readonly prompt: string;
  readonly runDir: string;
  readonly candidates: readonly CandidatePlan[];
  readonly maxScore: number;
  readonly scoreThreshold: number;
  /** loop.max_iterations, or the phases' total, or 1; never past HARD_ITERATION_LIMIT. */
  readonly maxIterations: number;
  /** What the spec asked for before the hard limit. */
  readonly requestedIterations: number;
  readonly phases: readonly PhasePlan[];
  /** `[prompt] retry_prompt_file`, read. */
  readonly retryTemplate?: string;
  readonly review?: ReviewPlan;
  /** `[select.distinguish]`: the tester and the command that runs one of its files. */
  readonly distinguish?: DistinguishPlan;
  /** Notes for the user that do not stop the run (e.g. a dirty checkout that will refuse the merge). */
  readonly warnings: readonly string[];
  /** Absolute folders no sandboxed process sees beyond the usual ones: `[sandbox] hide`, the oracle checks' folders. */
  readonly hide?: readonly string[];
  /** Whether agents run in bubblewrap (`[sandbox] mode` against what this machine can do). */
  readonly sandbox: SandboxPlan;
  /**
   * Copy-on-write worktrees in effect (`[git] worktrees = "copy-on-write"`, and this bestof runs in
   * a mount namespace where it can mount them: src/cli/worktree-mode.ts). Undefined: plain worktrees.
   */
  readonly cow?: { readonly mounts: OverlayMounts };
  /**
   * The test runners' files of the kinds of project base holds, kept as in base beside the spec's
   * frozen and protected paths where `editable` does not cover them (../../checks/runner-defaults.ts).
   * @default none
   */
  readonly runner?: RunnerFiles;
}

/** No spec can lift a candidate past this many iterations. */
export const HARD_ITERATION_LIMIT = 100;

export interface PhasePlan {
  readonly name: string;
  readonly prompt: string;
  readonly iterations: number;
  readonly model?: string;
  readonly scoreThreshold?: number;
}

/** The plan, or every problem found (each with its spec key), so that the user fixes them in one go. */
export type PlanResult = Result<RunPlan, string[]>;

export function newRunId(now = new Date()): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  const date = `${now.getFullYear()}${pad(now.getMonth() + 1)}${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}${pad(now.getMinutes())}${pad(now.getSeconds())}`;
  return `${date}-${time}-${randomBytes(2).toString('hex')}`;
}

/** Worktrees live outside the repo so that the main checkout's tools never crawl into them. */
export function worktreesRoot(repoRoot: string): string {
  const configured = process.env.BESTOF_WORKTREES_DIR;
  if (configured) return configured;
  const cache = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  const id = createHash('sha256').update(repoRoot).digest('hex').slice(0, 8);
  return join(cache, 'bestof', 'worktrees', `${basename(repoRoot)}-${id}`);
}

function defaultLabel(settings: ProviderSettings, index: number, sameKind: number): string {
  // The spec's label, else the kind's own (a command agent is named by its program), else kind and model.
  const label = settings.label ?? traitsOf(settings.kind).label?.(settings);
  if (label) return label;
  const base = settings.model ? `${settings.kind}:${settings.model}` : settings.kind;
  return sameKind > 1 ? `${base}#${index}` : base;
}

export interface PlanOptions {
  /** Reuse a run id (resume). */
  readonly runId?: string;
  /** Reuse the run's key (resume: the one recorded in its run folder). */
  readonly runKey?: string;
  /** Pin the base commit (resume: the commit the run started from, even if `base` moved). */
  readonly baseCommit?: string;
}

export async function planRun(loaded: LoadedSpec, options: PlanOptions = {}): Promise<PlanResult> {
  const { spec, specDir } = { ...loaded, spec: withoutOracleChecks(loaded.spec) };
  // What no sandboxed process may read: `[sandbox] hide`, and the folders of the oracle checks the run leaves out.
  const hide = [...loaded.spec.sandbox.hide, ...oracleChecks(loaded.spec).flatMap((check) => (check.hidden !== undefined ? [check.hidden] : []))].map(
    (folder) => resolveSpecPath(specDir, folder),
  );
  const problems: string[] = [];
  const warnings: string[] = [];

  const repo = await openRepo(spec.repo ? resolveSpecPath(specDir, spec.repo) : specDir);
  if (!repo.ok) return err([`repo: ${repo.error}`]);
  const repoRoot = repo.value.root;
  const base = options.baseCommit ?? spec.base;
  // HEAD was resolved as the repository was opened, a moment ago.
  const baseCommit = base === 'HEAD' ? repo.value.head : await resolveCommit(repoRoot, base);
  if (!baseCommit) problems.push(`base: "${spec.base}" is not a commit in ${repoRoot} (use a branch, tag or commit that exists)`);
  // The test runners' files of the kinds of project base holds: read while the rest is planned.
  const runnerFiles = baseCommit
    ? runnerFilesOf(repoRoot, baseCommit).then(
        (files) => ok(files),
        (error: unknown) => err(error instanceof Error ? error.message : String(error)),
      )
    : undefined;
  const prompt = spec.prompt.file ? await readSpecFile({ specDir, problems }, 'prompt.file', spec.prompt.file) : (spec.prompt.text ?? '');
  problems.push(...unfinishedTaskProblems(spec, prompt));

  const runId = options.runId ?? newRunId();
  const sandbox = await resolveSandbox(spec.sandbox.mode);
  if (!sandbox.ok) problems.push(sandbox.error);
  else if (sandbox.value.warning) warnings.push(sandbox.value.warning);
  const context: PlanContext = { spec, specDir, scripts: new Map(), sandboxed: sandbox.ok && sandbox.value.enabled, problems };
  warnings.push(...checkSandboxWarnings(spec, context.sandboxed));
  warnings.push(...(await missingProgramWarnings(spec.checks.items, process.env.PATH ?? '')));
  const root = worktreesRoot(repoRoot);
  problems.push(...(await machineProblems(spec, repoRoot, root)));
  const { candidates, promptAsArgument } = await planCandidates(context, runId, root);

  const into = await planMergeTarget(spec, repoRoot, problems, warnings);
  if (baseCommit) problems.push(...(await unmatchedGlobs(repoRoot, baseCommit, spec.checks)));
  warnings.push(...noEditableWarnings(spec));
  if (spec.checks.items.length === 0) {
    warnings.push('the spec has no [[checks.items]]: every candidate scores 0, and the winner is chosen by the tie-break alone');
  }

  const phases = await planPhases(context);
  const retryTemplate = spec.prompt.retry_prompt_file ? await readSpecFile(context, 'prompt.retry_prompt_file', spec.prompt.retry_prompt_file) : undefined;
  problems.push(...promptArgumentProblems(promptAsArgument, [prompt, ...phases.map((phase) => phase.prompt)]));
  const review = await planReview(context);
  await checkVoters(context);
  const distinguish = await planDistinguish(spec, context);

  // Each `hidden` absolute from here on; the folders judged (./hidden-checks.ts).
  const hidden = await planHiddenChecks(spec, { specDir, repoRoot, baseCommit, sandboxed: context.sandboxed });
  problems.push(...hidden.problems);
  warnings.push(...hidden.warnings);
  const runner = await runnerFiles;
  if (runner && !runner.ok) problems.push(`base: the test runners' files of ${baseCommit} could not be read: ${runner.error}`);
  if (problems.length > 0 || !sandbox.ok) return err(problems);
  const phaseIterations = phases.reduce((sum, phase) => sum + phase.iterations, 0);
  const requestedIterations = spec.loop.max_iterations ?? (phases.length > 0 ? phaseIterations : 1);
  const maxIterations = Math.min(HARD_ITERATION_LIMIT, requestedIterations);
  const maxScore = spec.checks.items.reduce((sum, item) => sum + item.score, 0) + (review?.score ?? 0);
  return ok({
    runId,
    runKey: options.runKey ?? randomBytes(8).toString('hex'),
    spec: hidden.spec,
    specPath: loaded.specPath,
    specDir,
    specSource: loaded.source,
    repoRoot,
    baseCommit: baseCommit as string,
    into,
    prompt,
    runDir: runDirOf(repoRoot, runId),
    candidates,
    maxScore,
    scoreThreshold: spec.loop.score_threshold ?? maxScore,
    maxIterations,
    requestedIterations,
    phases,
    ...(retryTemplate !== undefined ? { retryTemplate } : {}),
    ...(review ? { review } : {}),
    ...(distinguish ? { distinguish } : {}),
    warnings,
    sandbox: sandbox.value,
    ...(hide.length > 0 ? { hide } : {}),
    ...(runner?.ok ? { runner: runner.value } : {}),
  });
}

/** A file the spec names under `key`, read; a file that cannot be read is a problem, and reads as empty. */
async function readSpecFile(context: Pick<PlanContext, 'specDir' | 'problems'>, key: string, file: string): Promise<string> {
  try {
    return await readFile(resolveSpecPath(context.specDir, file), 'utf8');
  } catch {
    context.problems.push(`${key}: cannot read ${resolveSpecPath(context.specDir, file)}`);
    return '';
  }
}

/** What the checks' sandbox settings leave open, said before the run. */
function checkSandboxWarnings(spec: Spec, sandboxed: boolean): string[] {
  if (!sandboxed) return [];
  if (!spec.sandbox.checks) {
    return [
      "sandbox.checks = false: the checks run WITHOUT the sandbox, as you: the candidates' code they load can write your HOME, the other worktrees, the refs and the run folder",
    ];
  }
  return [...hiddenPathWarnings(spec, process.env), ...(spec.sandbox.check_network === 'own' ? networkWarnings(spec) : [])];
}

/**
 * The N candidates: the `[[parallel.providers]]` entries (or `[provider]` alone) cycled over
 * `parallel.candidates`, each agent prepared (a problem when it cannot start). Also the keys of the
 * `command` agents given the prompt as an argument (`{prompt}`, or no `args`), whose length the
 * caller checks against the prompts.
 */
async function planCandidates(context: PlanContext, runId: string, root: string): Promise<{ candidates: CandidatePlan[]; promptAsArgument: Set<string> }> {
  const { spec, specDir, scripts, sandboxed, problems } = context;
  const entries = spec.parallel.providers.length > 0 ? spec.parallel.providers : [{}];
  const count = spec.parallel.candidates ?? (spec.parallel.providers.length > 0 ? spec.parallel.providers.length : 3);
  const settingsOf = (i: number): ProviderSettings => ({ ...spec.provider, ...stripUndefined(entries[i % entries.length] ?? {}) });
  const kindCount = new Map<string, number>();
  for (let i = 0; i < count; i++) {
    const { kind } = settingsOf(i);
    kindCount.set(kind, (kindCount.get(kind) ?? 0) + 1);
  }
  const candidates: CandidatePlan[] = [];
  const promptAsArgument = new Set<string>();
  for (let i = 0; i < count; i++) {
    const entryIndex = i % entries.length;
    const key = spec.parallel.providers.length > 0 ? `parallel.providers[${entryIndex}]` : 'provider';
    const settings = settingsOf(i);
    const index = i + 1;
    const id = `c${index}`;
    const prepared = await prepareAgent(settings, { specDir, key, scripts, sandboxed, shannon: spec.shannon });
    if (!prepared.ok && !problems.includes(prepared.error)) problems.push(prepared.error);
    if (traitsOf(settings.kind).promptAsArgument?.(settings)) promptAsArgument.add(key);
    candidates.push({
      id,
      index,
      label: defaultLabel(settings, index, kindCount.get(settings.kind) ?? 1),
      provider: settings.kind,
      model: settings.model,
      branch: `${spec.git.branch_prefix}/${runId}/${id}`,
      // `<id>/kept`, not `<id>`: the short name `bestof/<run>/<id>` must mean only the branch.
      ref: `refs/bestof/${runId}/${id}/kept`,
      worktree: join(root, runId, id),
      settings,
      port: spec.setup.base_port + index,
      agent: prepared.ok ? prepared.value : {},
    });
  }
  return { candidates, promptAsArgument };
}

/**
 * The branch a winner is merged into (`[select] into`, else the checked-out one, for the modes that
 * merge or open a PR), and what stands in the way of that merge: a problem when it cannot happen, a
 * warning when your checkout's uncommitted changes will make git refuse it at the end.
 */
async function planMergeTarget(spec: Spec, repoRoot: string, problems: string[], warnings: string[]): Promise<string | undefined> {
  let into = spec.select.into;
  const merging = spec.select.merge === 'merge' || spec.select.merge === 'squash' || spec.select.merge === 'ff';
  if (!merging && spec.select.merge !== 'pr') return into;
  const checkedOut = await currentBranch(repoRoot);
  into ??= checkedOut;
  // One way out, said once (./merge-preflight.ts): on a detached HEAD, setting `into` alone
  // would only lead to "not the checked-out branch".
  const suggested = checkedOut === undefined ? await suggestedBranch(repoRoot, spec.base) : undefined;
  const target = mergeTargetProblem({ mode: spec.select.merge, into: spec.select.into, checkedOut, suggested });
  if (target !== undefined) problems.push(target);
  else if (merging && into === checkedOut) {
    const dirty = await dirtyPaths(repoRoot);
    if (dirty.length > 0) {
      warnings.push(
        `your checkout has uncommitted changes (${dirty.slice(0, 3).join(', ')}${dirty.length > 3 ? ', …' : ''}): the merge at the end will be refused unless you commit or stash them; the candidates work from ${spec.base} either way`,
      );
    }
  }
  return into;
}

/** `[[prompts]]`, each with its prompt read. */
async function planPhases(context: PlanContext): Promise<PhasePlan[]> {
  const phases: PhasePlan[] = [];
  for (const [i, phase] of context.spec.prompts.entries()) {
    phases.push({
      name: phase.name,
      prompt: phase.file ? await readSpecFile(context, `prompts[${i}].file`, phase.file) : (phase.text ?? ''),
      iterations: phase.iterations,
      ...(phase.model ? { model: phase.model } : {}),
      ...(phase.score_threshold !== undefined ? { scoreThreshold: phase.score_threshold } : {}),
    });
  }
  return phases;
}

/**
 * A `frozen` or `editable` glob that matches no file in base protects nothing (or, for
 * `editable`, would revert every change under it): a typo such as `test/**` where the tests
 * are `test.js` must stop the run, not pass silently. `protected` is the key for what is meant to
 * match nothing (`**\/conftest.py` where base has none: it keeps candidates from adding one), so an
 * unmatched frozen pattern is pointed there too.
 */
async function unmatchedGlobs(repoRoot: string, baseCommit: string, checks: Spec['checks']): Promise<string[]> {
  const problems: string[] = [];
  // Loaded only for a spec with globs to match: `bestof validate` of one without pays for none of it.
  if (checks.frozen.length === 0 && checks.editable.length === 0) return problems;
  const [{ frozenPathspecs, globsMatching }, { topLevelPaths }] = await Promise.all([import('../../checks/frozen.js'), import('../../git/history/tree.js')]);
  const matching = await globsMatching(repoRoot, baseCommit, [...checks.frozen, ...checks.editable]);
  let topLevel: string[] | undefined;
  for (const key of ['frozen', 'editable'] as const) {
    for (const [i, glob] of checks[key].entries()) {
      if (matching.has(glob) || frozenPathspecs([glob]).length === 0) continue;
      topLevel ??= await topLevelPaths(repoRoot, baseCommit);
      const shown = topLevel.slice(0, 12).join(', ') + (topLevel.length > 12 ? ', …' : '');
      problems.push(
        `checks.${key}[${i}]: ${JSON.stringify(glob)} matches no file in base ${baseCommit.slice(0, 10)}, so it ${key === 'frozen' ? 'protects nothing' : 'allows a change to no existing file'}; ` +
          `the top level there is: ${shown || '(empty)'}. Fix the glob (\`*\` stays inside one folder, \`**\` crosses folders; a folder name covers what is under it) or remove it` +
          (key === 'frozen'
            ? `; or, to keep candidates from adding such a file, move it to checks.protected, which need not match a file of base${anywhereHint(glob)}`
            : ''),
      );
    }
  }
  return problems;
}

/** For an unmatched frozen path that names one file or folder: the `**\/` form that covers it in every folder. */
function anywhereHint(glob: string): string {
  const path = glob.replace(/^(\.\/|\/)+/, '');
  return path.startsWith('**/') || path.startsWith(':') || /[*?[\]\\]/.test(path.replace(/\/\*\*$/, ''))
    ? ''
    : ` (as ${JSON.stringify(`**/${path}`)} for every folder)`;
}

function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
