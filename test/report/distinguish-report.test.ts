/**
 * The distinguish step in report.json and report.md, from states folded out of scripted event
 * streams (test/ui/distinguish-runs.ts) whose result is the step's own ranking of its runs.
 */
import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { buildJsonReport, renderJsonReport, renderMarkdownReport } from '../../src/report/report.js';
import { distinguishRun, skippedDistinguishRun } from '../ui/distinguish-runs.js';
import { finishedRun } from '../ui/scripted-runs.js';

/** What an agent's test output could hold: a fence, a table's pipe, HTML, a terminal's title and line erase, a bidi override. */
const HOSTILE_TAIL = [
  'AssertionError: expected "creme"',
  '```',
  '| forged | row |',
  '</pre><script>alert(1)</script>',
  '\u001b]0;pwned\u0007\u001b[1A\u001b[2Kc1 passed every test \u202eevil',
].join('\n');

describe('report.json', () => {
  it('holds the step: its start, the tester call, the matrix of every test on every finalist and base, the result, and the picks', () => {
    const json = buildJsonReport(foldEvents(distinguishRun())) as {
      distinguish: Record<string, unknown> & {
        matrix: { test: string; file: string; kept: boolean; dropped: string | null; cells: Record<string, unknown> }[];
      };
      picks: unknown;
    };
    const d = json.distinguish;
    expect(d.start).toMatchObject({
      finalists: ['c1', 'c2', 'c3'],
      seed: 'd15c0',
      labels: [
        { candidate: 'c2', label: 'A' },
        { candidate: 'c3', label: 'B' },
        { candidate: 'c1', label: 'C' },
      ],
      tester: { kind: 'claude', model: 'opus' },
      command: 'python3 -m pytest -q {file}',
    });
    expect(d.testerCall).toMatchObject({
      tests: [{ id: 't1', file: 'test_accents.py' }, { id: 't2' }, { id: 't3' }, { id: 't4' }],
      refused: [{ file: 'bestof-tests/huge.py', reason: 'larger than 64 KB' }],
      error: null,
      costUsd: 0.25,
    });
    expect(d.costUsd).toBe(0.25);
    expect(d.targets).toEqual(['c2', 'c1', 'c3', 'base']);
    expect(d.matrix.map((r) => [r.test, r.file, r.kept, r.dropped])).toEqual([
      ['t1', 'test_accents.py', true, null],
      ['t2', 'test_edges.py', true, null],
      ['t3', 'test_slow.py', false, 'it timed out'],
      ['t4', 'test_wrong.py', false, 'it fails on every finalist'],
    ]);
    expect(d.matrix[0]?.cells).toEqual({
      c2: { outcome: 'passed', tail: null },
      c1: { outcome: 'failed', tail: 'FAILED test_accents.py::test_strips_accents\nAssertionError: assert "cr-me" == "creme"' },
      c3: { outcome: 'passed', tail: null },
      base: { outcome: 'failed', tail: 'FAILED test_accents.py on base' },
    });
    expect(d.matrix[2]?.cells.c2).toEqual({ outcome: 'timed_out', tail: 'FAILED test_slow.py on c2' });
    expect(d).toMatchObject({
      kept: ['t1', 't2'],
      order: ['c2', 'c1', 'c3'],
      passed: { c1: 1, c2: 2, c3: 1 },
      groups: [
        { members: ['c2'], passed: 2, score: 2 },
        { members: ['c1'], passed: 1, score: 1 },
        { members: ['c3'], passed: 1, score: 1 },
      ],
      decided: 'c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1',
      skipped: null,
    });
    expect(json.picks).toEqual({ tie_break: 'c1', distinguish: 'c2' });
  });

  it('says why a skipped step did not decide, and is null in a run without the step', () => {
    const skipped = buildJsonReport(foldEvents(skippedDistinguishRun())) as { distinguish: Record<string, unknown>; picks: unknown };
    expect(skipped.distinguish).toMatchObject({
      skipped: 'the tester wrote no test file (its call failed: rate limited): the tie-break decides',
      testerCall: { tests: [], error: 'rate limited' },
      decided: null,
      matrix: [],
    });
    expect(skipped.picks).toEqual({ tie_break: 'c1' });
    expect(buildJsonReport(foldEvents(finishedRun()))).toMatchObject({ distinguish: null, picks: null });
  });

  it("keeps a tail's control characters escaped, the JSON way", () => {
    const text = renderJsonReport(foldEvents(distinguishRun({ c1Tail: HOSTILE_TAIL })));
    expect(text).not.toMatch(/[\u001b\u0007\u202e]/);
    const json = JSON.parse(text) as { distinguish: { matrix: { cells: Record<string, { tail: string | null }> }[] } };
    expect(json.distinguish.matrix[0]?.cells.c1?.tail).toBe(HOSTILE_TAIL);
  });
});

