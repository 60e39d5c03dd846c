/** Extracting a tar file with the system's `tar` (for the reviewer's clean export). */
import { runProcess } from './run-process.js';

/** Extracts `tarFile` into the existing folder `dir`; the error says what tar said. */
export async function extractTar(tarFile: string, dir: string): Promise<string | undefined> {
  const result = await runProcess('tar', ['-xf', tarFile, '-C', dir, '--no-same-owner'], { cwd: dir, env: process.env, timeoutMs: 120_000 });
  return result.ok ? undefined : (result.spawnError ?? (result.stderr.trim() || `tar exited with ${result.exitCode ?? result.signal}`));
}
