/**
 * What the validation runs of a mined task say (src/bench/mine/validate.ts judgeRuns): SWE-bench's
 * fail-to-pass and pass-to-pass, flaky tests dropped, and each reason a commit is not a task.
 */
import { describe, expect, it } from 'vitest';
import type { TestOutcome } from '../../../src/checks/test-report/types.js';
import { judgeRuns } from '../../../src/bench/mine/validate.js';

const runOf = (entries: Record<string, TestOutcome>) => new Map(Object.entries(entries));
const clean = { outcomes: runOf({ old: 'passed' }), exitCode: 0 };

describe('judgeRuns', () => {
  it('keeps a task: fail-to-pass are the tests that fail (or are missing) before and pass twice after; pass-to-pass pass in all three', () => {
    const before = runOf({ old: 'passed', fixed: 'failed', crashed: 'errored', broken: 'failed' });
    const after = runOf({ old: 'passed', fixed: 'passed', crashed: 'passed', added: 'passed', broken: 'failed' });
    const judged = judgeRuns(before, [after, after], clean);
    expect(judged).toEqual({ kept: true, failToPass: ['fixed', 'crashed', 'added'], passToPass: ['old'], flaky: [] });
  });

  it('drops a test whose outcome differs between the two runs of the fix, and keeps the task on the others', () => {
    const before = runOf({ old: 'passed', fixed: 'failed', wobbly: 'failed' });
    const judged = judgeRuns(
      before,
      [runOf({ old: 'passed', fixed: 'passed', wobbly: 'passed' }), runOf({ old: 'passed', fixed: 'passed', wobbly: 'failed' })],
      clean,
    );
    expect(judged).toEqual({ kept: true, failToPass: ['fixed'], passToPass: ['old'], flaky: ['wobbly'] });
  });

  it('rejects as flaky when the only test the fix turns green passes in one run of it', () => {
    const before = runOf({ old: 'passed', wobbly: 'failed' });
    const judged = judgeRuns(before, [runOf({ old: 'passed', wobbly: 'passed' }), runOf({ old: 'passed', wobbly: 'failed' })], clean);
    expect(judged).toMatchObject({ kept: false, reason: 'flaky' });
  });

  it('rejects a commit whose tests already pass before the fix', () => {
    const all = runOf({ old: 'passed', added: 'passed' });
    expect(judgeRuns(all, [all, all], clean)).toMatchObject({
      kept: false,
      reason: 'no-fail-before',
      detail: 'all 2 tests pass on the parent with the new tests',
    });
  });

  it('rejects a commit whose failing tests still fail at the commit', () => {
    const before = runOf({ old: 'passed', added: 'failed' });
    const judged = judgeRuns(before, [before, before], clean);
    expect(judged).toMatchObject({ kept: false, reason: 'fails-after', detail: 'still failing at the commit: added' });
  });

  it("rejects a fix that fails the parent's tests (the commit changed what an old test expects), or makes them exit non-zero", () => {
    const before = runOf({ old: 'passed', fixed: 'failed' });
    const after = runOf({ old: 'passed', fixed: 'passed' });
    expect(judgeRuns(before, [after, after], { outcomes: runOf({ old: 'failed' }), exitCode: 1 })).toMatchObject({
      kept: false,
      reason: 'breaks-visible',
      detail: "with the fix, the parent's tests fail: old",
    });
    expect(judgeRuns(before, [after, after], { outcomes: runOf({ old: 'passed' }), exitCode: 2 })).toMatchObject({ kept: false, reason: 'breaks-visible' });
  });
});
