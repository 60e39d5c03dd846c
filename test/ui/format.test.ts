/** Terminal text helpers, the diff parser and the column planner. */
import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { excerptHead, scoreBar } from '../../src/ui/format/candidate.js';
import { fileAt, parseDiff } from '../../src/ui/format/diff.js';
import { formatCost, formatElapsed, formatKnownCost } from '../../src/ui/format/numbers.js';
import { cut, displayWidth, fit, oneLine, stripAnsi } from '../../src/ui/format/text.js';
import { planColumns } from '../../src/ui/layout/columns.js';
import { listWindow } from '../../src/ui/layout/window.js';
import { DIFF_C2, mixedRun } from './scripted-runs.js';

describe('text', () => {
  it('strips colours, cursor moves, OSC links and control characters', () => {
    expect(stripAnsi('\u001b[1;32mok\u001b[0m \u001b[2K\u001b[1Gdone \u001b]8;;https://x\u0007link\u001b]8;;\u0007\u0007')).toBe('ok done link');
    expect(oneLine('  a\r\n\tb   c \n')).toBe('a b c');
  });

  it('cuts and pads to display columns, wide characters counted twice', () => {
    expect(cut('abcdef', 4)).toBe('abc…');
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('ab', 4, 'right')).toBe('  ab');
    expect(displayWidth('日本')).toBe(4);
    expect(displayWidth(cut('日本語のテキスト', 7))).toBeLessThanOrEqual(7);
  });

  it('formats costs and times for narrow cells', () => {
    expect([formatCost(0), formatCost(0.0214), formatCost(12.5)]).toEqual(['$0', '$0.021', '$12.50']);
    // A cost nobody reported is not $0: "–", or what was reported and a "+" for the rest.
    expect([formatKnownCost(0, true), formatKnownCost(0, false), formatKnownCost(0.0214, false)]).toEqual(['$0', '–', '$0.021+']);
    expect([formatElapsed(320), formatElapsed(42_000), formatElapsed(65_000), formatElapsed(7_380_000)]).toEqual(['0.3s', '42s', '1m05s', '2h03m']);
  });
});

describe('score bar', () => {
  it('fills in proportion to the score and marks the threshold', () => {
    expect(scoreBar(40, 100, 70, 10)).toEqual({ filled: '████', track: '░░┊░░░' });
    expect(scoreBar(100, 100, 100, 10)).toEqual({ filled: '██████████', track: '' });
    expect(scoreBar(undefined, 100, 100, 10)).toEqual({ filled: '', track: '░░░░░░░░░░' });
  });
});

describe('excerpt head', () => {
  it('is the start of the failing part (the marked line first), with how much of it comes after', () => {
    const excerpt = ["AssertionError: expected 'cr-me' to be 'creme'", '', '- Expected', '+ Received', '- creme', '+ cr-me'].join('\n');
    expect(excerptHead(excerpt, 3)).toEqual({ lines: ["AssertionError: expected 'cr-me' to be 'creme'", '- Expected', '+ Received'], hidden: 2 });
    expect(excerptHead('a\n\nb', 5)).toEqual({ lines: ['a', 'b'], hidden: 0 });
  });
});

describe('parseDiff', () => {
  it('lists files with their counts and where each starts', () => {
    const diff = parseDiff(DIFF_C2);
    expect(diff.files).toEqual([
      { path: 'configs/demo/slugify.mjs', insertions: 3, deletions: 1, line: 0 },
      { path: 'notes.md', insertions: 1, deletions: 0, line: 9 },
    ]);
    expect(diff.insertions).toBe(4);
    expect(fileAt(diff, 10)?.path).toBe('notes.md');
    expect(fileAt(diff, 3)?.path).toBe('configs/demo/slugify.mjs');
  });

  it('takes the new name of a renamed file', () => {
    const diff = parseDiff('diff --git a/old.txt b/new.txt\nsimilarity index 90%\nrename from old.txt\nrename to new.txt\n');
    expect(diff.files[0]?.path).toBe('new.txt');
  });
});

describe('planColumns', () => {
  const run = foldEvents(mixedRun());
  const width = (columns: ReturnType<typeof planColumns>) => 2 + columns.reduce((n, c) => n + c.width, 0) + columns.length - 1;

  it('fills a wide terminal exactly, the activity column taking the rest', () => {
    const columns = planColumns(run, 140);
    expect(columns.map((c) => c.id)).toEqual(['name', 'provider', 'state', 'iteration', 'bar', 'score', 'checks', 'cost', 'tokens', 'elapsed', 'activity']);
    expect(width(columns)).toBe(140);
  });

  it('drops the least useful columns first and never exceeds the width', () => {
    for (const total of [40, 60, 80, 100]) expect(width(planColumns(run, total))).toBeLessThanOrEqual(total);
    expect(planColumns(run, 60).map((c) => c.id)).toEqual(['name', 'state', 'iteration', 'score', 'checks', 'cost', 'elapsed']);
    expect(planColumns(run, 40).map((c) => c.id)).toEqual(['name', 'state', 'score', 'elapsed']);
  });
});

describe('listWindow', () => {
  it('keeps the selection in view', () => {
    expect(listWindow(5, 4, 10)).toEqual({ start: 0, end: 5, hiddenAbove: 0, hiddenBelow: 0 });
    expect(listWindow(30, 0, 10)).toMatchObject({ start: 0, end: 10, hiddenBelow: 20 });
    expect(listWindow(30, 29, 10)).toMatchObject({ start: 20, end: 30, hiddenAbove: 20 });
    expect(listWindow(30, 15, 10)).toMatchObject({ start: 10, end: 20 });
  });
});
