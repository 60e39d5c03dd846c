/**
 * What the plan asks of the machine rather than of the spec (src/engine/plan/plan.ts): bash for the
 * checks, folders bestof can make, and arguments a program can be given. Each one, missing, would
 * fail every candidate of the run after its agents had worked; said before anything is created.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { MAX_ARG_BYTES } from '../../process/arg-limit.js';
import { findOnPath } from '../../process/find-on-path.js';
import type { Spec } from '../../spec/schema.js';
import { RUNS_DIR } from '../record/run-folder.js';

/** bash on PATH (checks and setup commands), and the run folders and the worktrees folder makeable. */
export async function machineProblems(spec: Spec, repoRoot: string, worktreesFolder: string): Promise<string[]> {
  const problems: string[] = [];
  // Checks and setup commands are shell lines run as `bash -c` (src/process/run-process.ts runShell):
  // without bash (Alpine, a slim image) every one of them would fail, for every candidate.
  if ((spec.checks.items.length > 0 || spec.setup.commands.length > 0) && (await findOnPath('bash')) === undefined) {
    problems.push(
      'checks: the checks and [setup] commands run with bash (`bash -c`), which is on no folder of PATH: install it (Alpine: `apk add bash`; Debian/Ubuntu: `apt install bash`)',
    );
  }
  const runsFolder = join(repoRoot, RUNS_DIR);
  const [rootProblem, runsProblem] = await Promise.all([folderProblem(worktreesFolder), folderProblem(runsFolder)]);
  if (runsProblem !== undefined) {
    problems.push(
      `${RUNS_DIR}: bestof cannot make its run folders in ${runsFolder}: ${runsProblem}; a run's record is kept there, in the repo (move what is in the way, or run bestof as a user who can write the repo)`,
    );
  }
  if (rootProblem !== undefined) {
    problems.push(
      `worktrees: bestof cannot make its worktrees folder ${worktreesFolder}: ${rootProblem}; set BESTOF_WORKTREES_DIR to a folder you can write (the default is under XDG_CACHE_HOME, else ~/.cache)`,
    );
  }
  return problems;
}

/**
 * Why a folder bestof makes (the worktrees folder, the repo's `.bestof/runs`) cannot be made or
 * written, or undefined when it can: asked before anything is created (only looks), so that a HOME
 * nobody can write (a service account, HOME=/nonexistent) or a file named `.bestof` fails the plan
 * with what to do, instead of every candidate failing its setup as "lost to a failure of git or
 * bestof", or the run as an internal error.
 */
async function folderProblem(root: string): Promise<string | undefined> {
  let at = resolve(root);
  for (;;) {
    try {
      if (!(await stat(at)).isDirectory()) return `${at} is not a folder`;
      await access(at, constants.W_OK | constants.X_OK);
      return undefined;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not there yet: made at the run's first setup, if the nearest folder above can be written
      // (ENOTDIR: a file on the way, which the look one level up names).
      if ((code === 'ENOENT' || code === 'ENOTDIR') && dirname(at) !== at) {
        at = dirname(at);
        continue;
      }
      return code === 'EACCES' || code === 'EPERM' || code === 'EROFS' ? `${at} cannot be written (${code})` : `${at}: ${(error as Error).message}`;
    }
  }
}

/**
 * A `command` agent given the prompt as an argument cannot be started with a prompt longer than one
 * argument of a program may be (MAX_ARG_BYTES on Linux: E2BIG): said now when the task or a phase's
 * prompt is that long already. The prompts of later iterations only grow; an agent call whose
 * prompt outgrows the limit on the way ends crashed, saying the same (src/providers/command.ts).
 */
export function promptArgumentProblems(keys: ReadonlySet<string>, prompts: readonly string[]): string[] {
  const longest = Math.max(0, ...prompts.map((prompt) => Buffer.byteLength(prompt)));
  if (longest < MAX_ARG_BYTES) return [];
  return [...keys].map(
    (key) =>
      `${key}.args: the prompt is ${Math.ceil(longest / 1024)} KiB, longer than one argument of a program may be on Linux (${MAX_ARG_BYTES / 1024} KiB), and this command agent gets it as an argument (\`{prompt}\`, or no \`args\`); give it the prompt as a file instead: \`args = ["{prompt_file}"]\``,
  );
}
