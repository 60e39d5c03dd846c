/**
 * progress.md: a short human-readable entry per iteration in the candidate's folder of the
 * run folder, so that a person (or the next agent) can see how the candidate got where it is.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Outcome } from '../../providers/types.js';
import { candidateDir, PROGRESS_FILE } from '../record/run-folder.js';

export interface ProgressEntry {
  readonly iteration: number;
  readonly phase?: string;
  readonly score: number;
  readonly maxScore: number;
  readonly failedChecks: readonly string[];
  readonly outcome: Outcome;
  readonly costUsd: number;
  readonly totalCostUsd: number;
  /** false for an agent that reports no cost (a command agent): "–", never $0. @default true */
  readonly costKnown?: boolean;
  readonly commit?: string;
  readonly review?: string;
  readonly tampered?: readonly string[];
}

export function appendProgress(runDir: string, candidate: string, entry: ProgressEntry): void {
  const dir = candidateDir(runDir, candidate);
  mkdirSync(dir, { recursive: true });
  const lines = [
    `## Iteration ${entry.iteration}${entry.phase ? ` (${entry.phase})` : ''}: score ${entry.score}/${entry.maxScore}`,
    '',
    `- agent: ${entry.outcome}`,
    `- failed checks: ${entry.failedChecks.length > 0 ? entry.failedChecks.join(', ') : 'none'}`,
    entry.costKnown === false
      ? '- cost: – (this agent reports no cost)'
      : `- cost: $${entry.costUsd.toFixed(4)} (candidate total $${entry.totalCostUsd.toFixed(4)})`,
    ...(entry.review ? [`- review: ${entry.review}`] : []),
    ...(entry.tampered && entry.tampered.length > 0 ? [`- changed frozen paths (ignored): ${entry.tampered.join(', ')}`] : []),
    `- commit: ${entry.commit ? entry.commit.slice(0, 10) : 'no changes'}`,
    '',
  ];
  appendFileSync(join(dir, PROGRESS_FILE), `${lines.join('\n')}\n`);
}
