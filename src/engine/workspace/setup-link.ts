/**
 * `[setup] link`: untracked folders of the repo (`node_modules`) that every worktree gets as a
 * symbolic link to the original instead of a copy. The benchmark (scripts/bench-setup.mjs) has it
 * over a thousand times faster than a copy of a 250 MB node_modules (4 candidates: 0.24 s against
 * 372 s), and it costs no disk.
 *
 * Shared means one folder for the user and every candidate, so it must not be written through:
 *   - in the sandbox, the linked targets are bound read-only (`linkedTargets` feeds the layout's
 *     `readOnly`): an agent's `npm install` there fails with EROFS, and a target inside a hidden
 *     folder (the repo under $HOME) is still visible, so the link resolves;
 *   - without the sandbox nothing stops an agent that writes through the link; the run warns.
 * The link is never committed: it is a setup path (src/git/history/commit.ts setupCreatedPaths lists it,
 * untracked or ignored), and the setup guard sees it replaced or removed (src/engine/workspace/setup-guard.ts).
 * Entries follow `setup.copy`'s rules: inside the repo (a link that leaves it is refused), a `*`
 * allowed in the last segment. An entry the worktree already holds (tracked files) is refused: a
 * link in their place would be committed as the deletion of every one of them.
 */
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { lstat, mkdir, symlink } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { expandCopyPattern } from './setup-paths.js';

/** Makes the links in the worktree; returns the paths linked (relative to the repo root). */
export async function makeSetupLinks(repoRoot: string, worktree: string, entries: readonly string[], warnings: string[]): Promise<Result<string[]>> {
  const linked: string[] = [];
  for (const entry of entries) {
    const matches = await expandCopyPattern(repoRoot, entry, 'setup.link');
    if (!matches.ok) return matches;
    if (matches.value.length === 0)
      warnings.push(`setup.link: "${entry}" matches nothing in ${repoRoot}; nothing linked (install the dependencies there first, e.g. npm ci)`);
    for (const path of matches.value) {
      const at = join(worktree, path);
      if (
        await lstat(at).then(
          () => true,
          () => false,
        )
      ) {
        return err(
          `setup.link: "${path}" is already in the worktree (the repo tracks files there); link only untracked folders such as node_modules, or use setup.copy`,
        );
      }
      try {
        await mkdir(dirname(at), { recursive: true });
        await symlink(join(repoRoot, path), at, 'dir');
      } catch (error) {
        return err(`setup.link: cannot link "${path}" into ${worktree}: ${(error as Error).message}`);
      }
      linked.push(path);
    }
  }
  return ok(linked);
}

/**
 * The real paths the links point to, for the sandbox's read-only binds: only those that exist
 * and stay inside the repo (what makeSetupLinks would link).
 */
export function linkedTargets(repoRoot: string, entries: readonly string[]): string[] {
  let realRoot: string;
  try {
    realRoot = realpathSync(repoRoot);
  } catch {
    return [];
  }
  const targets = new Set<string>();
  for (const entry of entries) {
    const clean = entry.replace(/^\/+/, '').replace(/\/+$/, '');
    if (isAbsolute(entry) || clean === '') continue;
    let paths = [join(repoRoot, clean)];
    if (basename(clean).includes('*')) {
      const regex = new RegExp(
        `^${basename(clean)
          .split('*')
          .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
          .join('[^/]*')}$`,
      );
      const folder = join(repoRoot, dirname(clean));
      paths = existsSync(folder)
        ? readdirSync(folder)
            .filter((name) => regex.test(name))
            .map((name) => join(folder, name))
        : [];
    }
    for (const path of paths) {
      try {
        const real = realpathSync(path);
        const rel = relative(realRoot, real);
        if (rel !== '' && !rel.startsWith('..') && !isAbsolute(rel)) targets.add(real);
      } catch {
        // Missing: nothing to bind.
      }
    }
  }
  return [...targets];
}
