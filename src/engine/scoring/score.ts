/**
 * Scoring one commit of a candidate with the frozen checks: the worktree becomes exactly the
 * commit with `base`'s frozen paths (and `base`'s version of whatever changed outside
 * `[checks] editable`), the setup paths and nothing else, in place (cost proportional to what
 * the candidate touched, never a second checkout; see src/checks/scoring-tree.ts); the checks run,
 * with base's kept files watched (../workspace/kept-files-watch.ts: changed while they ran, the scoring counts
 * no point); the candidate's own files, leftovers included, are put back after.
 */
import type { Env } from '../../env.js';
import { lstat, mkdir, mkdtemp } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { findEditableViolations, findTampering } from '../../checks/frozen.js';
import { runnerKept, withNotes, type RunnerFiles } from '../../checks/runner-defaults.js';
import { prepareScoringTree, putBackScoringTree, removeNewLeftovers, type ScoringTree, type ScoringTreeOptions } from '../../checks/scoring-tree.js';
import { runChecks } from '../../checks/run-checks.js';
import type { CheckSpec } from '../../spec/schema.js';
import type { TamperedPath } from '../../checks/frozen.js';
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { TestCaseResult } from '../../checks/test-report/types.js';
import type { LogRedactor } from '../../process/types.js';
import type { SandboxLayout } from '../../process/sandbox.js';
import type { SetupGuard } from '../workspace/setup-guard.js';
import { checkHomesDir } from '../sandbox/agent-sandbox.js';
import { removeTree } from '../../owned-tree.js';
import { watchKeptFiles } from '../workspace/kept-files-watch.js';
import { replacedFolder, watchWorktreeOwnFiles, WorktreeReplacedError, type OwnFilesWatch } from '../../git/guards/guard.js';

export interface ScoreOptions {
  readonly worktree: string;
  readonly baseCommit: string;
  readonly commit: string;
  readonly frozen: readonly string[];
  /** `[checks] editable`: changes outside it are put back as in base and reported. @default [] (everything) */
  readonly editable?: readonly string[];
  /**
   * The test runners' files of the plan (RunPlan.runner): kept as in base with `frozen`, but where
   * `editable` covers them (../../checks/runner-defaults.ts). @default none
   */
  readonly runner?: RunnerFiles | undefined;
  readonly checks: readonly CheckSpec[];
  /** Untracked files from setup that must survive the clean-up after the checks. */
  readonly keepPaths: readonly string[];
  readonly env: Env;
  readonly logDir: string;
  /** Secret redaction for the checks' logs. @default none */
  readonly logRedactor?: (() => LogRedactor) | undefined;
  readonly signal: AbortSignal;
  readonly onCheck?: (outcome: CheckOutcome) => void;
  /** What setup made, watched between scorings (../workspace/setup-guard.ts): changed by an agent, it is made anew before the checks. */
  readonly setupGuard?: SetupGuard | undefined;
  /** The checks' sandbox, made for the scoring's fresh HOME (../sandbox/agent-sandbox.ts checkSandbox); none: the checks run as the user. */
  readonly checkSandbox?: ((home: string) => SandboxLayout | undefined) | undefined;
  /** The commit step has just left HEAD on this branch at `commit`, index bits cleared, no agent running since (ScoringTreeOptions). @default read */
  readonly justCommitted?: ScoringTreeOptions['justCommitted'];
  /** Base's tests by report check (./base-reference.ts): each report check is held to them. @default none: a report alone decides */
  readonly reference?: ReadonlyMap<string, readonly TestCaseResult[]> | undefined;
}

export interface Scoring {
  readonly score: number;
  readonly maxScore: number;
  readonly checks: readonly CheckOutcome[];
  readonly tampered: readonly TamperedPath[];
  /** The checks were interrupted by a cancel: the score is not complete. */
  readonly interrupted: boolean;
  /** Where the candidate's branch had been moved to before the checks (put back at the commit for them). */
  readonly headMovedFrom?: string;
  /** Setup output an agent had changed (paths), made anew for the checks; `error` when setup failed again. */
  readonly setupRebuilt?: {
    readonly changed: readonly string[];
    readonly error?: string;
    /** Untracked or ignored entries it left beside the setup paths, removed before the checks. */
    readonly removed?: readonly string[];
  };
  /**
   * Base's kept files that changed while the checks ran (also in `tampered`): the score is 0, whatever
   * the checks said (../workspace/kept-files-watch.ts).
   */
  readonly keptFilesChanged?: readonly TamperedPath[];
}

