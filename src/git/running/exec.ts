/**
 * The one way this package runs git (through spawn-git.ts), with the exit code kept.
 *
 * Every call returns `{ code, stdout, stderr }` and the caller decides what a non-zero code
 * means (`git merge` with conflicts, `git diff --quiet`); `gitOut` is the strict variant for calls
 * whose failure is a bug.
 *
 * Private to src/git: every other folder calls the named functions of src/git (an
 * architecture test checks it), so what git is asked to do stays in one place.
 *
 * Every call runs with the repository's own code and tricks switched off. A candidate's agent can
 * write the shared git dir (`.git/config`, hooks, `info/attributes`, `refs/replace`) and its
 * worktree's `.gitattributes`; git would then run the agent's programs inside bestof's own calls
 * or show bestof a different tree than the one committed. So, on every call:
 * - `core.hooksPath=/dev/null`: no hook runs (`--no-verify` does not skip post-commit/post-checkout);
 * - `core.fsmonitor=false`, `core.untrackedCache=false`: no fsmonitor program, no cached answers;
 * - `core.ignoreStat=false`, `core.trustctime=true`, `core.checkStat=default`: an edited file whose
 *   mtime and size were put back is still seen (its ctime changed);
 * - `core.attributesFile=/dev/null`: no global attributes file selecting drivers;
 * - `GIT_NO_REPLACE_OBJECTS=1`: `git replace` cannot make `base` mean another commit;
 * - `core.commitGraph=false`, `core.multiPackIndex=false`: git reads a commit's tree and parents
 *   from the commit object itself, never from a cache file in `objects/info` or `objects/pack`
 *   that names another tree for base (a forged commit-graph, written where no sandbox was);
 * - `GIT_OBJECT_DIRECTORY`, `GIT_ALTERNATE_OBJECT_DIRECTORIES`, `GIT_INDEX_FILE` removed: bestof's
 *   git reads and writes the repository's own store and the worktree's own index, whatever the
 *   environment bestof was started in says (an agent's scratch, ../guards/agent-git-scratch.ts, is the
 *   agent's alone);
 * - `GIT_TERMINAL_PROMPT=0`, `GIT_EDITOR=true`, `GIT_PAGER=cat`, no `GIT_EXTERNAL_DIFF`: nothing waits
 *   for a person or starts a program of the environment's choosing;
 * - for every command that can convert content or run drivers (anything not in SAFE_COMMANDS):
 *   filter (clean/smudge/process), diff (command/textconv), merge (driver), `diff.external` and
 *   gpg programs defined in the repository's own config (local or worktree scope) are overridden
 *   with the machine-wide value (system/global config: where `git lfs install` puts its filter) or
 *   emptied. git 2.39 has no `--attr-source`, so the committed `.gitattributes` still selects
 *   drivers by name; with only the user's machine-wide drivers left, it selects nothing of the
 *   agent's. A repository-local filter of the user's own (`git lfs install --local`, git-crypt) is
 *   therefore off in bestof's calls too: its files are checked out as stored.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ConfigQuestions, driverOverrides } from './driver-overrides.js';
import type { GitDirs } from './git-dirs.js';

export type { GitDirs } from './git-dirs.js';
import { gitMessage, splitLines, splitNul } from './git-output.js';
import { type GitRun, spawnGit, subcommandOf } from './spawn-git.js';
import type { Env } from '../../env.js';

export type { GitRun } from './spawn-git.js';
export { gitMessage, splitLines, splitNul } from './git-output.js';

/** `-c` settings of every call (see the module doc). */
const FIXED_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'core.fsmonitor=false',
  'core.untrackedCache=false',
  'core.attributesFile=/dev/null',
  'core.ignoreStat=false',
  'core.trustctime=true',
  'core.checkStat=default',
  'gc.auto=0',
  'maintenance.auto=false',
  'core.commitGraph=false',
  'core.multiPackIndex=false',
].flatMap((setting) => ['-c', setting]);

