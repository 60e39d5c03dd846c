/**
 * The channel: one JSONL file per candidate in the run folder that `bestof send`,
 * `bestof stop` and the interactive UI append to, and that the candidate's loop reads at
 * each iteration boundary. A file, not a socket, so that it works across processes, after a
 * resume, and leaves a record of what was said.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { candidateDir } from '../report/run-folder.js';

export interface ChannelEntry {
  readonly t: string;
  readonly kind: 'message' | 'stop';
  readonly text: string;
}

export function channelFile(runDir: string, candidate: string): string {
  return join(candidateDir(runDir, candidate), 'channel.jsonl');
}

export function writeToChannel(runDir: string, candidate: string, entry: Omit<ChannelEntry, 't'>): void {
  mkdirSync(candidateDir(runDir, candidate), { recursive: true });
  appendFileSync(channelFile(runDir, candidate), `${JSON.stringify({ t: new Date().toISOString(), ...entry })}\n`);
}

/** Reads only what was appended since the last read; `consumed` lets a resumed loop skip what it already saw. */
export class ChannelReader {
  private consumedLines: number;

  constructor(
    private readonly file: string,
    consumed = 0,
  ) {
    this.consumedLines = consumed;
  }

  get consumed(): number {
    return this.consumedLines;
  }

  readNew(): ChannelEntry[] {
    let text: string;
    try {
      text = readFileSync(this.file, 'utf8');
    } catch {
      return [];
    }
    // Only complete lines: a writer may be in the middle of one.
    const lines = text.split('\n').slice(0, -1);
    const fresh = lines.slice(this.consumedLines);
    this.consumedLines = lines.length;
    return fresh.flatMap((line) => {
      try {
        const entry = JSON.parse(line) as ChannelEntry;
        return entry.kind === 'stop' || entry.kind === 'message' ? [entry] : [];
      } catch {
        return [];
      }
    });
  }
}