export async function scoreCommit(options: ScoreOptions): Promise<Scoring> {
  const editable = options.editable ?? [];
  // The runner's files this commit is scored with (base's, and those it changed), as literal paths beside the spec's kept patterns.
  const runner = await runnerKept(options.worktree, {
    base: options.baseCommit,
    commit: options.commit,
    runner: options.runner,
    editable,
    signal: options.signal,
  });
  const kept = [...options.frozen, ...runner.pathspecs];
  const rules = { base: options.baseCommit, commit: options.commit, frozen: kept };
  if (options.checks.length === 0) {
    // Nothing to run: what broke the rules is still recorded, without touching the worktree.
    const frozen = kept.length > 0 ? await findTampering(options.worktree, rules) : [];
    const outside = await findEditableViolations(options.worktree, { ...rules, editable });
    return { score: 0, maxScore: 0, checks: [], tampered: withNotes([...frozen, ...outside], runner.notes), interrupted: false };
  }
  // The folder as the scoring finds it, looked at again before every step that follows code of the candidate's.
  const guard = await guardWorktree(options.worktree);
  // A fresh, empty HOME per scoring: no `~/.npmrc`, `~/.gitconfig` or folder on PATH that an agent
  // left there is read by the checks. Unpredictable, and only there while the checks run (a run
  // killed meanwhile leaves it among the agents' HOMEs, which `bestof clean` removes).
  const homes = checkHomesDir(options.worktree);
  await mkdir(homes, { recursive: true });
  const home = await mkdtemp(join(homes, `${basename(options.worktree)}-checks-`));
  let prepared: ScoringTree | undefined;
  let headMovedFrom: string | undefined;
  let run: ChecksRun;
  try {
    prepared = await prepareScoringTree(options.worktree, { ...rules, editable, keep: options.keepPaths, justCommitted: options.justCommitted });
    headMovedFrom = prepared.headMovedFrom;
    run = await runChecksInTree(options, prepared, { home, kept, guard });
  } finally {
    const branchMovedTo = await putBackAfterChecks(options, { guard, home, prepared });
    headMovedFrom ??= branchMovedTo;
  }
  const { checks, tampered, setupRebuilt, keptFilesChanged } = run;
  return {
    // The checks' points are not the candidate's when its code changed what the spec keeps (../workspace/kept-files-watch.ts).
    score: keptFilesChanged ? 0 : checks.reduce((sum, c) => sum + c.points, 0),
    maxScore: options.checks.reduce((sum, c) => sum + c.score, 0),
    checks,
    tampered: withNotes(tampered, runner.notes),
    interrupted: checks.length < options.checks.length,
    ...(headMovedFrom ? { headMovedFrom } : {}),
    ...(setupRebuilt ? { setupRebuilt } : {}),
    ...(keptFilesChanged ? { keptFilesChanged } : {}),
  };
}

/**
 * The folder as the scoring finds it. Setup run again and the checks run the candidate's code,
 * which without the sandbox can rename the folder and put a link to a folder of the user's in its
 * place (their checkout: `git rev-parse --git-common-dir` says where it is). Nothing of bestof's
 * may happen there then: the put-back would `git reset --hard` the user's branch to the
 * candidate's commit and `git clean` their files, and HEAD would be attached to the candidate's
 * branch. So before every step that follows code of the candidate's, the folder is looked at
 * (one lstat), and a folder that is not this one ends the candidate (WorktreeReplacedError: its
 * commit is on its branch, kept by finish; the folder is left as it is).
 *
 * Its own git files (its `.git` link, its admin dir's `config.worktree`...), watched when the
 * checks run without the sandbox (which keeps them read-only): the same code can point the link at
 * the user's git dir, or set `core.worktree` to the user's checkout, and every git call of
 * bestof's in the worktree would then act there (the put-back's `git reset --hard` and `git
 * clean`). They are put back before that can happen, and the scoring counts no point (as for a
 * kept file changed, below).
 */
interface WorktreeGuard {
  /** Before each step that follows code of the candidate's, and before the put-back: the folder, then its own git files. */
  check(): Promise<void>;
  /** From here on, its own git files are watched (the checks run without the sandbox). */
  watchOwnFiles(): Promise<void>;
  /** Its own git files that were changed and put back, once each. */
  readonly ownFilesChanged: readonly TamperedPath[];
}

async function guardWorktree(worktree: string): Promise<WorktreeGuard> {
  const folder = await lstat(worktree);
  let ownFiles: OwnFilesWatch | undefined;
  const ownFilesChanged: TamperedPath[] = [];
  return {
    ownFilesChanged,
    async watchOwnFiles() {
      ownFiles = await watchWorktreeOwnFiles(worktree);
    },
    async check() {
      const now = await replacedFolder(worktree, folder);
      if (now !== undefined) throw new WorktreeReplacedError(worktree, now);
      for (const change of (await ownFiles?.putBack()) ?? []) {
        // Once each, however many checks changed it again.
        if (!ownFilesChanged.some((p) => p.path === change.path)) ownFilesChanged.push({ ...change, rule: 'frozen' });
      }
    },
  };
}

/** What the checks found in the prepared tree, and what the candidate's code changed meanwhile. */
interface ChecksRun {
  readonly checks: CheckOutcome[];
  readonly tampered: Scoring['tampered'];
  readonly setupRebuilt: Scoring['setupRebuilt'];
  readonly keptFilesChanged: Scoring['keptFilesChanged'];
}

