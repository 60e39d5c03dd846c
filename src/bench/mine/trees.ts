/**
 * The trees a commit is validated on (./validate.ts), each a clean export (git archive: no .git,
 * nothing untracked, like the bench's oracle exports) in the mining folder:
 *
 *   before     the parent, with the commit's version of its test files laid in
 *   after      the commit (twice, in two trees: the second run finds flaky tests)
 *   reference  the commit with the parent's version of its test files put back: what an agent
 *              that wrote exactly the fix would be scored on by the visible checks
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { archiveFiles, filesAt } from '../../git/history/mining.js';
import { archiveCommit, restoreExportIgnored } from '../../git/worktrees/export.js';
import { extractTar } from '../../process/extract-tar.js';

/** A clean export of `commit` at `dir` (made anew). */
export async function exportCommit(repo: string, commit: string, dir: string): Promise<string | undefined> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const tar = `${dir}.tar`;
  const archived = await archiveCommit(repo, commit, tar);
  if (!archived.ok) return archived.error;
  const failed = await extractTar(tar, dir);
  await rm(tar, { force: true });
  if (failed !== undefined) return failed;
  await restoreExportIgnored(repo, commit, dir);
  return undefined;
}

/** Writes each file as it is at `commit` into `dir` (bytes as git has them, through a tar), or removes it when `commit` does not have it. */
export async function layFilesOf(repo: string, commit: string, files: readonly string[], dir: string): Promise<string | undefined> {
  if (files.length === 0) return undefined;
  const listed = await filesAt(repo, commit, files);
  if (!listed.ok) return listed.error;
  const present = new Set(listed.value);
  for (const file of files) if (!present.has(file)) await rm(join(dir, file), { force: true });
  if (present.size === 0) return undefined;
  const tar = `${dir}.files.tar`;
  const archived = await archiveFiles(repo, commit, [...present], tar);
  if (!archived.ok) return archived.error;
  for (const file of present) await rm(join(dir, file), { force: true });
  const failed = await extractTar(tar, dir);
  await rm(tar, { force: true });
  return failed;
}
