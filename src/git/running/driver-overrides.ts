/**
 * Which programs of the repository's own config git may run inside bestof's calls: the `-c`
 * arguments that switch off the filter, diff, merge and gpg drivers a candidate's agent could have
 * written into the shared `.git/config` or its worktree's `config.worktree` (why: ./exec.ts's
 * module doc). exec.ts adds them to every call that can convert content or run drivers.
 *
 * It asks git two things (the folder's git dirs, and the driver keys with their scopes) through
 * the functions exec.ts hands it, so that this policy does not import the runner that uses it.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { GitDirs } from './git-dirs.js';
import { splitNul } from './git-output.js';
import type { GitRun } from './spawn-git.js';

/** The two questions this module asks git (answered by exec.ts's runner). */
export interface ConfigQuestions {
  /** The absolute git dirs git uses in a folder; undefined when it is not a repository. */
  readonly gitDirs: (cwd: string, signal: AbortSignal | undefined) => Promise<GitDirs | undefined>;
  /** `git config --show-scope -z --get-regexp` of the keys that can name drivers or include files. */
  readonly driverEntries: (cwd: string, signal: AbortSignal | undefined) => Promise<GitRun>;
}

/** Config keys whose value is a program git runs (or whether a missing one is fatal). */
const DRIVER_KEY = /^(filter\..+\.(clean|smudge|process|required)|diff\..+\.(command|textconv)|merge\..+\.driver|diff\.external|gpg\.(.+\.)?program)$/;
const TRUSTED_SCOPES: ReadonlySet<string> = new Set(['system', 'global', 'command']);
const DRIVER_DEFAULTS: Readonly<Record<string, string>> = {
  'gpg.program': 'gpg',
  'gpg.openpgp.program': 'gpg',
  'gpg.x509.program': 'gpgsm',
  'gpg.ssh.program': 'ssh-keygen',
};

/**
 * `-c` arguments that put every program-running driver key defined in the repository's own config
 * (local or worktree scope) back to its machine-wide value, or empty it (see ./exec.ts's module doc).
 *
 * The answer is kept per folder while the repository's own config files (`<common dir>/config`,
 * `<git dir>/config.worktree`) are unchanged to the nanosecond (mtime, ctime, size, inode): one
 * `git config` call per change instead of one per git call. Never kept when that config includes
 * other files (`include.path`, `includeIf`): an included file can change without the config itself.
 */
export async function driverOverrides(cwd: string, git: ConfigQuestions, signal: AbortSignal | undefined): Promise<string[]> {
  const files = await repoConfigFiles(cwd, git, signal);
  const signature = files?.map(fileSignature).join('|');
  const cached = driverCache.get(cwd);
  if (signature !== undefined && cached?.signature === signature) return cached.overrides;
  // Another folder of the same repository with the same config files, unchanged (a new worktree:
  // same shared config, no config.worktree): git reads the same files there, so it answers the same.
  const sameFiles = files !== undefined ? sameFilesKey(files) : undefined;
  const shared = sameFiles !== undefined ? driverCacheByFiles.get(sameFiles) : undefined;
  if (signature !== undefined && shared !== undefined) {
    driverCache.set(cwd, { signature, overrides: shared });
    return shared;
  }

  const run = await git.driverEntries(cwd, signal);
  const trusted = new Map<string, string>();
  const untrusted = new Set<string>();
  let includesFiles = false;
  // A conditional include anywhere (`includeIf.gitdir:`, `onbranch:`, even the user's own in
  // ~/.gitconfig) can make git read other files in another folder of the same repository.
  let conditional = false;
  // Exit 1: no such key at all.
  const parts = run.code === 0 ? splitNul(run.stdout) : [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const scope = parts[i] ?? '';
    const entry = parts[i + 1] ?? '';
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    if (!TRUSTED_SCOPES.has(scope) && /^include(if\..*)?\.path$/.test(key)) includesFiles = true;
    if (/^includeif\../i.test(key)) conditional = true;
    if (!DRIVER_KEY.test(key)) continue;
    if (TRUSTED_SCOPES.has(scope)) trusted.set(key, nl < 0 ? 'true' : entry.slice(nl + 1));
    else untrusted.add(key);
  }
  const overrides = [...untrusted].flatMap((key) => [
    '-c',
    `${key}=${trusted.get(key) ?? (key.endsWith('.required') ? 'false' : (DRIVER_DEFAULTS[key] ?? ''))}`,
  ]);
  if (signature !== undefined && !includesFiles) {
    driverCache.set(cwd, { signature, overrides });
    if (sameFiles !== undefined && !conditional) rememberByFiles(sameFiles, overrides);
  } else driverCache.delete(cwd);
  return overrides;
}

const driverCache = new Map<string, { readonly signature: string; readonly overrides: string[] }>();

/**
 * The same answers by the config files they were read from (sameFilesKey): one `git config` per
 * repository and config change, not one per worktree. Bounded: a key is dropped when its files change.
 */
const driverCacheByFiles = new Map<string, string[]>();
const DRIVER_CACHE_BY_FILES_MAX = 64;

function rememberByFiles(key: string, overrides: string[]): void {
  if (driverCacheByFiles.size >= DRIVER_CACHE_BY_FILES_MAX) driverCacheByFiles.delete(driverCacheByFiles.keys().next().value as string);
  driverCacheByFiles.set(key, overrides);
}

/**
 * The config files git reads in a folder, each by path and exact state (as fileSignature); a
 * missing one by its absence only: a worktree without its own config.worktree reads exactly what
 * the main checkout without one reads.
 */
function sameFilesKey(files: readonly string[]): string {
  return files
    .map((file) => {
      const signature = fileSignature(file);
      return signature === 'missing' ? 'missing' : `${file}\0${signature}`;
    })
    .join('|');
}

/** The repository-scoped config files git reads in `cwd`; undefined when git cannot say (not a repo). */
async function repoConfigFiles(cwd: string, git: ConfigQuestions, signal: AbortSignal | undefined): Promise<readonly string[] | undefined> {
  const dirs = await git.gitDirs(cwd, signal);
  return dirs ? [join(dirs.commonDir, 'config'), join(dirs.gitDir, 'config.worktree')] : undefined;
}

function fileSignature(path: string): string {
  try {
    const info = statSync(path, { bigint: true });
    return `${info.mtimeNs}:${info.ctimeNs}:${info.size}:${info.ino}`;
  } catch {
    return 'missing';
  }
}
