import { describe, expect, it } from 'vitest';
import { judgeReport, partialPoints } from '../../../src/checks/test-report/judge.js';
import type { TestCaseResult, TestOutcome } from '../../../src/checks/test-report/types.js';

const t = (name: string, outcome: TestOutcome): TestCaseResult => ({ name, outcome });
const ok = (tests: TestCaseResult[]) => ({ ok: true as const, tests });

/** Base: two tests pass, one fails (the task's target), one is skipped. */
const BASE = [t('a', 'passed'), t('b', 'passed'), t('target', 'failed'), t('slow', 'skipped')];

describe('judgeReport against base', () => {
  it('passes when every test of base passes, the target included; the skipped one and new ones are not counted', () => {
    const { passed, report } = judgeReport('junit', ok([t('a', 'passed'), t('b', 'passed'), t('target', 'passed'), t('mine', 'failed')]), BASE);
    expect(passed).toBe(true);
    expect(report).toMatchObject({ expected: 3, passed: 3, missing: 0 });
    expect(report.failure).toBeUndefined();
    expect(report.tests.map((test) => [test.name, test.outcome, test.role])).toEqual([
      ['a', 'passed', 'pass_to_pass'],
      ['b', 'passed', 'pass_to_pass'],
      ['target', 'passed', 'fail_to_pass'],
      ['slow', 'missing', 'skipped_on_base'],
      ['mine', 'failed', 'new'],
    ]);
  });

  it('fails while the target still fails, and says how many', () => {
    const { passed, report } = judgeReport('tap', ok([t('a', 'passed'), t('b', 'passed'), t('target', 'failed')]), BASE);
    expect(passed).toBe(false);
    expect(report.failure).toBe('1 of 3 tests failed');
  });

  it('reads a test base ran that the report lacks as missing, never as skipped, and fails', () => {
    // What an early exit leaves: the runner reports success, but the named tests never ran.
    const { passed, report } = judgeReport('go-json', ok([t('target', 'passed')]), BASE);
    expect(passed).toBe(false);
    expect(report).toMatchObject({ expected: 3, passed: 1, missing: 2, failure: '2 tests went missing' });
    expect(report.tests.filter((test) => test.outcome === 'missing').map((test) => test.name)).toEqual(['a', 'b', 'slow']);
  });

  it('fails a pass-to-pass test that is skipped now', () => {
    const { passed, report } = judgeReport('junit', ok([t('a', 'skipped'), t('b', 'passed'), t('target', 'passed')]), BASE);
    expect(passed).toBe(false);
    expect(report.failure).toBe('1 of 3 tests skipped');
  });

  it('an empty report or none: every test of base missing', () => {
    const empty = judgeReport('tap', ok([]), BASE);
    expect(empty.passed).toBe(false);
    expect(empty.report.failure).toBe('3 tests went missing');
    const none = judgeReport('junit', { ok: false, reason: 'missing', detail: 'no XML file' }, BASE);
    expect(none.passed).toBe(false);
    expect(none.report).toMatchObject({ expected: 3, passed: 0, missing: 3, failure: 'no test report' });
    const bad = judgeReport('junit', { ok: false, reason: 'unreadable', detail: 'report.xml: unclosed tag' }, BASE);
    expect(bad.report.failure).toBe('the test report could not be read: report.xml: unclosed tag');
  });
});

describe('judgeReport without base', () => {
  it('passes a report whose tests all passed, fails one with a failure or with no test that ran', () => {
    expect(judgeReport('tap', ok([t('a', 'passed'), t('s', 'skipped')]), undefined).passed).toBe(true);
    expect(judgeReport('tap', ok([t('a', 'passed'), t('b', 'errored')]), undefined).report.failure).toBe('1 of 2 tests failed');
    const empty = judgeReport('tap', ok([t('s', 'skipped')]), undefined);
    expect(empty.passed).toBe(false);
    expect(empty.report.failure).toBe('the test report has no test that ran');
  });
});

describe('partialPoints', () => {
  it('scores by the share of base tests that pass: 48 of 50 above 45 of 50', () => {
    const base = Array.from({ length: 50 }, (_, i) => t(`t${i}`, i < 40 ? 'passed' : 'failed'));
    const run = (passing: number) => judgeReport('junit', ok(base.map((test, i) => t(test.name, i < passing ? 'passed' : 'failed'))), base).report;
    expect(partialPoints(10, run(48))).toBe(9.6);
    expect(partialPoints(10, run(45))).toBe(9);
    expect(partialPoints(10, run(48))).toBeGreaterThan(partialPoints(10, run(45)));
    expect(partialPoints(1, run(50))).toBe(1);
  });
});
