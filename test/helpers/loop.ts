/**
 * Helpers for the candidate-loop tests: ten checks worth 10 points each (`p1` ... `p10`
 * exist), and script agents whose iteration i leaves exactly scores[i] / 10 of those files,
 * so a test can say "this candidate scores 30, then 80" and mean it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReportJson } from './run-record.js';

export const TEN_CHECKS = Array.from({ length: 10 }, (_, i) => `[[checks.items]]\nname = "p${i + 1}"\ncommand = "test -f p${i + 1}"\nscore = 10\n`).join('\n');

export interface IterationExtras {
  /** Extra TOML steps appended to an iteration, by 0-based index. */
  readonly [iteration: number]: string;
}

/** A script whose iteration i makes the score scores[i] (a multiple of 10); later iterations repeat the last. */
export function scoreScript(scores: readonly number[], extras: IterationExtras = {}): string {
  return scores
    .map((score, i) => {
      const files = score / 10;
      const steps = Array.from({ length: 10 }, (_, k) =>
        k < files ? `[[iterations.steps]]\nwrite = "p${k + 1}"\ncontent = "iteration ${i + 1}\\n"\n` : `[[iterations.steps]]\ndelete = "p${k + 1}"\n`,
      ).join('');
      return `[[iterations]]\n${steps}${extras[i] ?? ''}`;
    })
    .join('\n');
}

export type LoopReport = ReportJson;

export function onlyRunDir(repoDir: string): string {
  const runs = join(repoDir, '.bestof', 'runs');
  const names = readdirSync(runs);
  if (names.length !== 1) throw new Error(`expected one run, found ${names.length}`);
  return join(runs, names[0] as string);
}

export function readLoopReport(repoDir: string): LoopReport {
  return JSON.parse(readFileSync(join(onlyRunDir(repoDir), 'report.json'), 'utf8')) as LoopReport;
}

export function promptOf(repoDir: string, candidate: string, iteration: number): string {
  return readFileSync(join(onlyRunDir(repoDir), 'candidates', candidate, `iteration-${iteration}`, 'prompt.md'), 'utf8');
}
