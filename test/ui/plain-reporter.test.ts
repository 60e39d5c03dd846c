import { describe, expect, it } from 'vitest';
import { formatEvent } from '../../src/ui/plain-reporter.js';
import type { RunEvent } from '../../src/engine/events.js';

const tampered = (paths: Extract<RunEvent, { type: 'candidate.tampered' }>['paths']): RunEvent => ({ t: '2026-12-02T00:00:00.000Z', type: 'candidate.tampered', candidate: 'c2', iteration: 1, paths });

describe('plain reporter: tampering', () => {
  it('names frozen-path changes as tampering', () => {
    expect(formatEvent(tampered([{ path: 'test/a.test.js', change: 'modified', rule: 'frozen' }]))).toBe('c2 TAMPERED with frozen paths (put back for scoring): test/a.test.js (modified)');
  });

  it('reports changes outside `editable` as such, not as frozen tampering', () => {
    const line = formatEvent(tampered([{ path: 'conftest.py', change: 'added', rule: 'editable' }]));
    expect(line).toBe('c2 changed files outside [checks] editable (put back for scoring and before any merge): conftest.py (added)');
    expect(line).not.toContain('TAMPERED');
  });

  it('says both when both happened, and takes a record without a rule (older runs) as frozen', () => {
    expect(formatEvent(tampered([{ path: 'test/a.test.js', change: 'deleted' }, { path: '.npmrc', change: 'added', rule: 'editable' }])).split('\n')).toEqual([
      'c2 TAMPERED with frozen paths (put back for scoring): test/a.test.js (deleted)',
      'c2 changed files outside [checks] editable (put back for scoring and before any merge): .npmrc (added)',
    ]);
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
    expect(formatEvent(chosen())).toBe('winner chosen by you in the compare view: c2 instead of c1 (squash): merged bestof/r1/c2 into main (squash) as 1234567890');
    expect(formatEvent(chosen({ ok: false, message: 'the checkout has uncommitted changes; nothing was merged' }))).toBe(
      'c2 chosen by you in the compare view, but the merge was NOT done (squash): the checkout has uncommitted changes; nothing was merged; the winner is still c1',
    );
  });
});
