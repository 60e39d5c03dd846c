/**
 * A candidate's workspace: its git worktree on its own branch, the untracked files it
 * needs copied in (`[setup] copy` and `.worktreeinclude`), and the setup commands run with
 * the candidate's identity and port in the environment.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cp, readdir, readFile, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { addWorktree } from '../git/worktree.js';
import { setupCreatedPaths } from '../git/commit.js';
import { reattachWorktree } from '../git/checkpoint.js';
import { runShell } from '../process/run-process.js';
import { outputTail } from '../checks/run-checks.js';
import { err, ok, type Result } from '../result.js';

export interface WorkspaceOptions {
  /** "new": a new branch from base; "resume": the candidate's existing branch, reusing its worktree if it is still there. */
  readonly mode: 'new' | 'resume';
  readonly repoRoot: string;
  readonly worktree: string;
  readonly branch: string;
  readonly baseCommit: string;
  readonly copy: readonly string[];
  readonly commands: readonly string[];
  readonly commandTimeoutMs: number;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logFile: string;
  /** Where the list of setup files is kept (the candidate's folder of the run folder). */
  readonly setupPathsFile: string;
  readonly signal: AbortSignal;
}

export interface Workspace {
  readonly copied: readonly string[];
  readonly warnings: readonly string[];
  /** Untracked files after setup: never committed as the candidate's work. */
  readonly setupPaths: readonly string[];
  /** mode "resume": the worktree of the interrupted run was still there (and may hold uncommitted work). */
  readonly reused: boolean;
}

/** The worktree ready for the agent, or why setup failed (the candidate then ends as setup_failed). */
export type WorkspaceResult = Result<Workspace>;

export async function prepareWorkspace(options: WorkspaceOptions): Promise<WorkspaceResult> {
  if (options.mode === 'resume') {
    const attached = await reattachWorktree(options.repoRoot, options.worktree, options.branch);
    if (!attached.ok) return err(attached.error);
    if (attached.value === 'reused') {
      const setupPaths = existsSync(options.setupPathsFile) ? (JSON.parse(readFileSync(options.setupPathsFile, 'utf8')) as string[]) : [];
      return ok({ copied: [], warnings: [], setupPaths, reused: true });
    }
  } else {
    const added = await addWorktree(options.repoRoot, {
      path: options.worktree,
      branch: options.branch,
      base: options.baseCommit,
      signal: options.signal,
    });
    if (!added.ok) return err(added.error);
  }

  const warnings: string[] = [];
  const patterns = [...options.copy, ...(await readWorktreeInclude(options.repoRoot))];
  const copied: string[] = [];
  for (const pattern of patterns) {
    const matches = await expandCopyPattern(options.repoRoot, pattern);
    if (!matches.ok) return err(matches.error);
    if (matches.value.length === 0) warnings.push(`setup.copy: "${pattern}" matches nothing in ${options.repoRoot}; nothing copied`);
    for (const path of matches.value) {
      await cp(join(options.repoRoot, path), join(options.worktree, path), { recursive: true, force: true });
      copied.push(path);
    }
  }

  for (const command of options.commands) {
    if (options.signal.aborted) return err('cancelled during setup');
    // A shell on purpose: setup commands are the spec author's own shell lines.
    const result = await runShell(command, {
      cwd: options.worktree,
      env: options.env,
      timeoutMs: options.commandTimeoutMs,
      signal: options.signal,
      logFile: options.logFile,
    });
    if (!result.ok) {
      const how = result.timedOut
        ? `timed out after ${Math.round(options.commandTimeoutMs / 1000)}s`
        : result.canceled
          ? 'was cancelled'
          : result.spawnError ?? `exited with code ${result.exitCode ?? result.signal}`;
      const tail = outputTail(`${result.stdout}\n${result.stderr}`).split('\n').slice(-3).join(' | ');
      return err(`setup command \`${command}\` ${how}${tail ? `: ${tail}` : ''}`);
    }
  }
  const setupPaths = await setupCreatedPaths(options.worktree);
  // Recorded so that a resume and `bestof clean` can save leftover work without the setup files.
  writeFileSync(options.setupPathsFile, JSON.stringify(setupPaths));
  return ok({ copied, warnings, setupPaths, reused: false });
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

/**
 * A copy entry is a path relative to the repo root (a file or a folder), or a pattern with
 * `*` in its last segment (`config/*.local.json`). Anything that resolves outside the repo,
 * through `..`, an absolute path or a symbolic link, is refused.
 */
export async function expandCopyPattern(repoRoot: string, pattern: string): Promise<Result<string[]>> {
  const entry = pattern.replace(/^\/+/, '').replace(/\/+$/, '');
  const leaves = (path: string): boolean => {
    const rel = relative(repoRoot, resolve(repoRoot, path));
    return rel.startsWith('..') || isAbsolute(rel);
  };
  if (isAbsolute(pattern) || leaves(entry)) return err(`setup.copy: "${pattern}" leaves the repo; copy only paths inside ${repoRoot}`);
  let candidates: string[];
  if (basename(entry).includes('*')) {
    const folder = dirname(entry);
    const regex = new RegExp(`^${basename(entry).split('*').map(escapeRegExp).join('[^/]*')}$`);
    try {
      candidates = (await readdir(join(repoRoot, folder))).filter((name) => regex.test(name)).map((name) => (folder === '.' ? name : join(folder, name)));
    } catch {
      candidates = [];
    }
  } else {
    candidates = [entry];
  }
  const paths: string[] = [];
  const realRoot = await realpath(repoRoot);
  for (const path of candidates) {
    let real: string;
    try {
      real = await realpath(join(repoRoot, path));
    } catch {
      continue; // does not exist
    }
    const rel = relative(realRoot, real);
    if (rel.startsWith('..') || isAbsolute(rel)) return err(`setup.copy: "${path}" is a link that leaves the repo; refused`);
    paths.push(path);
  }
  return ok(paths);
}

function escapeRegExp(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}
