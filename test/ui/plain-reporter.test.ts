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
