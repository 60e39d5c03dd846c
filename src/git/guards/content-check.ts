/**
 * Files on disk compared with what the index says they are, by content, not by stat data.
 *
 * git trusts an index entry whose stat data (mtime, ctime, inode, size) matches the file: it never
 * reads that file again, in `git add -A`, `git status`, `git diff` or `git reset --hard`. So an
 * index whose entry names base's blob while carrying the stat data of a gutted test on disk (an
 * index written by an agent: possible wherever it can write the worktree's index, which is without
 * the sandbox) hides the gutted file from every git call, and the checks would run it. Hashing the
 * file itself (`git hash-object`, through the same attributes `git add` applies) finds it.
 *
 * The cost is the size of the files looked at, hashed once per scoring: the scoring tree asks for
 * the kept paths only (frozen and protected), which are the ones whose content decides the score.
 */
import { lstat, readlink } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { gitOut, splitLines, splitNul, type GitCallOptions } from '../running/exec.js';

/** An index entry: its mode, object name and path. */
interface IndexEntry {
  readonly mode: string;
  readonly sha: string;
  readonly path: string;
}

/**
 * The paths under `pathspecs` whose file on disk is not the blob the index names (or is missing,
 * or is a file where the index has a link, or the other way round). Submodule entries are not
 * files and are left out. Paths git cannot take one per line (a newline in the name) count as
 * differing: the caller writes them anew, which is never wrong.
 */
export async function indexEntriesOffDisk(worktree: string, pathspecs: readonly string[], opts: GitCallOptions = {}): Promise<string[]> {
  if (pathspecs.length === 0) return [];
  const listing = await gitOut(worktree, ['ls-files', '--stage', '-z', '--', ...pathspecs], opts);
  const entries = splitNul(listing)
    .map(parseStageLine)
    .filter((e): e is IndexEntry => e !== undefined && e.mode !== '160000');
  const differing: string[] = [];
  const toHash: IndexEntry[] = [];
  // Looked at all at once (libuv's thread pool does the lstats): one after the other, 5,000 files took 0.4 s.
  const looks = await Promise.all(
    entries.map(async (entry): Promise<'differs' | 'hash' | 'same'> => {
      const stat = await lstat(join(worktree, entry.path)).catch(() => undefined);
      if (stat === undefined) return 'differs';
      if (entry.mode === '120000') {
        return stat.isSymbolicLink() && blobName(await readlink(join(worktree, entry.path), { encoding: 'buffer' }), entry.sha.length) === entry.sha
          ? 'same'
          : 'differs';
      }
      return !stat.isFile() || entry.path.includes('\n') ? 'differs' : 'hash';
    }),
  );
  entries.forEach((entry, i) => {
    if (looks[i] === 'differs') differing.push(entry.path);
    else if (looks[i] === 'hash') toHash.push(entry);
  });
  if (toHash.length > 0) {
    // Through git, so that the attributes `git add` applies (line endings, a machine-wide filter) apply here too.
    const names = splitLines(await gitOut(worktree, ['hash-object', '--stdin-paths'], { ...opts, input: `${toHash.map((e) => e.path).join('\n')}\n` }));
    toHash.forEach((entry, i) => {
      if (names[i] !== entry.sha) differing.push(entry.path);
    });
  }
  return differing.sort();
}

/** `<mode> <sha> <stage>\t<path>`; undefined for a line of another shape. */
function parseStageLine(line: string): IndexEntry | undefined {
  const tab = line.indexOf('\t');
  if (tab < 0) return undefined;
  const [mode, sha] = line.slice(0, tab).split(' ');
  return mode && sha ? { mode, sha, path: line.slice(tab + 1) } : undefined;
}

/** The object name git gives a blob of this content (a link's target), in the repository's hash (by the length of its names). */
function blobName(content: Buffer, nameLength: number): string {
  const hash = createHash(nameLength === 64 ? 'sha256' : 'sha1');
  hash.update(`blob ${content.length}\0`);
  hash.update(content);
  return hash.digest('hex');
}
