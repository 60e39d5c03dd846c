/**
 * bestof as a user without root. As root, nothing a permission bit says stops bestof (root reads
 * and deletes anything, and bwrap takes a root's capabilities as its own), so what users meet is
 * tried as `nobody` (setpriv) when the tests run as root, and as the user itself otherwise.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { BESTOF_BIN, PROJECT_ROOT } from './cli.js';

export const AS_ROOT = process.getuid?.() === 0;
export const NOBODY = 65534;
/** Can the tests run bestof as a user without root here? */
export const CAN_RUN_AS_USER = !AS_ROOT || existsSync('/usr/bin/setpriv') || existsSync('/bin/setpriv');

/** Gives `dir` and everything in it to the user the runs are made as (nobody, when the tests run as root). */
export function giveToUser(dir: string): void {
  if (AS_ROOT) execFileSync('chown', ['-R', `${NOBODY}:${NOBODY}`, dir]);
}

/** `bestof <args>` as a user without root, with only `env` (and PATH) in its environment. */
export function bestofAsUser(
  args: readonly string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const command = AS_ROOT ? 'setpriv' : process.execPath;
  const argv = AS_ROOT ? [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, BESTOF_BIN, ...args] : [BESTOF_BIN, ...args];
  return new Promise((resolve, reject) => {
    const child = spawn(command, argv, { cwd, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * Runs `code` (an ES module's text) with plain node as `nobody`, when the tests run as root; its
 * stdout, trimmed. That user cannot load the tests' TypeScript: `built(path)` names a module of
 * the build to import.
 */
export function nodeAsNobody(code: string, env: Record<string, string> = {}): string {
  return execFileSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', '--', process.execPath, '--input-type=module', '-e', code], {
    encoding: 'utf8',
    cwd: '/',
    env: { PATH: process.env.PATH ?? '', ...env },
  }).trim();
}

/** The build's module for `src/<path>.ts` (`dist/<path>.js`); it says to build first when it is missing. */
export function built(path: string): string {
  const file = join(PROJECT_ROOT, 'dist', `${path}.js`);
  if (!existsSync(file)) throw new Error(`build first (npx tsc -p tsconfig.build.json): ${file} is missing`);
  return file;
}
