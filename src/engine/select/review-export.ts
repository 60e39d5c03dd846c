/**
 * The reviewer's clean export of a candidate's commit (see src/git/worktrees/export.ts): archived by
 * git, extracted by tar, files hidden by `export-ignore` written back, the agent CLIs'
 * instruction files left out. The caller removes the folder afterwards.
 */
import { mkdir, rm } from 'node:fs/promises';
import { archiveCommit, restoreExportIgnored, stripInstructionFiles } from '../../git/worktrees/export.js';
import { extractTar } from '../../process/extract-tar.js';
import { err, ok, type Result } from '../../result.js';
import { removeTree } from '../../owned-tree.js';

export interface CleanExport {
  readonly dir: string;
  /** Paths left out (the agent-instruction files). */
  readonly stripped: readonly string[];
}

/** Exports `commit` (read through the repo of `gitCwd`) into `dir`, which is emptied first. */
export async function exportCommit(gitCwd: string, commit: string, dir: string): Promise<Result<CleanExport>> {
  await removeTree(dir);
  await mkdir(dir, { recursive: true });
  const tarFile = `${dir}.tar`;
  try {
    const archived = await archiveCommit(gitCwd, commit, tarFile);
    if (!archived.ok) return archived;
    const failed = await extractTar(tarFile, dir);
    if (failed !== undefined) return err(`cannot extract the export of ${commit.slice(0, 10)}: ${failed}`);
  } finally {
    await rm(tarFile, { force: true });
  }
  await restoreExportIgnored(gitCwd, commit, dir);
  return ok({ dir, stripped: await stripInstructionFiles(dir) });
}
