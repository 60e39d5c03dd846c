/**
 * The submodules of a candidate's worktree, initialized before the agent starts
 * (`git submodule update --init --recursive`, one submodule at a time), or a warning that says
 * which one is not and why. A worktree is checked out without them: an agent would otherwise
 * find empty folders where the code it must build against should be.
 *
 * Local submodule URLs (a path, `file://`): `git submodule update` refuses them by default since
 * git 2.38.1 (CVE-2022-39253: a cloned repo that carries a crafted bare repo and points a
 * submodule at it can copy files of the machine into the checkout through symbolic links in its
 * objects folder). bestof clones one itself (src/git/worktrees/submodules.ts) only when it resolves OUTSIDE
 * the repo's own folder and the worktree: a sibling checkout the user made (`../../lib`). A URL
 * inside the repo (the shape of that attack) is not cloned: a warning says so. Network URLs go
 * through `git submodule update` with git's defaults. A local submodule nested inside a submodule
 * is left to git, which refuses it (the warning says so).
 *
 * Edits an agent makes inside a submodule are not committed (src/git/history/commit-filter.ts says so).
 */
import { existsSync, realpathSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { cloneLocalSubmodule, configValue, declaredSubmodules, updateSubmodule } from '../../git/worktrees/submodules.js';
import type { SetupProgressListener } from './setup-progress.js';

/** Initializes the worktree's submodules; returns the warnings (one per submodule not initialized). */
export async function initSubmodules(
  repoRoot: string,
  worktree: string,
  opts: { readonly signal: AbortSignal; readonly timeoutMs: number; readonly onProgress?: SetupProgressListener },
): Promise<string[]> {
  if (!existsSync(join(worktree, '.gitmodules'))) return [];
  const submodules = await declaredSubmodules(worktree, { signal: opts.signal });
  if (submodules.length === 0) return [];
  const originUrl = await configValue(repoRoot, 'remote.origin.url', { signal: opts.signal });
  const warnings: string[] = [];
  for (const [index, sub] of submodules.entries()) {
    opts.onProgress?.({ step: 'submodules', text: `submodule ${index + 1}/${submodules.length} ${sub.path}: initializing` });
    // git clones from the URL the repo's config holds (`git submodule init` in the user's checkout
    // wrote it, absolute), else from .gitmodules' (a relative one then counts from the worktree).
    const url = (await configValue(worktree, `submodule.${sub.name}.url`, { signal: opts.signal })) ?? sub.url;
    const local = localPath(url, worktree, originUrl);
    if (local !== undefined && (isInside(local, repoRoot) || isInside(local, worktree))) {
      warnings.push(
        `submodule ${sub.path} is not initialized in the worktrees: its URL "${url}" is a folder inside this repo, which bestof does not clone (a crafted repo there could copy files of this machine into the checkout, CVE-2022-39253); point the submodule at a URL or a folder outside the repo to have it initialized`,
      );
      continue;
    }
    // The setup's time limit holds for each submodule, as for each setup command.
    const signal = AbortSignal.any([opts.signal, AbortSignal.timeout(opts.timeoutMs)]);
    let failure: string | undefined;
    try {
      failure = local !== undefined ? await cloneLocalSubmodule(worktree, sub.path, local, { signal }) : await updateSubmodule(worktree, sub.path, { signal });
    } catch (error) {
      if (opts.signal.aborted || !signal.aborted) throw error;
      failure = `it took longer than ${Math.round(opts.timeoutMs / 1000)}s (setup.timeout)`;
    }
    if (failure !== undefined) {
      warnings.push(
        `submodule ${sub.path} is not initialized in the worktrees: ${failure}; the candidates work without it (check its URL "${url}", or initialize it in your checkout)`,
      );
    }
  }
  return warnings;
}

/**
 * The folder a local submodule URL names, or undefined for a network URL. A relative URL
 * (`../../lib`) is relative to the superproject's origin when it has one, else to `from` (the worktree, as git does).
 */
function localPath(url: string, from: string, originUrl: string | undefined): string | undefined {
  if (url.startsWith('file://')) return decodeURIComponent(url.slice('file://'.length));
  if (url.startsWith('../') || url.startsWith('../../')) {
    if (originUrl === undefined) return resolve(from, url);
    const originLocal = localPath(originUrl, from, undefined);
    return originLocal === undefined ? undefined : resolve(originLocal, url);
  }
  if (isAbsolute(url)) return url;
  // `host:path` (scp-like) or `scheme://`: the network. A bare relative folder name is a path git resolves from the cwd: treat it as local.
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(url) || /^[^/]+:/.test(url)) return undefined;
  return resolve(from, url);
}

function isInside(path: string, dir: string): boolean {
  const real = (p: string): string => {
    try {
      return realpathSync(p);
    } catch {
      return resolve(p);
    }
  };
  const rel = relative(real(dir), real(path));
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}
