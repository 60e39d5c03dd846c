/**
 * Deleting a big folder nobody uses any more without making the user wait: a process of its own,
 * in a process group of its own, that outlives bestof (`rm -rf`, at a lower priority), then, when
 * asked, removes the folder it was in if that is empty. For what a run removes at its end: the
 * candidates' worktrees and the shared base checkout of copy-on-write worktrees (tens of thousands
 * of files, 64 worktrees: seconds to a minute of disk work after the run has said everything). It is
 * not one of runProcess's children: nothing kills it when bestof exits. What read-only folders (Go's
 * module cache, an agent's `chmod`) keep from `rm -rf` is opened up (`chmod -R u+rwx`, which never
 * follows a symbolic link inside) and deleted the second time (../owned-tree.ts says why).
 */
import { spawn } from 'node:child_process';

/** Starts deleting `path` (then `parent`, when given and empty) and returns at once; false when no process could be started. */
export function removeInBackground(path: string, parent = ''): boolean {
  try {
    const child = spawn(
      'nice',
      [
        '-n',
        '10',
        'sh',
        '-c',
        'rm -rf -- "$1" 2>/dev/null || { chmod -R u+rwx -- "$1" 2>/dev/null; rm -rf -- "$1"; }; [ -z "$2" ] || rmdir -- "$2" 2>/dev/null; exit 0',
        'sh',
        path,
        parent,
      ],
      {
        detached: true,
        stdio: 'ignore',
      },
    );
    child.on('error', () => undefined); // not started: the folder stays for `bestof clean`
    child.unref();
    return child.pid !== undefined;
  } catch {
    return false;
  }
}
