/**
 * A program that takes over bestof's terminal (`bestof attach` runs `tmux attach` this way):
 * stdin, stdout and stderr are inherited, nothing is captured, and bestof waits for it to end.
 * Everything else bestof runs goes through ./run-process.ts, with its output captured.
 */
import type { Env } from '../env.js';
import { spawn } from 'node:child_process';

/** Runs the program on bestof's own terminal; resolves with its exit status (128+N for signal N, 127 when it could not start). */
export function runOnTerminal(command: string, args: readonly string[], env: Env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, [...args], { stdio: 'inherit', env });
    child.on('error', () => resolve(127));
    child.on('close', (code, signal) => resolve(code ?? (signal ? 128 + signalNumber(signal) : 1)));
  });
}

function signalNumber(signal: NodeJS.Signals): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGQUIT: 3, SIGKILL: 9, SIGTERM: 15 };
  return numbers[signal] ?? 0;
}
