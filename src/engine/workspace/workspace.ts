/**
 * A candidate's workspace: its git worktree on its own branch, its submodules initialized
 * (./setup-submodules.ts), the untracked files it needs copied in (`[setup] copy` and
 * `.worktreeinclude`) or linked (`[setup] link`, ./setup-link.ts), and the setup commands run
 * with the candidate's identity and port in the environment. Each step is reported as it starts
 * (./setup-progress.ts).
 */
import type { Env } from '../../env.js';
import { existsSync } from 'node:fs';
import { cp, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { addWorktree, addWorktreeOnBranch, removeWorktreeTrash, restoreMissingBranch } from '../../git/worktrees/worktree.js';
import { addCowWorktree, addCowWorktreeOnBranch, remountCowWorktree, type OverlayMounts } from '../../git/worktrees/cow-worktree.js';
import { cowLayerDir, isCowWorktree } from './cow-layout.js';
import { repairWorktreeLinkDetailed } from '../../git/worktrees/worktree-link.js';
import { clearStaleCandidateLocks } from '../../git/worktrees/stale-locks.js';
import { waitForGitToLeave } from '../../git/worktrees/worktree-users.js';
import { setupCreatedPaths } from '../../git/history/commit.js';
import { isGitFailure } from '../../git/running/failures.js';
import { notAFolder, WorktreeReplacedError } from '../../git/guards/guard.js';
import { runShellIn, type SandboxLayout } from '../../process/sandbox.js';
import type { LogRedactor } from '../../process/types.js';
import { outputTail } from '../../checks/run-checks.js';
import { removeLeftHiddenFiles } from '../../checks/hidden-files.js';
import { err, ok, type Result } from '../../result.js';
import { expandCopyPattern } from './setup-paths.js';
import { makeSetupLinks } from './setup-link.js';
import { COMMAND_HEARTBEAT_MS, commandText, heartbeat, sizeOf, type SetupProgressListener } from './setup-progress.js';
import { initSubmodules } from './setup-submodules.js';
import { removeTree } from '../../owned-tree.js';
import { readSetupPaths } from '../record/run-folder.js';

export interface WorkspaceOptions {
  /** "new": a new branch from base; "resume": the candidate's existing branch, reusing its worktree if it is still there. */
  readonly mode: 'new' | 'resume';
  readonly repoRoot: string;
  readonly worktree: string;
  readonly branch: string;
  readonly baseCommit: string;
  /** The candidate's kept ref (`refs/bestof/<run>/<candidate>/kept`): on resume, a missing branch is recreated there. */
  readonly keptRef: string;
  readonly copy: readonly string[];
  /** `[setup] link`: untracked folders shared with every worktree through a symbolic link (./setup-link.ts). @default none */
  readonly link?: readonly string[];
  readonly commands: readonly string[];
  readonly commandTimeoutMs: number;
  readonly env: Env;
  readonly logFile: string;
  /** Secret redaction for the setup log: a new redactor per command. @default none */
  readonly logRedactor?: (() => LogRedactor) | undefined;
  /**
   * Where the list of setup files is kept (the candidate's folder of the run folder). It is also
   * the mark that setup completed: written last, removed before a setup starts, so a worktree
   * without it never had an agent in it.
   */
  readonly setupPathsFile: string;
  /** What setup is doing, while it does it (copying, linking, each command and how long it runs). @default none */
  readonly onProgress?: SetupProgressListener | undefined;
  /** How often a running setup command is reported again. @default COMMAND_HEARTBEAT_MS (10 s) */
  readonly progressEveryMs?: number | undefined;
  /**
   * Whether the agents run in the sandbox. false: `[setup] link` is shared writable (nothing stops
   * an agent writing through the link into the repo's own folder), and the run says so. @default unknown: no warning
   */
  readonly sandboxed?: boolean | undefined;
  /** Where the setup commands run: in this sandbox when given (setup run again over a candidate's tree), else as the user. */
  readonly commandSandbox?: SandboxLayout | undefined;
  /**
   * Copy-on-write worktrees (`[git] worktrees = "copy-on-write"`, src/git/worktrees/cow-worktree.ts): the
   * run's shared base checkout and what mounts the candidate's layer. Undefined: plain worktrees.
   */
  readonly cow?: WorkspaceCow | undefined;
  readonly signal: AbortSignal;
}

export interface WorkspaceCow {
  /** The shared checkout of the base commit (./cow-layout.ts cowBaseDir). */
  readonly lower: string;
  /** The candidate's layer folder (./cow-layout.ts cowLayerDir). */
  readonly layer: string;
  readonly mounts: OverlayMounts;
}

export interface Workspace {
  readonly copied: readonly string[];
  readonly warnings: readonly string[];
  /** Untracked files after setup: never committed as the candidate's work. */
  readonly setupPaths: readonly string[];
  /** mode "resume": the worktree of the interrupted run was still there (and may hold uncommitted work). */
  readonly reused: boolean;
}

export interface WorkspaceFailure {
  readonly message: string;
  /** true: git or bestof failed (not the spec's setup); the run must say a candidate was lost */
  readonly infrastructure: boolean;
}

/** How long a resume waits for git commands of the killed run to finish in a worktree. */
const LEFTOVER_GIT_WAIT_MS = 30_000;

/** The worktree ready for the agent, or why setup failed: the spec's setup (setup_failed), or git's or bestof's (the candidate was lost). */
export type WorkspaceResult = Result<Workspace, WorkspaceFailure>;

/**
 * The candidate's worktree, set up. Creating it is git's part (retried by src/git/worktrees/worktree.ts,
 * then an infrastructure failure); the copies and commands are the spec's (a failure is the
 * candidate's setup_failed, not retried).
 */
export async function prepareWorkspace(options: WorkspaceOptions): Promise<WorkspaceResult> {
  try {
    const warnings: string[] = [];
    if (options.mode === 'resume') {
      const resumed = await resumeWorktree(options, warnings);
      if (!resumed.ok) return resumed;
      if (resumed.value === 'reused') return ok({ copied: [], warnings, setupPaths: readSetupPaths(options.setupPathsFile), reused: true });
    } else {
      await rm(options.setupPathsFile, { force: true });
      const added = options.cow
        ? await addCowWorktree(options.repoRoot, {
            path: options.worktree,
            branch: options.branch,
            ...options.cow,
            holder: options.cow.mounts,
            signal: options.signal,
          })
        : await addWorktree(options.repoRoot, { path: options.worktree, branch: options.branch, base: options.baseCommit, signal: options.signal });
      if (!added.ok) return worktreeFailure(options, added.error);
    }
    return await runSetup(options, warnings);
  } catch (error) {
    // git or the file system failed under bestof (a bug throws anything else, and goes on up).
    if (!isGitFailure(error) && typeof (error as NodeJS.ErrnoException).code !== 'string' && !options.signal.aborted) throw error;
    return worktreeFailure(options, `cannot prepare worktree ${options.worktree}: ${(error as Error).message}`);
  }
}

function worktreeFailure(options: WorkspaceOptions, message: string): Result<never, WorkspaceFailure> {
  if (options.signal.aborted) return err({ message: 'cancelled during setup', infrastructure: false });
  return err({ message, infrastructure: true });
}

/**
 * Resume from whatever instant the run was killed at: its stale git locks removed, a missing
 * branch recreated, a half-made worktree (setup never completed, so no agent ever ran in it)
 * made again, a worktree with a destroyed `.git` link repaired (it may hold the agent's work: it
 * is never deleted), a folder that is gone recreated. `reused`: the agent's worktree is back.
 */
async function resumeWorktree(options: WorkspaceOptions, warnings: string[]): Promise<Result<'reused' | 'recreated', WorkspaceFailure>> {
  const { repoRoot, worktree, branch, keptRef } = options;
  // A link where the worktree was (the killed run's agent, or the code its checks ran, put one to
  // the user's checkout there): nothing below may run through it (locks cleared, the link
  // repaired, work saved: all in the user's checkout). The candidate ends worktree_replaced.
  const standing = await notAFolder(worktree);
  if (standing !== undefined) throw new WorktreeReplacedError(worktree, standing);
  // A copy-on-write worktree's changes are in its layer on disk: mounted again first, so that
  // everything below sees the agent's files as it left them.
  const cowLayer = cowLayerDir(worktree);
  const layered = isCowWorktree(worktree);
  if (layered) {
    if (!options.cow) {
      return worktreeFailure(
        options,
        `${worktree} is a copy-on-write worktree (its changes are in ${cowLayer}) and copy-on-write worktrees cannot be mounted now (see the warning above); resume where they can, or keep what you need from ${join(cowLayer, 'upper')}`,
      );
    }
    const mounted = await remountCowWorktree(repoRoot, { path: worktree, branch, ...options.cow, holder: options.cow.mounts, signal: options.signal });
    if (!mounted.ok) return worktreeFailure(options, `cannot mount ${worktree} again: ${mounted.error}`);
  }
  // What a removal killed half-way left beside the worktree (`<path>.removing`) goes first.
  await removeWorktreeTrash(worktree);
  // A hidden check's files, when the run was killed while it ran: gone before the agent sees the worktree.
  const hidden = await removeLeftHiddenFiles(worktree);
  if (hidden !== undefined) warnings.push(`${worktree}: removed the hidden check's files (${hidden}) the interrupted run left there`);
  // A git command of the killed bestof may still be writing there (a long checkout): let it end first.
  const busy = await waitForGitToLeave(worktree, { timeoutMs: LEFTOVER_GIT_WAIT_MS, signal: options.signal });
  if (busy.length > 0) {
    return worktreeFailure(
      options,
      `git processes ${busy.join(', ')} are still working in ${worktree} (left by the interrupted run?); let them end or stop them, then resume again`,
    );
  }
  // Safe here: the caller holds the run's lock, so the bestof that held these git locks is dead,
  // and its leftover agents were stopped before (see src/git/worktrees/stale-locks.ts).
  const cleared = await clearStaleCandidateLocks(repoRoot, { worktree, branch, keptRef });
  if (cleared.length > 0) warnings.push(`${branch}: removed git locks the interrupted run left (${cleared.join(', ')})`);
  const restored = await restoreMissingBranch(repoRoot, branch, [keptRef, options.baseCommit]);
  if (!restored.ok) return worktreeFailure(options, restored.error);
  const recreated = restored.value;
  // The normal path after `bestof clean` (which deletes the branches of what it keeps under refs)
  // or a run killed before it made the branch: said as setup's progress, not as a warning.
  const say = options.onProgress ?? (() => undefined);
  if (recreated)
    say({
      step: 'checkout',
      text: `branch ${branch} made again at ${recreated === keptRef ? `its kept commit (${keptRef})` : `the base commit ${options.baseCommit.slice(0, 12)}`}`,
    });

  const setupCompleted = existsSync(options.setupPathsFile);
  if (setupCompleted && existsSync(worktree)) {
    const link = await repairWorktreeLinkDetailed(repoRoot, worktree, branch);
    if (!link.ok) return worktreeFailure(options, link.error);
    if (link.value.status === 'repaired') {
      const aside = link.value.movedAside ? `; the agent's own .git folder was moved to ${link.value.movedAside}` : '';
      warnings.push(`${worktree}: ${link.value.problem ?? 'its .git link was broken'}; repaired, its files kept as they are${aside}`);
    }
    return ok('reused');
  }
  if (!setupCompleted && existsSync(worktree)) {
    warnings.push(`${worktree} was left half made (the run was killed during its setup; no agent ran in it): made again from ${branch}`);
  } else if (setupCompleted) {
    // A run that ends (cancelled, or finished with candidates left to resume) removes its worktrees,
    // as `bestof clean` does: the normal path, said as setup's progress.
    say({ step: 'checkout', text: `worktree made again from ${branch}, and set up again` });
  }
  // From here on the setup runs again: without the mark until it completes.
  await rm(options.setupPathsFile, { force: true });
  if (layered && options.cow) await options.cow.mounts.unmount(worktree);
  const made = options.cow
    ? await addCowWorktreeOnBranch(repoRoot, { path: worktree, branch, ...options.cow, holder: options.cow.mounts, signal: options.signal })
    : await addWorktreeOnBranch(repoRoot, { path: worktree, branch, signal: options.signal });
  if (!made.ok) return worktreeFailure(options, made.error);
  return ok('recreated');
}

/** Copies, setup commands, and the mark that setup completed. */
async function runSetup(options: WorkspaceOptions, warnings: string[]): Promise<WorkspaceResult> {
  const steps = await runSetupSteps(options, warnings);
  if (!steps.ok) return steps;
  const setupPaths = nothingCouldBeMade(options, steps.value) ? [] : await setupCreatedPaths(options.worktree);
  // Recorded so that a resume and `bestof clean` can save leftover work without the setup files.
  // Written whole or not at all: it is also the mark that setup completed.
  await writeAtomically(options.setupPathsFile, JSON.stringify(setupPaths));
  return ok({ copied: steps.value, warnings, setupPaths, reused: false });
}

/**
 * A new worktree in which no setup step ran holds nothing untracked or ignored: git checked it out
 * with hooks off (no post-checkout hook), nothing was copied, linked or run, and there are no
 * submodules to clone. Its setup paths are none, without the two `git ls-files` walks that would
 * say so (about 100-200 ms a candidate; scripts/bench-overhead.mjs).
 */
function nothingCouldBeMade(options: WorkspaceOptions, copied: readonly string[]): boolean {
  return (
    options.mode === 'new' &&
    copied.length === 0 &&
    (options.link ?? []).length === 0 &&
    options.commands.length === 0 &&
    !existsSync(join(options.worktree, '.gitmodules'))
  );
}

/**
 * Makes the setup paths anew in a worktree whose setup output an agent changed (./setup-guard.ts):
 * they are removed, then the spec's copies and commands run again. The worktree must hold nothing
 * else untracked (the scoring tree moved the agent's leftovers aside), so what the commands make
 * lands where setup put it the first time.
 */
export async function redoSetup(
  options: WorkspaceOptions,
  setupPaths: readonly string[],
  signal: AbortSignal,
  sandbox?: SandboxLayout,
): Promise<Result<void, WorkspaceFailure>> {
  for (const path of setupPaths) await removeTree(join(options.worktree, path));
  // The submodules are tracked content, not setup paths: they are left as the agent has them.
  // The commands now run over the candidate's tree (its package.json scripts, its build files):
  // in the checks' sandbox when there is one (src/engine/sandbox/agent-sandbox.ts checkSandbox).
  const steps = await runSetupSteps({ ...options, signal, ...(sandbox ? { commandSandbox: sandbox } : {}) }, [], { submodules: false });
  return steps.ok ? ok() : steps;
}

/**
 * The spec's setup: the submodules (a new worktree only), copies (and `.worktreeinclude`), links,
 * then commands, each step reported to `onProgress` as it starts. Returns what was copied.
 */
async function runSetupSteps(
  options: WorkspaceOptions,
  warnings: string[],
  steps: { readonly submodules: boolean } = { submodules: true },
): Promise<Result<string[], WorkspaceFailure>> {
  const progress = options.onProgress ?? (() => undefined);
  if (steps.submodules)
    warnings.push(
      ...(await initSubmodules(options.repoRoot, options.worktree, { signal: options.signal, timeoutMs: options.commandTimeoutMs, onProgress: progress })),
    );
  const patterns = [...options.copy, ...(await readWorktreeInclude(options.repoRoot))];
  const copied: string[] = [];
  for (const pattern of patterns) {
    const matches = await expandCopyPattern(options.repoRoot, pattern);
    if (!matches.ok) return err({ message: matches.error, infrastructure: false });
    if (matches.value.length === 0) warnings.push(`setup.copy: "${pattern}" matches nothing in ${options.repoRoot}; nothing copied`);
    for (const path of matches.value) {
      progress({ step: 'copy', text: `copying ${path} (${await sizeOf(join(options.repoRoot, path))})` });
      try {
        await cp(join(options.repoRoot, path), join(options.worktree, path), { recursive: true, force: true });
      } catch (error) {
        return err({ message: `setup.copy: cannot copy "${path}" into ${options.worktree}: ${(error as Error).message}`, infrastructure: false });
      }
      copied.push(path);
    }
  }

  const link = options.link ?? [];
  if (link.length > 0) {
    progress({ step: 'link', text: `linking ${link.join(', ')}` });
    const linked = await makeSetupLinks(options.repoRoot, options.worktree, link, warnings);
    if (!linked.ok) return err({ message: linked.error, infrastructure: false });
    if (linked.value.length > 0 && options.sandboxed === false) {
      warnings.push(
        `setup.link: agents run without the sandbox, so an agent that writes into ${linked.value.join(', ')} writes through the link into ${options.repoRoot}'s own, for you and every candidate; install bubblewrap (the sandbox makes the links read-only), or use setup.copy`,
      );
    }
  }

  const total = options.commands.length;
  for (const [index, command] of options.commands.entries()) {
    if (options.signal.aborted) return err({ message: 'cancelled during setup', infrastructure: false });
    progress({ step: 'command', text: commandText(index + 1, total, command) });
    const beat = heartbeat(options.progressEveryMs ?? COMMAND_HEARTBEAT_MS, (elapsedMs) =>
      progress({ step: 'command', text: commandText(index + 1, total, command, elapsedMs) }),
    );
    // A shell on purpose: setup commands are the spec author's own shell lines.
    const result = await runShellIn(
      command,
      {
        cwd: options.worktree,
        env: options.env,
        timeoutMs: options.commandTimeoutMs,
        signal: options.signal,
        logFile: options.logFile,
        ...(options.logRedactor ? { logRedactor: options.logRedactor() } : {}),
      },
      options.commandSandbox,
    ).finally(() => beat.stop());
    if (!result.ok) {
      const how = result.timedOut
        ? `timed out after ${Math.round(options.commandTimeoutMs / 1000)}s`
        : result.canceled
          ? 'was cancelled'
          : (result.spawnError ?? `exited with code ${result.exitCode ?? result.signal}`);
      const tail = outputTail(`${result.stdout}\n${result.stderr}`).split('\n').slice(-3).join(' | ');
      return err({ message: `setup command \`${command}\` ${how}${tail ? `: ${tail}` : ''}`, infrastructure: false });
    }
  }
  return ok(copied);
}

async function writeAtomically(path: string, content: string): Promise<void> {
  const temp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  await writeFile(temp, content);
  await rename(temp, path);
}

/** `.worktreeinclude` at the repo root: one path or pattern per line, `#` comments. */
async function readWorktreeInclude(repoRoot: string): Promise<string[]> {
  try {
    const text = await readFile(join(repoRoot, '.worktreeinclude'), 'utf8');
    return text
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
  } catch {
    return [];
  }
}

export { expandCopyPattern } from './setup-paths.js';
