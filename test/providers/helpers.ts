/** Replaying captured CLI output through the parsers, and process results without a process. */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ProcessResult } from '../../src/process/types.js';
import type { ClassifyContext } from '../../src/providers/classify-common.js';

export const FIXTURES = fileURLToPath(new URL('../fixtures/providers', import.meta.url));

export function fixture(path: string): string {
  return readFileSync(`${FIXTURES}/${path}`, 'utf8');
}

/** Feeds a fixture to a parser line by line, as runProcess would, and returns the activity lines. */
export function replay(parser: { push(line: string): void }, text: string): void {
  for (const line of text.split('\n')) parser.push(line);
}

export function exited(exitCode: number, extra: Partial<ProcessResult> = {}): ProcessResult {
  return {
    exitCode,
    signal: undefined,
    timedOut: false,
    canceled: false,
    spawnError: undefined,
    durationMs: 1234,
    stdout: '',
    stderr: '',
    ok: exitCode === 0,
    ...extra,
  };
}

export const CTX: ClassifyContext = { cli: 'The CLI', timeoutMs: 60_000, installHint: 'install it' };

/** Gone, or a zombie waiting for PID 1 to reap it (Linux /proc); polled for a few seconds. */
export async function expectGone(pid: number): Promise<void> {
  const { readFileSync: read } = await import('node:fs');
  const alive = () => {
    try {
      process.kill(pid, 0);
    } catch {
      return false;
    }
    try {
      return read(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
    } catch {
      return true;
    }
  };
  for (let i = 0; i < 100 && alive(); i++) await new Promise((r) => setTimeout(r, 50));
  if (alive()) throw new Error(`process ${pid} is still running`);
}
