/** A check's test report in words (src/engine/record/test-report-words.ts): the counts, the tests that did not pass, the failure. */
import { describe, expect, it } from 'vitest';
import { checkFailureWords, testCountsWords, testOutcomeWords, testsNotPassed } from '../../src/engine/record/test-report-words.js';
import { check } from '../ui/scripted-runs.js';
import { C1_FINAL, C2_FINAL, HOSTILE_TEST, REGRESSION, VANISHED, judgedReport, reportCheck } from '../ui/report-runs.js';

describe('the counts of a report', () => {
  it('say base\'s tests, then the new ones: "25 of 27 passed, 1 failed, 1 missing; 1 new test"', () => {
    expect(testCountsWords(C1_FINAL)).toBe('25 of 27 passed, 1 failed, 1 missing; 1 new test');
  });

  it('name errored and skipped tests only when there are some, and new tests that fail', () => {
    expect(testCountsWords(C2_FINAL)).toBe('0 of 27 passed, 25 failed, 1 errored, 1 skipped, 0 missing');
    const fresh = judgedReport(
      {},
      {
        fresh: [
          { name: 'n1', role: 'new', outcome: 'failed' },
          { name: 'n2', role: 'new', outcome: 'passed' },
        ],
      },
    );
    expect(testCountsWords(fresh)).toBe('27 of 27 passed, 0 failed, 0 missing; 2 new tests (1 failing)');
  });
});

describe('the tests that did not pass', () => {
  it("come failures first, then errors, missing and skipped, each in the report's order; new failures last", () => {
    const report = judgedReport(
      { 'add::adds 5': 'skipped', [VANISHED]: 'missing', [REGRESSION]: 'errored', [HOSTILE_TEST]: 'failed', 'add::adds 2': 'failed' },
      { fresh: [{ name: 'n1', role: 'new', outcome: 'failed' }] },
    );
    expect(testsNotPassed(report).map((t) => t.name)).toEqual(['add::adds 2', HOSTILE_TEST, REGRESSION, VANISHED, 'add::adds 5', 'n1']);
  });

  it('leave out passes, and new tests that were skipped (they cost nothing)', () => {
    const report = judgedReport({}, { fresh: [{ name: 'n1', role: 'new', outcome: 'skipped' }] });
    expect(testsNotPassed(report)).toEqual([]);
  });

  it('say what base made of each', () => {
    const [regression, vanished] = testsNotPassed(C1_FINAL);
    expect(regression && testOutcomeWords(regression)).toBe('failed (passed on base)');
    expect(vanished && testOutcomeWords(vanished)).toBe('missing (passed on base)');
  });
});

describe('why a check failed', () => {
  it("is its report's failure when it has one, else how its process ended", () => {
    expect(checkFailureWords(reportCheck(C1_FINAL))).toBe('1 of 27 tests failed, 1 went missing');
    expect(checkFailureWords(check('basic', false))).toBe('exit 1');
    expect(checkFailureWords({ ...check('basic', false), timedOut: true })).toBe('timed out');
    expect(checkFailureWords({ ...check('basic', false), exitCode: undefined })).toBe('did not run to its end');
  });
});
