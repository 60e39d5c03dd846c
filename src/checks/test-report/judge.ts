/**
 * A candidate's test report judged against base's (the reference: the same check run on `base` as
 * the run starts, ../../engine/run/reference.ts). Base's tests are what the task is measured by:
 * those that failed there are its targets (fail-to-pass), those that passed must keep passing
 * (pass-to-pass). The check passes only when the report holds every one of base's tests and each of
 * them passes. A test base ran that the report lacks is `missing`, never read as skipped: code that
 * exits as it loads, or deletes or renames a test, leaves tests out of the report, and the runner's
 * exit code would have said nothing of it. Tests base did not run (the candidate's new ones) and
 * those base skipped are reported, never counted.
 */
import type { CheckReport, JudgedTest, ParsedReport, TestCaseResult, TestReportKind, TestRole } from './types.js';

export interface Judgement {
  readonly passed: boolean;
  readonly report: CheckReport;
}

/**
 * `reference` undefined: no base run to hold the report to (the reference run itself); then the
 * report alone decides: at least one test, none failed.
 */
export function judgeReport(kind: TestReportKind, report: ParsedReport, reference: readonly TestCaseResult[] | undefined): Judgement {
  const counted = (reference ?? []).filter((test) => test.outcome !== 'skipped');
  if (!report.ok) {
    const tests = counted.map((test): JudgedTest => ({ name: test.name, outcome: 'missing', role: roleOnBase(test) }));
    const failure = report.reason === 'missing' ? 'no test report' : `the test report could not be read: ${report.detail}`;
    return { passed: false, report: { kind, tests, expected: counted.length, passed: 0, missing: counted.length, failure } };
  }
  return reference === undefined ? judgeAlone(kind, report.tests) : judgeAgainst(kind, report.tests, reference);
}

/** Partial credit (`partial = true`): the check's points times the share of base's tests that pass, to a thousandth of a point. */
export function partialPoints(score: number, report: CheckReport): number {
  if (report.expected === 0) return 0;
  return Math.round(((score * report.passed) / report.expected) * 1000) / 1000;
}

function judgeAgainst(kind: TestReportKind, tests: readonly TestCaseResult[], reference: readonly TestCaseResult[]): Judgement {
  const byName = new Map(tests.map((test) => [test.name, test]));
  const onBase = new Set(reference.map((test) => test.name));
  const judged: JudgedTest[] = reference.map((base) => {
    const here = byName.get(base.name);
    const role = roleOnBase(base);
    if (here === undefined) return { name: base.name, outcome: 'missing', role };
    return { name: base.name, outcome: here.outcome, role, ...(here.message ? { message: here.message } : {}) };
  });
  for (const test of tests) {
    if (!onBase.has(test.name)) judged.push({ name: test.name, outcome: test.outcome, role: 'new', ...(test.message ? { message: test.message } : {}) });
  }
  return summarise(kind, judged);
}

function judgeAlone(kind: TestReportKind, tests: readonly TestCaseResult[]): Judgement {
  const judged = tests.map(
    (test): JudgedTest => ({
      name: test.name,
      outcome: test.outcome,
      // Without base, every test that ran is held to passing.
      role: test.outcome === 'skipped' ? 'skipped_on_base' : 'pass_to_pass',
      ...(test.message ? { message: test.message } : {}),
    }),
  );
  const judgement = summarise(kind, judged);
  if (judgement.report.expected > 0) return judgement;
  return { passed: false, report: { ...judgement.report, failure: 'the test report has no test that ran' } };
}

function roleOnBase(test: TestCaseResult): TestRole {
  if (test.outcome === 'passed') return 'pass_to_pass';
  return test.outcome === 'skipped' ? 'skipped_on_base' : 'fail_to_pass';
}

function summarise(kind: TestReportKind, tests: readonly JudgedTest[]): Judgement {
  const counted = tests.filter((test) => test.role === 'fail_to_pass' || test.role === 'pass_to_pass');
  const passed = counted.filter((test) => test.outcome === 'passed').length;
  const missing = counted.filter((test) => test.outcome === 'missing').length;
  const failed = counted.filter((test) => test.outcome === 'failed' || test.outcome === 'errored').length;
  const skipped = counted.filter((test) => test.outcome === 'skipped').length;
  const words = [
    missing > 0 ? `${plural(missing, 'test')} went missing` : '',
    failed > 0 ? `${failed} of ${plural(counted.length, 'test')} failed` : '',
    skipped > 0 ? `${skipped} of ${plural(counted.length, 'test')} skipped` : '',
  ].filter(Boolean);
  const report: CheckReport = {
    kind,
    tests,
    expected: counted.length,
    passed,
    missing,
    ...(words.length > 0 ? { failure: words.join(', ') } : {}),
  };
  return { passed: words.length === 0, report };
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
