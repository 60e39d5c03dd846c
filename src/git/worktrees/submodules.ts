/**
 * The git side of a worktree's submodules: what `.gitmodules` declares, the URL git would clone
 * from, and the clone itself. The policy (which URLs may be cloned how) is the engine's
 * (src/engine/workspace/setup-submodules.ts).
 *
 * A local source is cloned with a plain `git clone` into the submodule's folder, then moved under
 * the worktree's git dir (`git submodule absorbgitdirs`) and checked out at the commit the
 * superproject records: `git submodule update` itself refuses local URLs since git 2.38.1
 * (`protocol.file.allow`, which bestof's git calls cannot set). A plain clone of a local repo is
 * allowed, and refuses a source whose objects folder holds symbolic links (the same fix).
 */
import { gitMessage, runGit, type GitCallOptions } from '../running/exec.js';

export interface SubmoduleEntry {
  readonly name: string;
  readonly path: string;
  /** As `.gitmodules` has it. */
  readonly url: string;
}

/** The submodules the worktree's `.gitmodules` declares, in its order. */
export async function declaredSubmodules(worktree: string, opts: GitCallOptions = {}): Promise<SubmoduleEntry[]> {
  const listed = await runGit(worktree, ['config', '--file', '.gitmodules', '--null', '--get-regexp', '^submodule\\..*\\.(path|url)$'], opts);
  if (listed.code !== 0) return [];
  const byName = new Map<string, { path?: string; url?: string }>();
  for (const entry of listed.stdout.split('\0').filter(Boolean)) {
    // "submodule.<name>.path\n<value>"
    const cut = entry.indexOf('\n');
    const key = entry.slice(0, cut);
    const name = key.slice('submodule.'.length, key.lastIndexOf('.'));
    const field = key.slice(key.lastIndexOf('.') + 1) as 'path' | 'url';
    byName.set(name, { ...byName.get(name), [field]: entry.slice(cut + 1) });
  }
  return [...byName].flatMap(([name, { path, url }]) => (path !== undefined && url !== undefined ? [{ name, path, url }] : []));
}

/** A config value (`submodule.lib.url`, `remote.origin.url`) or undefined. */
export async function configValue(repo: string, key: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const run = await runGit(repo, ['config', '--get', key], opts);
  const value = run.stdout.trim();
  return run.code === 0 && value !== '' ? value : undefined;
}

/**
 * `git submodule update --init --recursive -- <path>` (a network URL, git's own protocol rules).
 * The error is git's message.
 */
export async function updateSubmodule(worktree: string, path: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const run = await runGit(worktree, ['submodule', 'update', '--init', '--recursive', '--', path], opts);
  return run.code === 0 ? undefined : `git submodule update failed: ${gitMessage(run.stderr || run.stdout)}`;
}

/**
 * A submodule from a local repository `source`: cloned into its folder, its git dir moved under
 * the worktree's, checked out (detached) at the commit the superproject records, then its own
 * submodules through `git submodule update` (local ones among them are refused by git). The error
 * is git's message.
 */
export async function cloneLocalSubmodule(worktree: string, path: string, source: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  const recorded = await runGit(worktree, ['rev-parse', '--verify', '--quiet', `HEAD:${path}`], opts);
  if (recorded.code !== 0) return `the superproject records no commit at ${path}`;
  const steps: (readonly [string, readonly string[]])[] = [
    [worktree, ['clone', '--quiet', '--no-checkout', '--', source, path]],
    [worktree, ['submodule', 'init', '--', path]],
    [worktree, ['submodule', 'absorbgitdirs', '--', path]],
    [`${worktree}/${path}`, ['checkout', '--quiet', '--detach', recorded.stdout.trim()]],
    [worktree, ['submodule', 'update', '--init', '--recursive', '--', path]],
  ];
  for (const [cwd, args] of steps) {
    const run = await runGit(cwd, args, opts);
    if (run.code !== 0) return `${args[0] === 'submodule' ? `git submodule ${args[1]}` : `git ${args[0]}`} failed: ${gitMessage(run.stderr || run.stdout)}`;
  }
  return undefined;
}
