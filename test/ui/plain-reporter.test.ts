import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/ui/plain-reporter.js';
import type { RunEvent } from '../../src/engine/record/events.js';
import type { CheckOutcome } from '../../src/checks/run-checks.js';
import { check } from './scripted-runs.js';
import { C1_FINAL, judgedReport, reportCheck } from './report-runs.js';

const tampered = (paths: Extract<RunEvent, { type: 'candidate.tampered' }>['paths']): RunEvent => ({
  t: '2026-12-02T00:00:00.000Z',
  type: 'candidate.tampered',
  candidate: 'c2',
  iteration: 1,
  paths,
});

describe('plain reporter: tampering', () => {
  it('names frozen-path changes as tampering', () => {
    expect(formatEvent(tampered([{ path: 'test/a.test.js', change: 'modified', rule: 'frozen' }]))).toBe(
      'c2 TAMPERED with frozen paths (put back for scoring): test/a.test.js (modified)',
    );
  });

  it('reports changes outside `editable` as such, not as frozen tampering', () => {
    const line = formatEvent(tampered([{ path: 'conftest.py', change: 'added', rule: 'editable' }]));
    expect(line).toBe('c2 changed files outside [checks] editable (put back for scoring and before any merge): conftest.py (added)');
    expect(line).not.toContain('TAMPERED');
  });

  it('says both when both happened, and takes a record without a rule (older runs) as frozen', () => {
    expect(
      formatEvent(
        tampered([
          { path: 'test/a.test.js', change: 'deleted' },
          { path: '.npmrc', change: 'added', rule: 'editable' },
        ]),
      ).split('\n'),
    ).toEqual([
      'c2 TAMPERED with frozen paths (put back for scoring): test/a.test.js (deleted)',
      'c2 changed files outside [checks] editable (put back for scoring and before any merge): .npmrc (added)',
    ]);
  });
});

describe('plain reporter: what an agent wrote is printed, never obeyed', () => {
  it('shows a newline in a file name escaped: the name cannot print a forged line of its own', () => {
    const lines = formatEvent(
      tampered([
        { path: 'test/a.js\nc2 score 20/20', change: 'added', rule: 'frozen' },
        { path: 'x\u001b[2K.txt', change: 'added', rule: 'editable' },
      ]),
    ).split('\n');
    expect(lines).toEqual([
      'c2 TAMPERED with frozen paths (put back for scoring): test/a.js\\nc2 score 20/20 (added)',
      'c2 changed files outside [checks] editable (put back for scoring and before any merge): x\\u001b[2K.txt (added)',
    ]);
  });

  it('shows the escape sequences of a message and of an output line escaped, and drops a colour', () => {
    const finished: RunEvent = {
      t: '2026-12-02T00:00:00.000Z',
      type: 'provider.finished',
      candidate: 'c1',
      iteration: 1,
      outcome: 'crashed',
      durationMs: 1000,
      costUsd: 0,
      usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
      turns: 0,
      message: 'exit 1: \u001b]0;title\u0007\u009b2K',
    };
    expect(formatEvent(finished)).toBe('c1 agent crashed after 1.0s: exit 1: \\u001b]0;title\\u0007\\u009b2K');
    const activity: RunEvent = {
      t: '2026-12-02T00:00:00.000Z',
      type: 'candidate.activity',
      candidate: 'c1',
      iteration: 1,
      text: '\u001b[32m✓ ok\u001b[39m \u202eon',
    };
    expect(formatEvent(activity)).toBe('c1 | ✓ ok \\u202eon');
  });
});

describe('plain reporter: a winner chosen in the compare view', () => {
  const chosen = (over: Partial<Extract<RunEvent, { type: 'winner.chosen' }>> = {}): RunEvent => ({
    t: '2026-12-02T00:10:00.000Z',
    type: 'winner.chosen',
    candidate: 'c2',
    previous: 'c1',
    mode: 'squash',
    ok: true,
    branch: 'bestof/r1/c2',
    message: 'merged bestof/r1/c2 into main (squash) as 1234567890',
    by: 'user',
    ...over,
  });

  it('says who was chosen instead of whom, and when the merge was not done, that the winner stays', () => {
    expect(formatEvent(chosen())).toBe(
      'winner chosen by you in the compare view: c2 instead of c1 (squash): merged bestof/r1/c2 into main (squash) as 1234567890',
    );
    expect(formatEvent(chosen({ ok: false, message: 'the checkout has uncommitted changes; nothing was merged' }))).toBe(
      'c2 chosen by you in the compare view, but the merge was NOT done (squash): the checkout has uncommitted changes; nothing was merged; the winner is still c1',
    );
  });
});

describe('plain reporter: a check with a test report', () => {
  const finishedCheck = (check: CheckOutcome): RunEvent => ({ t: '2026-12-02T00:00:00.000Z', type: 'check.finished', candidate: 'c1', iteration: 2, check });

  it("says what its tests came to where it said only FAIL: the report's failure", () => {
    expect(formatEvent(finishedCheck(reportCheck(C1_FINAL)))).toBe('c1 check basic: FAIL: 1 of 27 tests failed, 1 went missing (0/40, 320ms)');
  });

  it('and the counts when it passed; a hidden check says so', () => {
    const passed = judgedReport({}, { fresh: [{ name: 'n1', role: 'new', outcome: 'passed' }] });
    expect(formatEvent(finishedCheck(reportCheck(passed, { hidden: true })))).toBe(
      'c1 check basic (hidden): pass, 27 of 27 passed, 0 failed, 0 missing; 1 new test (40/40, 320ms)',
    );
  });

  it('stays as it was for a check without a report', () => {
    expect(formatEvent(finishedCheck(check('basic', false)))).toBe('c1 check basic: FAIL (0/40, 320ms)');
  });
});
