/**
 * git behind a wrapper: a `git` first on PATH that runs a few lines of sh of the test's (hold a
 * call, fail it, kill itself) before it hands the call to the real git. Faults at the edge, as
 * test/binary/infrastructure.test.ts injects them; the real git does the work.
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli, type CliResult } from './cli.js';

const REAL_GIT = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();

/** `<dir>/bin` holding the wrapper; `prelude` sees the call's arguments as "$@". */
export function wrappedGitBin(dir: string, prelude: string): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'git'), `#!/bin/sh\n${prelude}\nexec '${REAL_GIT}' "$@"\n`, { mode: 0o755 });
  return bin;
}

/** `bestof <args>` in a process group of its own, the wrapper first on PATH; `ended()` says how it ended, once it has. */
export function startWithWrappedGit(
  args: readonly string[],
  options: { readonly cwd: string; readonly worktreesDir: string; readonly bin: string },
): { child: ChildProcess; done: Promise<CliResult>; ended: () => string | undefined } {
  const { child, done } = startCli(args, {
    cwd: options.cwd,
    worktreesDir: options.worktreesDir,
    env: { PATH: `${options.bin}:${process.env.PATH ?? ''}` },
    ownProcessGroup: true,
  });
  let ended: string | undefined;
  void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
  return { child, done, ended: () => ended };
}
