/**
 * An oracle check with `expect` (a JSON file `{"tests": ["name", ...]}`): judged by the tests it
 * names, read from the check's own report (`report`), not by its exit code. A mined task's oracle
 * is the fix's tests: the task is solved when those pass, whatever else the suite does (a test of
 * the repo that was already failing, a runner that exits 1 for a warning).
 *
 * The report is read by the same code the run's scoring uses (src/checks/test-report/), so the
 * names are the ones `bestof bench mine` read when it listed them. Every listed name must be in
 * the report, passed: a test missing from the report fails the check, so an `os._exit(0)` before
 * the tests ran, or a runner that skips them, never passes.
 */
import { readFile } from 'node:fs/promises';
import { parseTestReport } from '../checks/test-report/parse.js';
import type { TestReportKind } from '../spec/schema-parts.js';
import type { ReportInput } from '../checks/test-report/types.js';

/** How many of the failing names the verdict's `why` names. */
const NAMED = 5;

/** The names an `expect` file lists, or why it cannot be read. */
export async function readExpectedTests(file: string): Promise<{ ok: true; tests: string[] } | { ok: false; why: string }> {
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return { ok: false, why: `its expected tests (${file}) could not be read: ${(error as Error).message}` };
  }
  const tests = (data as { tests?: unknown } | null)?.tests;
  if (!Array.isArray(tests) || tests.length === 0 || !tests.every((t): t is string => typeof t === 'string'))
    return { ok: false, why: `its expected tests (${file}) are not {"tests": ["name", ...]} with at least one name` };
  return { ok: true, tests };
}

/**
 * What went wrong (the words after "oracle check <name>"), or undefined when every expected test is
 * in the report and passed. The exit code is not looked at.
 */
export function judgeExpected(kind: TestReportKind, input: ReportInput, expected: readonly string[]): string | undefined {
  const parsed = parseTestReport(kind, input);
  if (!parsed.ok) return `: its ${kind} report could not be read (${parsed.reason}: ${parsed.detail})`;
  const passed = new Set(parsed.tests.filter((t) => t.outcome === 'passed').map((t) => t.name));
  const wrong = expected.filter((name) => !passed.has(name));
  if (wrong.length === 0) return undefined;
  const named = wrong.slice(0, NAMED).join(', ');
  return `: ${wrong.length} of ${expected.length} expected tests failed or missing: ${named}${wrong.length > NAMED ? ', ...' : ''}`;
}