/** Setup made anew where an agent changed it, then the checks, in the prepared tree; the kept files and the worktree watched throughout. */
async function runChecksInTree(
  options: ScoreOptions,
  tree: ScoringTree,
  context: { readonly home: string; readonly kept: readonly string[]; readonly guard: WorktreeGuard },
): Promise<ChecksRun> {
  const { home, kept, guard } = context;
  const sandbox = options.checkSandbox?.(home);
  if (!sandbox) await guard.watchOwnFiles();
  // Base's kept files, as the preparation left them, watched from here on: setup run again (below)
  // runs code of the candidate's too (a `prepare` script of the frozen package.json that runs one of
  // its files, a dependency its lockfile points at), after the frozen restore.
  const keptFiles = await watchKeptFiles(options.worktree, { base: options.baseCommit, kept, signal: options.signal });
  const setupRebuilt = await rebuildChangedSetup(options, sandbox, guard);
  const checks = await runChecks(options.checks, {
    cwd: options.worktree,
    env: { ...options.env, ...cleanHomeEnv(home) },
    signal: options.signal,
    logDir: options.logDir,
    logRedactor: options.logRedactor,
    onCheck: options.onCheck,
    // What setup made is the checks' to read and write, but what one check writes there is thrown
    // away after it (../../process/sandbox.ts throwaway): code that one check runs cannot change the
    // tool, module or cache a later check runs, and the change cannot stay for later scorings.
    sandbox: sandbox && { ...sandbox, throwaway: [...(sandbox.throwaway ?? []), ...options.keepPaths.map((path) => join(options.worktree, path))] },
    // A check that replaced the folder: the next one would run in what stands there now.
    beforeEach: () => guard.check(),
    // In the scoring's HOME: outside the worktree, gone when the scoring ends.
    reportRoot: join(home, '.bestof-reports'),
    reference: options.reference,
  });
  await guard.check(); // after the last check: what it changed is counted here
  let tampered = tree.tampered;
  let keptFilesChanged: Scoring['keptFilesChanged'];
  const rewritten = [...(await keptFiles.changed()), ...guard.ownFilesChanged];
  if (rewritten.length > 0) {
    keptFilesChanged = rewritten;
    const seen = new Set(tampered.map((p) => p.path));
    tampered = [...tampered, ...rewritten.filter((p) => !seen.has(p.path))];
  }
  return { checks, tampered, setupRebuilt, keptFilesChanged };
}

/** Setup output an agent had changed, made anew before the checks (undefined: nothing had changed). */
async function rebuildChangedSetup(options: ScoreOptions, sandbox: SandboxLayout | undefined, guard: WorktreeGuard): Promise<Scoring['setupRebuilt']> {
  const changed = (await options.setupGuard?.changed()) ?? [];
  if (changed.length === 0) return undefined;
  // The checks' sandbox, but the machine's network: setup installs (npm ci downloads).
  // Setup's writes are kept: no throwaway layer for it.
  const rebuilt = await options.setupGuard!.rebuild(options.signal, sandbox && { ...sandbox, ownNetwork: false, throwaway: [] });
  await guard.check();
  // What it left beside the setup paths is not the scoring tree's.
  const removed = await removeNewLeftovers(options.worktree, options.keepPaths, options.signal);
  return { changed, ...(rebuilt.ok ? {} : { error: rebuilt.error.message }), ...(removed.length > 0 ? { removed } : {}) };
}

/**
 * Whatever the checks did (or a failed preparation), the worktree goes back to exactly the
 * candidate's commit and its leftovers; no signal, so that a cancel cannot interrupt the put-back.
 * Returns where the candidate's branch had been moved to, if the put-back found it moved.
 */
async function putBackAfterChecks(
  options: ScoreOptions,
  context: { readonly guard: WorktreeGuard; readonly home: string; readonly prepared: ScoringTree | undefined },
): Promise<string | undefined> {
  const { guard, home, prepared } = context;
  try {
    await guard.check();
    // With the preparation's stamp, only what the checks changed is undone (nothing, usually).
    const putBack = await putBackScoringTree(options.worktree, { commit: options.commit, keep: options.keepPaths, branch: prepared?.branch, tree: prepared });
    // After the checks, which may write caches there too: the next agent's changes are what counts.
    await options.setupGuard?.seal();
    return putBack.branchMovedTo;
  } finally {
    await removeTree(home);
  }
}

/**
 * HOME and the XDG folders, all inside `home`; and Python's bytecode cache there too
 * (PYTHONPYCACHEPREFIX, Python 3.8+): a check's Python then never loads bytecode from a
 * `__pycache__` in the worktree, where a candidate could commit the compiled code of a gutted copy
 * of a test that it left unchanged (pytest loads its cached bytecode when the source's size and
 * mtime match the header: tried, pytest 9).
 */
function cleanHomeEnv(home: string): Record<string, string> {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    PYTHONPYCACHEPREFIX: join(home, '.cache', 'python-bytecode'),
  };
}
