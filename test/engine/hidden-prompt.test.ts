/**
 * What the retry prompt says of a failed hidden check: how many of its tests failed, or how it
 * ended, and nothing of its output, its tests' names or their messages; with `show_output = true`
 * (the outcome not withheld) it reads as any check.
 */
import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../src/checks/run-checks.js';
import type { CheckReport, JudgedTest } from '../../src/checks/test-report/types.js';
import { buildIterationPrompt } from '../../src/engine/loop/prompts.js';

const SECRET = 'add(40, 2) should be 42';

const failing = (i: number): JudgedTest => ({ name: `hidden adds case ${i}`, outcome: 'failed', role: 'fail_to_pass', message: SECRET });
const passing = (i: number): JudgedTest => ({ name: `hidden keeps case ${i}`, outcome: 'passed', role: 'pass_to_pass' });

/** 3 of 9 tests failing, an output that names a hidden input. */
const REPORT: CheckReport = {
  kind: 'junit',
  tests: [0, 1, 2].map(failing).concat([0, 1, 2, 3, 4, 5].map(passing)),
  expected: 9,
  passed: 6,
  missing: 0,
  failure: '3 of 9 tests failed',
};

function outcome(extra: Partial<CheckOutcome>): CheckOutcome {
  return {
    name: 'acceptance',
    passed: false,
    points: 0,
    maxPoints: 10,
    exitCode: 1,
    timedOut: false,
    durationMs: 50,
    outputTail: `not ok 1 - ${SECRET}\n  at test/hidden/acceptance.test.js:3`,
    ...extra,
  };
}

function promptAfter(check: CheckOutcome): string {
  return buildIterationPrompt({
    task: 'Fix add.',
    iteration: 2,
    maxIterations: 3,
    messages: [],
    feedback: { score: 0, maxScore: 10, threshold: 10, failedChecks: [check], outcome: 'success', tampered: [] },
  });
}

describe('the retry prompt after a failed hidden check', () => {
  it('says how many of its tests failed, and neither its output nor its tests', () => {
    const prompt = promptAfter(outcome({ hidden: true, report: REPORT }));
    expect(prompt).toContain('- hidden check `acceptance` failed: 3 of 9 tests');
    expect(prompt).not.toContain(SECRET);
    expect(prompt).not.toContain('hidden adds case');
    expect(prompt).not.toContain('test/hidden');
    expect(prompt).not.toContain('These checks failed');
  });

  it('without a report, says how it ended', () => {
    expect(promptAfter(outcome({ hidden: true }))).toContain('- hidden check `acceptance` failed (exit 1)\n');
    expect(promptAfter(outcome({ hidden: true, exitCode: undefined, timedOut: true }))).toContain('- hidden check `acceptance` failed (timed out)\n');
    expect(promptAfter(outcome({ hidden: true }))).not.toContain(SECRET);
  });

  it('with a report that was not written, says so', () => {
    const none: CheckReport = { ...REPORT, tests: REPORT.tests.map((t) => ({ ...t, outcome: 'missing' })), passed: 0, missing: 9, failure: 'no test report' };
    expect(promptAfter(outcome({ hidden: true, report: none }))).toContain('- hidden check `acceptance` failed: no test report\n');
  });

  it('with show_output = true (not withheld), reads as any check: its output and failing tests', () => {
    const prompt = promptAfter(outcome({ report: REPORT }));
    expect(prompt).toContain('### acceptance (3 of 9 tests failed)');
    expect(prompt).toContain(SECRET);
    expect(prompt).toContain('hidden adds case 0');
  });
});
