/**
 * Other OS processes that use bestof's git code at the same time as the test: `node` running a
 * small ES module that imports the compiled module from dist/ (the real code, as the bestof
 * binary runs it; rebuild with `npx tsc -p tsconfig.build.json` after changing src/).
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PROJECT_ROOT } from './cli.js';

/** `import ... from '<dist/git/<room>/file>.js'` for a child script (file: its path under dist/git). */
export function distModule(file: string): string {
  return JSON.stringify(pathToFileURL(join(PROJECT_ROOT, 'dist', 'git', file)).href);
}

export interface ScriptResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs an ES module given as text in a new `node` process; `args` are its process.argv[1..]. */
export function runNodeScript(source: string, args: readonly string[] = []): { pid: number; done: Promise<ScriptResult> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<ScriptResult>((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
  return { pid: child.pid as number, done };
}
