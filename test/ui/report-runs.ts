/**
 * Scripted runs whose `basic` check names a test report (CheckOutcome.report), built by hand as
 * the engine's judge would leave them: for the surfaces that show tests (the dashboard's details,
 * the plain lines, report.md/json/html).
 */
import type { CheckOutcome } from '../../src/checks/run-checks.js';
import type { CheckReport, JudgedTest } from '../../src/checks/test-report/types.js';
import type { RunEvent, UnstampedEvent } from '../../src/engine/record/events.js';
import { candidate, check, finished, runStarted, stamp } from './scripted-runs.js';

/** A name that tries to be markup, a Markdown code span, a terminal sequence and a second line. */
export const HOSTILE_TEST = 'add::evil \u001b[2K`tick`</td><script>x()</script>\nc9 score 100';
export const REGRESSION = 'add::keeps zero';
export const VANISHED = 'add::handles <big> & "small"';

/** Base's 27 tests: the first three failed on base (the task's targets), the rest passed. */
export const BASE_TESTS: readonly { readonly name: string; readonly role: JudgedTest['role'] }[] = [
  ...Array.from({ length: 24 }, (_, i) => ({ name: `add::adds ${i + 1}`, role: i < 3 ? ('fail_to_pass' as const) : ('pass_to_pass' as const) })),
  { name: REGRESSION, role: 'pass_to_pass' },
  { name: VANISHED, role: 'pass_to_pass' },
  { name: HOSTILE_TEST, role: 'pass_to_pass' },
];

/** A report as the judge makes it: base's tests with these outcomes (passed unless named), then `fresh` new ones. */
export function judgedReport(
  outcomes: Readonly<Record<string, JudgedTest['outcome']>>,
  options: { readonly failure?: string; readonly fresh?: readonly JudgedTest[]; readonly messages?: Readonly<Record<string, string>> } = {},
): CheckReport {
  const tests: JudgedTest[] = BASE_TESTS.map(({ name, role }) => {
    const message = options.messages?.[name];
    return { name, role, outcome: outcomes[name] ?? 'passed', ...(message ? { message } : {}) };
  });
  tests.push(...(options.fresh ?? []));
  const base = tests.filter((t) => t.role !== 'new');
  return {
    kind: 'junit',
    tests,
    expected: base.length,
    passed: base.filter((t) => t.outcome === 'passed').length,
    missing: base.filter((t) => t.outcome === 'missing').length,
    ...(options.failure ? { failure: options.failure } : {}),
  };
}

/** The `basic` check with a report: it passed when the report has no failure. */
export function reportCheck(report: CheckReport, extra: Partial<CheckOutcome> = {}): CheckOutcome {
  const passed = report.failure === undefined;
  return { ...check('basic', passed, extra.outputTail ?? 'junit written to $BESTOF_REPORT_DIR\nTests 25 passed | 2 failed'), report, ...extra };
}

/** c1's loop scored 3 targets still failing; its final scoring found one regression and one vanished test, and a new test. */
export const C1_LOOP = judgedReport({ 'add::adds 1': 'failed', 'add::adds 2': 'failed', 'add::adds 3': 'failed' }, { failure: '3 of 27 tests failed' });
export const C1_FINAL = judgedReport(
  { [REGRESSION]: 'failed', [VANISHED]: 'missing' },
  {
    failure: '1 of 27 tests failed, 1 went missing',
    fresh: [{ name: 'add::new edge', role: 'new', outcome: 'passed' }],
    messages: { [REGRESSION]: 'AssertionError: expected 0 to be 1\n    at test/add.test.js:3:5' },
  },
);
/** c2 failed nearly everything: more tests than report.md lists. */
export const C2_FINAL = judgedReport(
  {
    ...Object.fromEntries(Array.from({ length: 24 }, (_, i) => [`add::adds ${i + 1}`, 'failed'])),
    [REGRESSION]: 'errored',
    [VANISHED]: 'skipped',
    [HOSTILE_TEST]: 'failed',
  },
  { failure: '27 of 27 tests failed' },
);

/** Two finished candidates whose `basic` check has a report; c1's last iteration scored again by the final scoring. */
export function reportRun(): RunEvent[] {
  const cs = [candidate(1, 'thorough'), candidate(2, 'hasty')];
  const scoredOnce = (id: string, basic: CheckOutcome, score: number): UnstampedEvent[] => [
    { type: 'candidate.status', candidate: id, status: 'running', iteration: 1 },
    { type: 'candidate.committed', candidate: id, iteration: 1, commit: id.padEnd(40, 'a'), changedFiles: 1 },
    { type: 'check.finished', candidate: id, iteration: 1, check: basic },
    { type: 'check.finished', candidate: id, iteration: 1, check: check('unicode', true) },
    { type: 'check.finished', candidate: id, iteration: 1, check: check('edges', true) },
    { type: 'candidate.scored', candidate: id, iteration: 1, score, maxScore: 100, failedChecks: basic.passed ? [] : ['basic'] },
  ];
  return stamp([
    runStarted(cs),
    ...scoredOnce('c1', reportCheck(C1_LOOP), 60),
    finished('c1', 'done', 'max_iterations', 60),
    ...scoredOnce('c2', reportCheck(C2_FINAL), 60),
    finished('c2', 'done', 'max_iterations', 60),
    // The final scoring scores c1's last commit again: its checks replace the iteration's.
    { type: 'check.finished', candidate: 'c1', iteration: 1, check: reportCheck(C1_FINAL) },
    { type: 'candidate.scored', candidate: 'c1', iteration: 1, score: 60, maxScore: 100, failedChecks: ['basic'], final: true },
    { type: 'run.finished', status: 'no_winner', exitCode: 1, winner: undefined, durationMs: 6100, message: 'no candidate reached the threshold' },
  ]);
}