/** Environment of every call: the process's, with these set (undefined = removed). */
const FIXED_ENV: Env = {
  GIT_NO_REPLACE_OBJECTS: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EXTERNAL_DIFF: undefined,
  GIT_OBJECT_DIRECTORY: undefined,
  GIT_ALTERNATE_OBJECT_DIRECTORIES: undefined,
  GIT_INDEX_FILE: undefined,
  EDITOR: undefined,
  VISUAL: undefined,
};

/**
 * Commands that never convert file content nor run a filter, diff or merge driver: they skip the
 * driver look-up (one extra `git config` call). Anything else pays it. Not `write-tree`: writing
 * the index back hashes a racily clean entry's file again, through the clean filter.
 */
const SAFE_COMMANDS: ReadonlySet<string> = new Set([
  'rev-parse',
  'config',
  'symbolic-ref',
  'update-ref',
  'show-ref',
  'for-each-ref',
  'ls-tree',
  'merge-base',
  'rev-list',
  'branch',
  'tag',
  'init',
  'clean',
  'commit-tree',
  'mktree',
  'check-ref-format',
  'replace',
]);

export interface GitCallOptions {
  signal?: AbortSignal | undefined;
  /**
   * Run the repository's hooks (every other guard stays on). Only for a merge that bestof makes in
   * the user's own checkout, as the user's own `git merge` would: by then the hooks folder is the
   * user's (src/git/guards/guard.ts puts back whatever an agent changed there). @default false
   */
  userHooks?: boolean;
  /** A private index (GIT_INDEX_FILE) instead of the worktree's: to commit what is on disk without touching its index. */
  indexFile?: string;
  /** What git reads on its stdin (`update-ref --stdin`); empty when absent. */
  input?: string;
}

/** A git call that should not fail did: a bug or a broken environment, never a user situation. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  constructor(
    readonly args: readonly string[],
    readonly cwd: string,
    readonly run: GitRun,
  ) {
    super(`git ${args.join(' ')} failed in ${cwd} (exit ${run.code}): ${gitMessage(run.stderr || run.stdout)}`);
  }
}

/** Runs `git <args>` in `cwd`. Resolves with the exit code; throws only on abort or when git cannot run. */
export async function runGit(cwd: string, args: readonly string[], opts: GitCallOptions = {}): Promise<GitRun> {
  const command = subcommandOf(args);
  const drivers = command !== undefined && SAFE_COMMANDS.has(command) ? [] : await driverOverrides(cwd, configQuestions, opts.signal);
  const fixed = opts.userHooks ? FIXED_CONFIG.slice(2) : FIXED_CONFIG;
  return rawGit(cwd, [...fixed, ...drivers, ...args], opts.signal, opts.indexFile !== undefined ? { GIT_INDEX_FILE: opts.indexFile } : {}, opts.input);
}

const gitDirsByCwd = new Map<string, GitDirs>();

/**
 * The absolute git dirs git uses in `cwd`, asked once per folder and process; undefined when git
 * cannot say (not a repository). A worktree's `.git` link that an agent points elsewhere is put back
 * by src/git/guards/guard.ts after its call, before bestof's own calls there.
 */
export async function gitDirsOf(cwd: string, signal?: AbortSignal): Promise<GitDirs | undefined> {
  const known = gitDirsByCwd.get(cwd);
  if (known) return known;
  const run = await rawGit(cwd, [...FIXED_CONFIG, 'rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir'], signal);
  const [commonDir, gitDir] = splitLines(run.stdout);
  if (run.code !== 0 || !commonDir || !gitDir) return undefined;
  const dirs = { commonDir, gitDir };
  gitDirsByCwd.set(cwd, dirs);
  return dirs;
}

/** The git dirs of `cwd`, known from a git call that printed them (openRepo's). */
export function rememberGitDirs(cwd: string, dirs: GitDirs): void {
  gitDirsByCwd.set(cwd, dirs);
}

/** The config keys that can name drivers or include files (driver-overrides.ts). */
const DRIVER_ENTRIES = '^(filter|diff|merge|gpg|include|includeif)\\.';

