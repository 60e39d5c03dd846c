/**
 * The git an agent in the sandbox may write: a scratch object store and a scratch index of its
 * own, never the user's. Inside the sandbox the shared git dir (`.git`: objects, packs, the
 * commit-graph, refs, config) and the worktree's admin dir (`.git/worktrees/<name>`: index, HEAD)
 * are read-only; the agent's git finds these two through its environment:
 *
 *   GIT_OBJECT_DIRECTORY  `<scratch>/objects`, whose `info/alternates` names the shared
 *                         `objects/`: every object of the repository reads as before, and what the
 *                         agent's `git add` or `git gc` writes (or prunes) stays in the scratch.
 *   GIT_INDEX_FILE        `<scratch>/index`, a copy of bestof's index as the call starts: `git
 *                         status`, `git add`, `git diff --cached` work as in any checkout.
 *
 * Why: a loose object is a file, and a pack a pair of them. With the shared store writable (as it
 * was, for the agent's own `git add`) an agent could give base's blob of a frozen test other
 * content under the same name, delete the whole history, prune a rival's new objects, or plant a
 * commit-graph whose entry for base names another tree; with the index writable, it could point an
 * entry at base's blob while keeping the stat data of a gutted file on disk, and git, which trusts
 * stat data, would never read that file again. Here every one of those writes fails (read-only) or
 * lands in the scratch, which bestof never reads: bestof commits a candidate's work with its own
 * index, hashing from the files on disk (../git/commit.ts), so the only objects that reach the
 * shared store are ones bestof's git wrote from content it hashed itself. Nothing of the agent's
 * is imported, so nothing needs verifying.
 *
 * An agent that unsets the two variables writes nowhere: its git then fails on the read-only
 * store, as its `git commit` already did on the read-only refs (bestof commits after the call).
 * Without the sandbox none of this is used: the agent's git writes where git writes, and a commit
 * of its own must stay reachable in the shared store (the README says what no sandbox protects).
 */
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from '../owned-tree.js';
import type { AgentGitDirs } from './agent-git-dirs.js';

export interface AgentGitScratch {
  /** The folder that holds both (writable in the sandbox). */
  readonly dir: string;
  /** What the agent's git is pointed at, to merge into its environment. */
  readonly env: { readonly GIT_OBJECT_DIRECTORY: string; readonly GIT_INDEX_FILE: string };
}

/**
 * Makes `dir` the scratch of one agent call: emptied first (what an earlier call's git wrote
 * there is not carried over), then `objects/` borrowing the shared store and a copy of the
 * worktree's index as bestof left it. The folder itself stays (emptied, not replaced): a shannon
 * session lives across calls with this folder bound into its sandbox, and a bind mount holds the
 * folder it was made on.
 */
export async function prepareAgentGitScratch(dir: string, git: AgentGitDirs): Promise<AgentGitScratch> {
  await mkdir(dir, { recursive: true });
  await Promise.all((await readdir(dir)).map((entry) => removeTree(join(dir, entry))));
  const objects = join(dir, 'objects');
  await mkdir(join(objects, 'info'), { recursive: true });
  await mkdir(join(objects, 'pack'), { recursive: true });
  await writeFile(join(objects, 'info', 'alternates'), `${join(git.commonDir, 'objects')}\n`);
  const index = join(dir, 'index');
  // No index yet (a worktree whose checkout never wrote one): git starts from an empty one, as it would there.
  await copyFile(join(git.adminDir, 'index'), index).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
  return { dir, env: { GIT_OBJECT_DIRECTORY: objects, GIT_INDEX_FILE: index } };
}
