/**
 * The distinguish step's matrix (`[select.distinguish]`, RunState.distinguish) as every report
 * shows it: one row per generated test, one cell per target (each finalist, then base), each cell
 * the outcome of that file on that tree and the end of its output when it did not pass. The
 * reports (report.json, report.md, report.html) and their wording read it from here, so that they
 * say the same thing.
 */
import { BASE_TARGET, type DistinguishState, type TestRun, type TestRunOutcome } from '../distinguish/types.js';

/** One test file run on one target, as the matrix holds it. */
export interface MatrixCell {
  readonly outcome: TestRunOutcome;
  readonly tail: string | null;
}

export interface MatrixRow {
  readonly test: string;
  /** Its file under the tests folder; null for a run of a test the tester's call does not list. */
  readonly file: string | null;
  /** true or false once the step decided; null when it did not (skipped, or interrupted before it ranked). */
  readonly kept: boolean | null;
  /** Why the ranking left it out. */
  readonly dropped: string | null;
  /** By target; null where it did not run. */
  readonly cells: Readonly<Record<string, MatrixCell | null>>;
}

export interface DistinguishMatrix {
  /** The finalists (best first once the step decided, else in the ranking's order before it), then base. */
  readonly targets: readonly string[];
  readonly rows: readonly MatrixRow[];
}

/** The words of an outcome in a cell: `pass`, `FAIL`, `timed out`. */
export const OUTCOME_WORDS: Readonly<Record<TestRunOutcome, string>> = { passed: 'pass', failed: 'FAIL', timed_out: 'timed out' };

/** The finalists, best first once the step decided, in the order before it otherwise; finalists that only the runs name come last. */
export function finalistsOf(d: DistinguishState): string[] {
  const known = d.result?.order ?? d.start?.finalists ?? [];
  const ran = d.runs.map((r) => r.target).filter((t) => t !== BASE_TARGET);
  return [...new Set([...known, ...ran])];
}

export function distinguishMatrix(d: DistinguishState): DistinguishMatrix {
  const targets = [...finalistsOf(d), BASE_TARGET];
  // A resumed step records its runs again: the last run of a test on a target is the one that counts.
  const last = new Map<string, TestRun>(d.runs.map((r) => [`${r.test}\u0000${r.target}`, r]));
  const listed = d.call?.tests ?? [];
  const tests = [...listed.map((t) => ({ test: t.id, file: t.file as string | null }))];
  for (const run of d.runs) if (!tests.some((t) => t.test === run.test)) tests.push({ test: run.test, file: null });
  const result = d.result;
  const rows = tests.map(({ test, file }): MatrixRow => {
    const cells: Record<string, MatrixCell | null> = {};
    for (const target of targets) {
      const run = last.get(`${test}\u0000${target}`);
      cells[target] = run ? { outcome: run.outcome, tail: run.tail ?? null } : null;
    }
    const dropped = result?.dropped.find((x) => x.test === test)?.reason ?? null;
    return { test, file, kept: result ? result.kept.includes(test) : null, dropped, cells };
  });
  return { targets, rows };
}

/** A finalist's kept tests passed, of how many: what the step's ranking counted. */
export function passedOf(d: DistinguishState, id: string): { readonly passed: number; readonly of: number } | undefined {
  const r = d.result;
  if (!r || r.passed[id] === undefined) return undefined;
  return { passed: r.passed[id], of: r.kept.length };
}