/** What driver-overrides.ts asks git, through this runner (it does not import it: no cycle). */
const configQuestions: ConfigQuestions = {
  gitDirs: gitDirsOf,
  driverEntries: (cwd, signal) => rawGit(cwd, [...FIXED_CONFIG, 'config', '--show-scope', '-z', '--get-regexp', DRIVER_ENTRIES], signal),
};

/**
 * Asks now what runGit will ask at the first call in `cwd` that needs the driver look-up (one
 * `git config`), so that the answer is ready by then: a run does it as it starts, beside the
 * identity read, and its first `git worktree add` finds it kept. Never fails: a look-up that
 * fails is asked again by that call. Not while another call in `cwd` may be asking (two look-ups
 * would run, harmlessly but for nothing).
 */
export async function warmDriverLookup(cwd: string): Promise<void> {
  await driverOverrides(cwd, configQuestions, undefined).catch(() => undefined);
}

function gitEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  for (const [name, value] of Object.entries(FIXED_ENV)) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  return env;
}

async function rawGit(
  cwd: string,
  args: readonly string[],
  signal: AbortSignal | undefined,
  extraEnv: Readonly<Record<string, string>> = {},
  input?: string,
): Promise<GitRun> {
  // A signal that fires after git finished does not undo what git did: spawnGit reports the real result.
  const run = await spawnGit(cwd, args, { ...gitEnv(), ...extraEnv }, signal, input);
  // Killed by a signal, or git could not be started at all (not installed? no such folder?).
  if (run.code < 0) throw new GitCommandError(args, cwd, run);
  return run;
}

/** A repository that is not one of bestof's worktrees, named by its git dir and work tree (runGitPinned). */
export interface PinnedRepo {
  readonly gitDir: string;
  readonly workTree: string;
}

/**
 * Runs a read-only git call in a repository whose `.git` file and config an agent can rewrite: a
 * submodule's checkout inside a candidate's worktree (its git dir lies under the worktree's own,
 * which the sandbox leaves writable). git is pinned to that git dir and work tree (`--git-dir`,
 * `--work-tree`: no `.git` file or `core.worktree` of the agent's redirects it) and writes nothing
 * back (`--no-optional-locks`: `status` leaves the index alone). Every guard of runGit holds; the
 * driver keys are those of that git dir's own config, its git dirs asked afresh on every call (the
 * folder caches of runGit rely on src/git/guards/guard.ts restoring a worktree's `.git` link, which no one
 * restores for a submodule; driverOverrides' answer is still kept while the config files it read
 * are unchanged).
 */
export async function runGitPinned(repo: PinnedRepo, args: readonly string[], opts: Pick<GitCallOptions, 'signal'> = {}): Promise<GitRun> {
  const pin = [`--git-dir=${repo.gitDir}`, `--work-tree=${repo.workTree}`, '--no-optional-locks'];
  const questions: ConfigQuestions = {
    gitDirs: async (_cwd, signal) => {
      const run = await rawGit(repo.workTree, [...FIXED_CONFIG, ...pin, 'rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir'], signal);
      const [commonDir, gitDir] = splitLines(run.stdout);
      return run.code === 0 && commonDir && gitDir ? { commonDir, gitDir } : undefined;
    },
    driverEntries: (_cwd, signal) => rawGit(repo.workTree, [...FIXED_CONFIG, ...pin, 'config', '--show-scope', '-z', '--get-regexp', DRIVER_ENTRIES], signal),
  };
  // A key of its own for driverOverrides' cache (never a folder's: that one is runGit's).
  const drivers = await driverOverrides(`pinned\0${repo.gitDir}\0${repo.workTree}`, questions, opts.signal);
  return rawGit(repo.workTree, [...FIXED_CONFIG, ...drivers, ...pin, ...args], opts.signal);
}

