import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { formatSpecProblems } from '../spec/errors.js';
import { loadSpec, type LoadedSpec } from '../spec/load.js';
import { insideMountNamespace } from '../process/namespace.js';

export const DEFAULT_SPEC = 'bestof.toml';

/**
 * The spec `run` and `validate` use when none is named: bestof.toml in `cwd`, else in the
 * nearest folder above it up to the root of the git repo `cwd` is in (never above it: a spec
 * of another repo is not this one's). `found: false`: there is none, and `path` is where it
 * was looked for first (what the "not found" error names).
 */
export async function findDefaultSpec(cwd: string): Promise<{ readonly path: string; readonly found: boolean }> {
  const here = join(cwd, DEFAULT_SPEC);
  if (existsSync(here)) return { path: here, found: true };
  // Loaded only here: with the spec named or found at once, no git runs before the spec has loaded.
  const { workTreeTopLevel } = await import('../git/running/top-level.js');
  const root = await workTreeTopLevel(cwd);
  if (root === undefined) return { path: here, found: false };
  // git prints the root with symlinks resolved; walk from the same kind of path.
  let folder = realpathSync(cwd);
  while (folder !== root && dirname(folder) !== folder && relative(root, folder).split('/')[0] !== '..') {
    folder = dirname(folder);
    const candidate = join(folder, DEFAULT_SPEC);
    if (existsSync(candidate)) return { path: candidate, found: true };
  }
  return { path: here, found: false };
}

/** Loads a spec; on problems prints them (file:line:col or dotted key, value, fix) and returns undefined. */
export async function loadSpecOrExplain(path: string | undefined): Promise<LoadedSpec | undefined> {
  let specPath = path ?? DEFAULT_SPEC;
  let searched = false;
  if (path === undefined) {
    const found = await findDefaultSpec(process.cwd());
    searched = !found.found;
    if (found.found && dirname(found.path) !== realpathSync(process.cwd()) && dirname(found.path) !== process.cwd()) {
      // Said once: a bestof run again in a mount namespace (copy-on-write worktrees) finds it again.
      if (!insideMountNamespace())
        process.stderr.write(`bestof: using ${found.path} (no ${DEFAULT_SPEC} in this folder; it is the nearest one up to the repo's root)\n`);
      specPath = found.path;
    }
  }
  const loaded = await loadSpec(specPath);
  if (!loaded.ok) {
    process.stderr.write(`${formatSpecProblems(loaded.error)}\n`);
    if (searched)
      process.stderr.write(
        `bestof: no ${DEFAULT_SPEC} in this folder nor in any folder above it up to the repo's root; \`bestof init\` writes one at the root, or name a spec: \`bestof run path/to/spec.toml\`\n`,
      );
    process.stderr.write(`bestof: ${relative(process.cwd(), specPath) || specPath} is not a valid spec; nothing was run or created.\n`);
    return undefined;
  }
  return loaded.value;
}
