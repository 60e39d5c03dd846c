/**
 * The git folders an agent's sandbox needs to know about, read from the worktree's files
 * (no git call): the worktree's `.git` file names its admin dir (`<common>/worktrees/<name>`:
 * its HEAD and index), whose `commondir` file names the shared git dir. Read once per worktree,
 * before the agent's first call, and cached: inside the sandbox the agent cannot change those
 * files, and bestof never trusts what they say later.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface AgentGitDirs {
  /** The shared git dir (`<repo>/.git`). */
  readonly commonDir: string;
  /** `<commonDir>/worktrees/<name>`: this worktree's HEAD, index, logs. */
  readonly adminDir: string;
}

const cache = new Map<string, AgentGitDirs | undefined>();

/** The worktree's git dirs, or undefined when `worktree` is not a linked worktree. */
export function agentGitDirs(worktree: string): AgentGitDirs | undefined {
  if (cache.has(worktree)) return cache.get(worktree);
  let dirs: AgentGitDirs | undefined;
  try {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(join(worktree, '.git'), 'utf8'))?.[1]?.trim();
    if (pointer) {
      const adminDir = resolve(worktree, pointer);
      const common = readFileSync(join(adminDir, 'commondir'), 'utf8').trim();
      dirs = { commonDir: resolve(adminDir, common), adminDir };
    }
  } catch {
    dirs = undefined;
  }
  cache.set(worktree, dirs);
  return dirs;
}