/** Runs git and returns stdout; a non-zero exit throws GitCommandError (use for calls that must work). */
export async function gitOut(cwd: string, args: readonly string[], opts: GitCallOptions = {}): Promise<string> {
  const run = await runGit(cwd, args, opts);
  if (run.code !== 0) throw new GitCommandError(args, cwd, run);
  return run.stdout;
}

/**
 * Writes `pathspecs` NUL-separated to a temp file outside any worktree and hands the
 * `--pathspec-from-file=<f> --pathspec-file-nul` arguments to `fn`, so that thousands of
 * paths (or paths with newlines) never hit the command-line length limit.
 */
export async function withPathspecFile<T>(pathspecs: readonly string[], fn: (args: string[]) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'bestof-pathspec-'));
  try {
    const file = join(dir, 'pathspec');
    await writeFile(file, pathspecs.map((p) => `${p}\0`).join(''));
    return await fn([`--pathspec-from-file=${file}`, '--pathspec-file-nul']);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Identity arguments by repository (its common dir: the same for every worktree of it), read or being read: see identityArgs. */
const identities = new Map<string, Promise<readonly string[] | undefined>>();

/**
 * `-c` arguments that give bestof's commits their identity: the author and committer that git would
 * take from the repository's config (`author.*` / `committer.*`, else `user.*`), or `bestof
 * <bestof@localhost>` when no email is configured (a fresh container or CI box, where git would
 * stop with "Please tell me who you are"), or name `bestof` when only the name is missing. An
 * identity from the environment (GIT_AUTHOR_EMAIL, ...) still wins over `-c`.
 *
 * Read once per repository and process (one `git config` call), then passed explicitly on every
 * commit in it, in whichever of its worktrees: a run reads it in the user's checkout as it starts
 * (readCommitIdentity, before any agent runs), so the identity is the one the repository had then.
 * An agent that writes `user.email` into the shared `.git/config` (possible without the sandbox;
 * put back by src/git/guards/guard.ts after its call, but a rival's call may still be running while another
 * candidate commits), into `~/.gitconfig` or into its worktree's config can neither lend bestof's
 * commits another identity nor make them fail by removing it. (Asked afresh per commit, as once,
 * both were possible; asked per worktree at its first commit, as later, an agent could still choose
 * the identity of its own commits before that first commit.) What differs from worktree to worktree
 * (`config.worktree`, `includeIf "onbranch:..."`) is therefore the user's checkout's.
 */
export async function identityArgs(cwd: string, opts: GitCallOptions = {}): Promise<string[]> {
  const dirs = await gitDirsOf(cwd, opts.signal);
  const key = dirs?.commonDir;
  const known = key !== undefined ? await identities.get(key) : undefined;
  if (known) return [...known];
  const reading = readIdentity(cwd, opts);
  if (key !== undefined) {
    // Shared with the calls that come meanwhile; forgotten when it fails (the next call asks again).
    identities.set(
      key,
      reading.catch(() => {
        identities.delete(key);
        return undefined;
      }),
    );
  }
  return [...(await reading)];
}

/** One `git config` call in `cwd`: the identity arguments of identityArgs. */
async function readIdentity(cwd: string, opts: GitCallOptions): Promise<readonly string[]> {
  // Exit 1: none of these keys is set.
  const run = await runGit(cwd, ['config', '-z', '--get-regexp', '^(user|author|committer)\\.(name|email)$'], opts);
  const values = new Map<string, string>();
  for (const entry of run.code === 0 ? splitNul(run.stdout) : []) {
    const nl = entry.indexOf('\n');
    // The last value wins, as in git; a key without a value counts as unset.
    if (nl > 0) values.set(entry.slice(0, nl).toLowerCase(), entry.slice(nl + 1).trim());
  }
  return (['author', 'committer'] as const).flatMap((role) => {
    const email = values.get(`${role}.email`) || values.get('user.email');
    const name = email ? values.get(`${role}.name`) || values.get('user.name') || 'bestof' : 'bestof';
    return ['-c', `${role}.name=${name}`, '-c', `${role}.email=${email || 'bestof@localhost'}`];
  });
}
