/**
 * Folders an agent (or a check, or a tool they ran) made that their owner cannot list, enter or
 * write: `chmod 000 dir`, or Go's module cache (`$GOPATH/pkg/mod`), whose folders are read-only
 * on purpose; and files their owner cannot read (`chmod 000 file`: `git add -A` fails on it).
 * They belong to the user bestof runs as, so bestof may open them up, and it must: git skips a
 * folder it cannot read (`git add -A` commits nothing of it, and says so only in a warning),
 * `git clean` and `git reset --hard` fail in it, and `rm -rf` cannot delete what a read-only
 * folder holds (a worktree, an agent's HOME with copies of its logins, left on disk).
 *
 * Done only when something failed (or git warned): the walk costs a look at every folder, which
 * the normal path never pays. A leaf module, like result.ts, so that src/git, the checks and the
 * engine can all use it.
 */
import { chmod, lstat, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Gives the owner read, write and search permission on every folder under `root` (and `root`
 * itself) that this user owns and lacks one of them, and read permission on every such file that
 * lacks it; the other bits stay (a read-only file stays read-only). Symbolic links are never
 * followed or changed, nor is a folder named `.git` right under `root` (a repository's own folder
 * is git's business). Returns the folders and files it opened up; never throws (what it cannot
 * open up, the caller's next step fails on and says).
 */
export async function openUpTree(root: string): Promise<string[]> {
  const uid = process.getuid?.();
  const opened: string[] = [];
  const visit = async (dir: string, top: boolean): Promise<void> => {
    const info = await lstat(dir).catch(() => undefined);
    if (!info?.isDirectory()) return;
    if ((info.mode & 0o700) !== 0o700 && (uid === undefined || info.uid === uid)) {
      try {
        await chmod(dir, (info.mode & 0o7777) | 0o700);
        opened.push(dir);
      } catch {
        return;
      }
    }
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory() && !(top && entry.name === '.git')) await visit(join(dir, entry.name), false);
      else if (entry.isFile()) await readable(join(dir, entry.name));
    }
  };
  const readable = async (file: string): Promise<void> => {
    const info = await lstat(file).catch(() => undefined);
    if (!info?.isFile() || (info.mode & 0o400) !== 0 || (uid !== undefined && info.uid !== uid)) return;
    await chmod(file, (info.mode & 0o7777) | 0o400).then(
      () => void opened.push(file),
      () => undefined,
    );
  };
  await visit(root, true);
  return opened;
}

/** Error codes of a removal that a folder without the owner's permissions explains. */
const PERMISSION_CODES: ReadonlySet<string> = new Set(['EACCES', 'EPERM', 'ENOTEMPTY']);

/**
 * `rm -rf path`, which also deletes what folders without their owner's permissions hold (they are
 * opened up first, when the plain removal failed on them). Missing `path`: nothing to do.
 */
export async function removeTree(path: string): Promise<void> {
  try {
    await rm(path, { recursive: true, force: true });
  } catch (error) {
    if (!PERMISSION_CODES.has((error as NodeJS.ErrnoException).code ?? '')) throw error;
    await openUpTree(path);
    await rm(path, { recursive: true, force: true });
  }
}
