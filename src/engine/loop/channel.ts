/**
 * The channel: one JSONL file per candidate in the run folder that `bestof send`,
 * `bestof stop` and the interactive UI append to, and that the candidate's loop reads at
 * each iteration boundary. A file, not a socket, so that it works across processes, after a
 * resume, and leaves a record of what was said.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { candidateDir, CHANNEL_FILE } from '../record/run-folder.js';

export interface ChannelEntry {
  readonly t: string;
  readonly kind: 'message' | 'stop';
  readonly text: string;
}

export function channelFile(runDir: string, candidate: string): string {
  return join(candidateDir(runDir, candidate), CHANNEL_FILE);
}

export function writeToChannel(runDir: string, candidate: string, entry: Omit<ChannelEntry, 't'>): void {
  mkdirSync(candidateDir(runDir, candidate), { recursive: true });
  appendFileSync(channelFile(runDir, candidate), `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);
}

export interface ChannelRead {
  readonly entries: readonly ChannelEntry[];
  /** Complete lines read so far, the new `consumed`. */
  readonly consumed: number;
}

/**
 * The entries appended after the first `consumed` complete lines. The loop keeps `consumed`
 * in its state, so that a resumed loop skips what it already saw.
 */
export function readChannel(file: string, consumed: number): ChannelRead {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return { entries: [], consumed };
  }
  // Only complete lines: a writer may be in the middle of one.
  const lines = text.split('\n').slice(0, -1);
  const entries = lines.slice(consumed).flatMap((line) => {
    try {
      const entry = JSON.parse(line) as ChannelEntry;
      return entry.kind === 'stop' || entry.kind === 'message' ? [entry] : [];
    } catch {
      return [];
    }
  });
  return { entries, consumed: lines.length };
}