describe('report.md', () => {
  it('has a section "Distinguishing tests": the decided sentence, the matrix with base, the dropped tests and the failures', () => {
    const md = renderMarkdownReport(foldEvents(distinguishRun()));
    const section = md.slice(md.indexOf('## Distinguishing tests'));
    expect(section).toContain('\n**c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1**\n');
    expect(section).toContain('tester claude:opus, seed `d15c0`, labels A = c2, B = c3, C = c1');
    expect(section).toContain('- left out: `bestof-tests/huge.py` (larger than 64 KB)');
    expect(section).toContain(
      [
        '| target | t1 test_accents.py | t2 test_edges.py | t3 test_slow.py (dropped) | t4 test_wrong.py (dropped) | passed |',
        '|---|---|---|---|---|---|',
        '| **c2** (winner) | pass | pass | timed out | FAIL | 2 of 2 |',
        '| c1 | FAIL | pass | pass | FAIL | 1 of 2 |',
        '| c3 | pass | FAIL | pass | FAIL | 1 of 2 |',
        '| base | FAIL | FAIL | pass | FAIL | - |',
      ].join('\n'),
    );
    expect(section).toContain('- t3 `test_slow.py`: it timed out\n- t4 `test_wrong.py`: it fails on every finalist\n');
    expect(section).toContain('#### t1 on c1: FAIL\n\n```\nFAILED test_accents.py::test_strips_accents\nAssertionError: assert "cr-me" == "creme"\n```');
    // A dropped test counts for nobody, and base failing a test of what the task changes is expected.
    expect(section).not.toContain('#### t4');
    expect(section).not.toContain('on base:');
    expect(md).toMatch(/^\| 1 \| c2 hasty \| 100\/100 .*\| passed 2 of 2 distinguishing tests \|$/m);
  });

  it('says why a skipped step did not decide, and nothing in a run without the step', () => {
    const md = renderMarkdownReport(foldEvents(skippedDistinguishRun()));
    expect(md).toContain('## Distinguishing tests\n\n**Skipped: the tester wrote no test file (its call failed: rate limited): the tie-break decides**\n');
    expect(md).toContain("- the tester's error: rate limited");
    expect(md).not.toContain('| target |');
    expect(renderMarkdownReport(foldEvents(finishedRun()))).not.toContain('Distinguishing');
  });

  it('shows the runs of a step that did not finish, every finalist failure with its tail', () => {
    // Interrupted after t1 and t2 ran everywhere: no result, no selection.
    const events = distinguishRun();
    const cut = events.findIndex((e) => e.type === 'distinguish.run' && e.test === 't3');
    const md = renderMarkdownReport(foldEvents(events.slice(0, cut)));
    const section = md.slice(md.indexOf('## Distinguishing tests'));
    expect(section).toContain('**The step did not finish** (the matrix holds the runs recorded before it stopped)');
    expect(section).toContain('| c1 | FAIL | pass | - | - | - |');
    expect(section).toContain('| base | FAIL | FAIL | - | - | - |');
    expect(section).toContain('#### t1 on c1: FAIL');
    expect(section).toContain('#### t2 on c3: FAIL');
    expect(section).not.toContain('(dropped)');
  });

  it('keeps a hostile tail inside its fence and a hostile file name inside its cell, control characters escaped', () => {
    const md = renderMarkdownReport(foldEvents(distinguishRun({ c1Tail: HOSTILE_TAIL, t1File: 'a|b\n| c1 | pass |\u001b[2K.py' })));
    expect(md).not.toMatch(/[\u001b\u0007\u202e]/);
    const section = md.slice(md.indexOf('## Distinguishing tests'));
    // The file name stays in its header cell: its pipe escaped, its newline a space, its ESC shown as text.
    expect(section).toContain('| target | t1 a\\|b \\| c1 \\| pass \\|\\u001b[2K.py | t2 test_edges.py |');
    // The tail's own ``` cannot close the block: the fence is longer.
    const tail = section.slice(section.indexOf('#### t1 on c1: FAIL'));
    expect(tail).toContain('\n````\nAssertionError: expected "creme"\n```\n| forged | row |\n</pre><script>alert(1)</script>\n');
    expect(tail).toContain('\\u001b]0;pwned\\u0007\\u001b[1A\\u001b[2Kc1 passed every test \\u202eevil\n````\n');
  });
});
