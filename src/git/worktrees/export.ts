/**
 * A clean export of one commit into a folder outside every worktree, for the reviewer: the
 * committed files and nothing else (no `.git`, no untracked or ignored file, no index bits).
 * `git archive` writes a tar file that `tar` extracts (src/engine/select/review-export.ts puts the
 * steps together); paths that the commit's own
 * `.gitattributes` hid with `export-ignore` are written back one by one, so a candidate cannot
 * hide a file from its reviewer.
 *
 * The project-instruction files of the agent CLIs are left out at every depth: a committed
 * CLAUDE.md / AGENTS.md / GEMINI.md (or `.claude/` settings with hooks, `.mcp.json`) must not
 * become the reviewer's instructions or configuration. The reviewer still sees them in the diff,
 * as text to judge.
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { err, ok, type Result } from '../../result.js';
import { gitMessage, runGit, splitNul } from '../running/exec.js';

/** Left out of an export, by file or folder name, at any depth. */
export const AGENT_INSTRUCTION_NAMES: ReadonlySet<string> = new Set([
  'CLAUDE.md',
  'CLAUDE.local.md',
  'AGENTS.md',
  'AGENTS.override.md',
  'GEMINI.md',
  '.claude',
  '.codex',
  '.gemini',
  '.mcp.json',
]);

/** `git archive` of `commit` (read through the repo of `gitCwd`) into the tar file `tarFile`. */
export async function archiveCommit(gitCwd: string, commit: string, tarFile: string): Promise<Result<void>> {
  const archived = await runGit(gitCwd, ['archive', '--format=tar', `--output=${tarFile}`, commit]);
  return archived.code === 0 ? ok() : err(`cannot export ${commit.slice(0, 10)} for the review: ${gitMessage(archived.stderr)}`);
}

/** Files of the commit that `export-ignore` kept out of the archive, written from git. */
export async function restoreExportIgnored(gitCwd: string, commit: string, dir: string): Promise<void> {
  const listed = await runGit(gitCwd, ['ls-tree', '-r', '-z', '--name-only', '--full-tree', commit]);
  if (listed.code !== 0) return;
  const present = new Set(await listFiles(dir));
  for (const path of splitNul(listed.stdout)) {
    if (path === '' || present.has(path)) continue;
    const shown = await runGit(gitCwd, ['show', `${commit}:${path}`]);
    if (shown.code !== 0) continue;
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), shown.stdout);
  }
}

/** Removes the agent-instruction files and folders (at any depth); returns what it removed. */
export async function stripInstructionFiles(dir: string): Promise<string[]> {
  const stripped: string[] = [];
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const full = join(folder, entry.name);
      if (AGENT_INSTRUCTION_NAMES.has(entry.name)) {
        await rm(full, { recursive: true, force: true });
        stripped.push(relative(dir, full));
      } else if (entry.isDirectory()) {
        await walk(full);
      }
    }
  };
  await walk(dir);
  return stripped.sort();
}

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries.filter((e) => !e.isDirectory()).map((e) => relative(dir, join(e.parentPath, e.name)).split(sep).join('/'));
}
