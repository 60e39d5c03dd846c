/**
 * The git an agent in the sandbox may write: a scratch object store and a scratch copy of its
 * worktree's admin dir (index, HEAD), never the user's. Inside the sandbox (src/engine/sandbox/agent-sandbox.ts)
 * the shared git dir is read-only, and two of its folders are the scratch's instead, at the same
 * paths, so that the agent's git needs no setting of any kind:
 *
 *   <common>/objects               <scratch>/objects, whose `info/alternates` names
 *                                  <scratch>/shared-objects, where the real `<common>/objects` is
 *                                  bound read-only: every object of the repository reads as before,
 *                                  and what the agent's `git add`, `git gc` or `git prune` writes (or
 *                                  prunes) stays in the scratch.
 *   <common>/worktrees/<name>      <scratch>/admin, a copy of the worktree's admin dir as bestof
 *                                  left it (HEAD, index, commondir, gitdir): `git status`, `git add`,
 *                                  `git diff --cached` work as in any checkout.
 *
 * Why: a loose object is a file, and a pack a pair of them. With the shared store writable (as it
 * was, for the agent's own `git add`) an agent could give base's blob of a frozen test other
 * content under the same name, delete the whole history, prune a rival's new objects, or plant a
 * commit-graph whose entry for base names another tree; with the index writable, it could point an
 * entry at base's blob while keeping the stat data of a gutted file on disk, and git, which trusts
 * stat data, would never read that file again. Here every one of those writes lands in the
 * scratch, which bestof never reads: bestof commits a candidate's work with its own index, hashing
 * the files on disk itself (../history/commit.ts), so the only objects that reach the shared store are ones
 * bestof's git wrote from content it hashed. Nothing of the agent's is imported, so nothing needs
 * verifying.
 *
 * Bound, not named in the environment (GIT_OBJECT_DIRECTORY, GIT_INDEX_FILE): those would apply to
 * every repository the agent's git touches, a `git init` or `git clone` of its own and npm's clone
 * of a git dependency, whose objects and index would land in the scratch. Without the sandbox none
 * of this is used: the agent's git writes where git writes (docs/protection.md says what no sandbox
 * protects).
 */
import { copyFile, mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { removeTree } from '../../owned-tree.js';
import type { AgentGitDirs } from './agent-git-dirs.js';

export interface AgentGitScratch {
  /** The folder that holds it all (writable in the sandbox). */
  readonly dir: string;
  /** Bound at `<common>/objects`, writable. */
  readonly objects: string;
  /** Bound at the worktree's admin dir, writable. */
  readonly admin: string;
  /** Where the real `<common>/objects` is bound read-only (an empty folder outside the sandbox). */
  readonly sharedObjects: string;
}

/** The scratch's folders in `dir`, as the sandbox binds them (known before the scratch is made). */
export function agentGitScratchPaths(dir: string): AgentGitScratch {
  return { dir, objects: join(dir, 'objects'), admin: join(dir, 'admin'), sharedObjects: join(dir, 'shared-objects') };
}

/** What a new admin dir needs of the worktree's (its reflog and the rest are the agent's to start afresh). */
const ADMIN_FILES = ['HEAD', 'index', 'commondir', 'gitdir', 'ORIG_HEAD', 'config.worktree'] as const;

/**
 * Makes `dir` the scratch of one agent call: what an earlier call's git wrote there is removed,
 * then the objects folder borrowing the shared store and a copy of the worktree's admin dir as
 * bestof left it. The folders themselves stay (emptied, not replaced): a shannon session lives
 * across calls with them bound into its sandbox, and a bind mount holds the folder it was made on.
 */
export async function prepareAgentGitScratch(dir: string, git: AgentGitDirs): Promise<AgentGitScratch> {
  const scratch = agentGitScratchPaths(dir);
  await Promise.all([scratch.objects, scratch.admin, scratch.sharedObjects].map((folder) => emptyFolder(folder)));
  await Promise.all([mkdir(join(scratch.objects, 'info')), mkdir(join(scratch.objects, 'pack'))]);
  await writeFile(join(scratch.objects, 'info', 'alternates'), `${scratch.sharedObjects}\n`);
  await Promise.all(
    ADMIN_FILES.map((name) =>
      copyFile(join(git.adminDir, name), join(scratch.admin, name)).catch((error: NodeJS.ErrnoException) => {
        // Not every admin dir has them all (ORIG_HEAD, config.worktree; an index before a checkout).
        if (error.code !== 'ENOENT') throw error;
      }),
    ),
  );
  return scratch;
}

/** `folder`, made when missing, emptied when not. */
async function emptyFolder(folder: string): Promise<void> {
  await mkdir(folder, { recursive: true });
  await Promise.all((await readdir(folder)).map((entry) => removeTree(join(folder, entry))));
}
