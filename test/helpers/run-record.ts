/**
 * Reading what a run left in its run folder, for tests that drive the real binary: report.json
 * (its shape, as far as tests look at it) and the event log as loose parsed lines.
 */
import { existsSync, readFileSync } from 'node:fs';

/** report.json, as the tests read it (src/report/report.ts writes it). */
export interface ReportJson {
  runId: string;
  status: string;
  exitCode: number;
  winner: string | null;
  merge: { ok: boolean; mode: string; message: string; commit?: string } | null;
  ranking: { candidate: string; score: number; eligible: boolean; reason?: string }[];
  candidates: {
    id: string;
    provider: string;
    status: string;
    reason: string;
    message: string | null;
    score: number | null;
    iterations: number;
    costUsd: number;
    usage: { input: number; output: number; cacheRead: number; cacheWrite: number };
    commit: string | null;
    ref: string;
    branch: string;
    tampered: boolean;
    tamperedPaths: { path: string; change: string }[];
    history: {
      iteration: number;
      outcome?: string;
      score?: number;
      commit?: string;
      phase?: string;
      review?: { verdict: string; reason?: string; points: number };
    }[];
  }[];
  warnings: string[];
}

export interface EventLine {
  type: string;
  candidate?: string;
  iteration?: number;
  status?: string;
  message?: string;
  [key: string]: unknown;
}

/** The lines of an events.jsonl (none when it does not exist yet); a torn last line is skipped. */
export function readEventLines(file: string): EventLine[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as EventLine];
      } catch {
        return [];
      }
    });
}
