/**
 * The tests of each candidate's checks that name a test report, for report.json (every test) and
 * report.md (the counts and the tests that did not pass, a bounded list). Read from the
 * candidate's last iteration that ran checks: the final scoring's checks when it scored again.
 */
import type { CheckOutcome } from '../checks/run-checks.js';
import type { CandidateState, IterationState, RunState } from '../engine/record/run-state.js';
import { checkFailureWords, testCountsWords, testMessageHead, testOutcomeWords, testsNotPassed } from '../engine/record/test-report-words.js';
import { printable } from '../printable.js';

/** Tests report.md names per check; report.json has every one. */
export const LISTED_TESTS = 20;

/** A candidate's last iteration that ran checks: what its score is made of. */
function lastChecked(c: CandidateState): IterationState | undefined {
  return c.iterations.filter((it) => it.checks.length > 0).at(-1);
}

/** One check of the final scoring in report.json: how it ended and, with a report, every test. */
function checkJson(check: CheckOutcome): Record<string, unknown> {
  const report = check.report;
  return {
    name: check.name,
    passed: check.passed,
    points: check.points,
    maxPoints: check.maxPoints,
    hidden: check.hidden === true,
    reason: check.passed ? null : checkFailureWords(check),
    report: report
      ? {
          kind: report.kind,
          expected: report.expected,
          passed: report.passed,
          missing: report.missing,
          failure: report.failure ?? null,
          tests: report.tests.map((t) => ({ name: t.name, outcome: t.outcome, role: t.role, message: t.message ?? null })),
        }
      : null,
  };
}

/** report.json's `finalChecks` of a candidate: the iteration its score comes from and each of its checks; null before any check ran. */
export function finalChecksJson(c: CandidateState): Record<string, unknown> | null {
  const last = lastChecked(c);
  return last ? { iteration: last.iteration, checks: last.checks.map(checkJson) } : null;
}

/** `text` as a Markdown code span, with a fence longer than any run of backticks in it. */
function codeSpan(text: string): string {
  const fence = '`'.repeat(Math.max(1, ...(text.match(/`+/g) ?? []).map((run) => run.length + 1)));
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/** The lines of one check with a report: its counts, then the tests that did not pass, at most LISTED_TESTS. */
function checkTestsMarkdown(id: string, check: CheckOutcome & { readonly report: NonNullable<CheckOutcome['report']> }): string[] {
  const report = check.report;
  const verdict = check.passed ? 'passed' : `failed: ${checkFailureWords(check)}`;
  const lines = ['', `### ${id} · ${printable(check.name)} (${report.kind}${check.hidden ? ', hidden' : ''})`, '', `${testCountsWords(report)} — ${verdict}`];
  const notPassed = testsNotPassed(report);
  if (notPassed.length > 0) lines.push('');
  for (const test of notPassed.slice(0, LISTED_TESTS)) {
    const message = testMessageHead(test);
    lines.push(`- ${codeSpan(printable(test.name))}: ${testOutcomeWords(test)}${message ? ` — ${printable(message)}` : ''}`);
  }
  if (notPassed.length > LISTED_TESTS) lines.push(`- and ${notPassed.length - LISTED_TESTS} more (report.json lists every test)`);
  return lines;
}

/** report.md's section of tests: per candidate and check with a report; empty when no check has one. */
export function testsMarkdown(state: RunState): string[] {
  const lines: string[] = [];
  for (const id of state.order) {
    const c = state.candidates[id];
    const last = c ? lastChecked(c) : undefined;
    for (const check of last?.checks ?? []) {
      if (check.report) lines.push(...checkTestsMarkdown(id, { ...check, report: check.report }));
    }
  }
  return lines.length > 0 ? ['', '## Tests (last iteration)', ...lines] : [];
}
