/**
 * The git processes code under test starts: a `git` first on PATH writes down each call's
 * arguments (one line), then runs the real git (bestof starts git from PATH). PATH is put back
 * after `fn`, whatever it does.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What `fn` returns, and each git call it made (`-c k=v` options included), in order. `dir`: an empty temp folder. */
export async function recordGitCalls<T>(dir: string, fn: () => Promise<T>): Promise<{ result: T; calls: string[] }> {
  const log = join(dir, 'calls.log');
  const real = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  writeFileSync(join(dir, 'git'), `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
  const path = process.env.PATH;
  process.env.PATH = `${dir}:${path ?? ''}`;
  try {
    const result = await fn();
    return { result, calls: existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean) : [] };
  } finally {
    process.env.PATH = path;
  }
}
