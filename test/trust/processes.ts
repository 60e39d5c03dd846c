/**
 * Finding the adversaries' processes on the host by a token in their argv: inside bubblewrap's
 * PID namespace the pids they see of themselves mean nothing out here.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { processIsGone } from '../helpers/wait.js';

/** The argv tokens of the adversaries' long-lived processes (see their scripts). */
export const ADVERSARY_TOKENS = ['trust-daemon-', 'trust-refmover-', 'trust-outlive-', 'trust-squatter-'] as const;

/** Live processes whose command line contains one of `tokens`, as "pid argv". */
export function leftoverProcesses(tokens: readonly string[]): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
    } catch {
      continue;
    }
    if (tokens.some((token) => cmdline.includes(token)) && !processIsGone(Number(entry))) found.push(`${entry} ${cmdline}`);
  }
  return found;
}

/** Ends, by pid, the processes a failed test left behind (only those carrying our token). */
export function killLeftovers(tokens: readonly string[]): void {
  for (const line of leftoverProcesses(tokens)) {
    try {
      process.kill(Number(line.split(' ')[0]), 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
