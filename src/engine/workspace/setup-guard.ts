/**
 * What setup made stays setup's. The setup paths (`node_modules/`, a copied `.env`: whatever the
 * spec's `[setup]` created, untracked or ignored) stay in the worktree while the checks run, so
 * an agent that writes there changes what a check runs without committing anything: a
 * `node_modules/.bin/node` that passes every test, a patched test runner under
 * `node_modules/vitest/`. The scoring tree's clean-up moves the agent's other leftovers aside, but
 * these it must keep.
 *
 * So the setup paths are fingerprinted when setup ends and after every scoring (the checks
 * themselves may write caches there), and compared before the next scoring, when the agent has
 * run in between. A difference means an agent changed them: they are removed and setup runs
 * again, and the checks see setup's own files. The run says so (a warning naming the candidate
 * and the paths); an honest agent that ran `npm install x` is not punished, its dependency comes
 * back from what it committed (package.json, the lockfile) through the spec's own setup commands.
 *
 * The fingerprint is each entry's path, type, mode, size, inode, mtime and ctime (nanoseconds).
 * ctime cannot be set back from user space: any write, rename or chmod changes it, even when the
 * agent restores mtime with `touch -d`. Reading it costs one lstat per file; nothing is hashed.
 */
import type { BigIntStats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { SandboxLayout } from '../../process/sandbox.js';
import type { Result } from '../../result.js';

export interface SetupGuard {
  /** The setup paths' entries that differ from the last seal (added, removed or modified), sorted; [] when none. */
  changed(): Promise<string[]>;
  /** Makes the setup paths anew (the spec's setup again, its commands in `sandbox` when given); the error says what failed. */
  rebuild(signal: AbortSignal, sandbox?: SandboxLayout): Promise<Result<void, { readonly message: string }>>;
  /** Takes the fingerprint the next changed() compares with. */
  seal(): Promise<void>;
}

export interface SetupGuardOptions {
  readonly worktree: string;
  /** Relative paths from setup-paths.json (folders may end in `/`). */
  readonly setupPaths: readonly string[];
  /** Removes the setup paths and runs setup again (src/engine/workspace/workspace.ts redoSetup). */
  readonly redo: (signal: AbortSignal, sandbox?: SandboxLayout) => Promise<Result<void, { readonly message: string }>>;
}

export function createSetupGuard(options: SetupGuardOptions): SetupGuard {
  let sealed: Map<string, string> | undefined;
  return {
    async changed() {
      if (sealed === undefined || options.setupPaths.length === 0) return [];
      return differences(sealed, await fingerprint(options.worktree, options.setupPaths));
    },
    rebuild: (signal, sandbox) => options.redo(signal, sandbox),
    async seal() {
      sealed = await fingerprint(options.worktree, options.setupPaths);
    },
  };
}

/**
 * Every entry under the setup paths (relative path -> its signature). A path that does not exist has
 * none. `walk: false`: the paths themselves only, a folder among them not read.
 */
export async function fingerprint(
  worktree: string,
  setupPaths: readonly string[],
  { walk = true }: { readonly walk?: boolean } = {},
): Promise<Map<string, string>> {
  const entries = new Map<string, string>();
  const pending = [...new Set(setupPaths.map((p) => p.replace(/\/+$/, '')).filter((p) => p !== ''))];
  // A few lstats at a time from one queue: node_modules holds tens of thousands of entries.
  const worker = async (): Promise<void> => {
    for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
      let stat: BigIntStats;
      try {
        stat = await lstat(join(worktree, rel), { bigint: true });
      } catch {
        continue;
      }
      entries.set(rel, signature(stat));
      if (walk && stat.isDirectory()) for (const name of await readdir(join(worktree, rel)).catch(() => [] as string[])) pending.push(`${rel}/${name}`);
    }
  };
  // Workers that find the queue empty while another still reads a folder end early; the last one
  // standing drains what that folder adds, so the walk is complete either way.
  await Promise.all(Array.from({ length: 16 }, worker));
  return entries;
}

function signature(stat: BigIntStats): string {
  const type = stat.isDirectory() ? 'd' : stat.isSymbolicLink() ? 'l' : stat.isFile() ? 'f' : 'o';
  // A folder's size and times change with its entries, which are compared one by one anyway.
  if (type === 'd') return `d ${stat.mode} ${stat.ino}`;
  return `${type} ${stat.mode} ${stat.size} ${stat.ino} ${stat.mtimeNs} ${stat.ctimeNs}`;
}

/** The paths whose signature differs between two fingerprints (added, removed or changed), sorted. */
export function differences(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changed = new Set<string>();
  for (const [path, sig] of after) if (before.get(path) !== sig) changed.add(path);
  for (const path of before.keys()) if (!after.has(path)) changed.add(path);
  return [...changed].sort();
}
