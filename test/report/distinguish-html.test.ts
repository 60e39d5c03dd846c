/**
 * The distinguishing tests in report.html (src/report/html/distinguish-html.ts) and the verdict's
 * rule when they decided, from states folded out of scripted event streams
 * (test/ui/distinguish-runs.ts); hostile test output and file names kept as text.
 */
import { describe, expect, it } from 'vitest';
import { foldEvents, type RunState } from '../../src/engine/record/run-state.js';
import { ok } from '../../src/result.js';
import { renderRunHtml } from '../../src/report/html/run-html.js';
import { runVerdict } from '../../src/report/html/verdict.js';
import { distinguishRun, skippedDistinguishRun } from '../ui/distinguish-runs.js';
import { finishedRun } from '../ui/scripted-runs.js';

const page = (state: RunState): string => renderRunHtml(state, new Map(state.order.map((id) => [id, ok('')])), { assets: null });

/** The <tr> of a target in the matrix. */
function matrixRow(html: string, target: string): string {
  const table = /<table id="distinguish-matrix"[\s\S]*?<\/table>/.exec(html)?.[0] ?? '';
  return new RegExp(`<tr data-target="${target}"[^>]*>[\\s\\S]*?</tr>`).exec(table)?.[0] ?? '';
}

/** The outcome each cell of a row shows, in the columns' order. */
const outcomes = (row: string): string[] => [...row.matchAll(/<td class="(\w+) mark( dropped)?"/g)].map((m) => `${m[1]}${m[2] ? ' (dropped)' : ''}`);

describe('report.html', () => {
  it('shows the decided sentence and the matrix: green and red cells, the winner marked, base last, dropped tests greyed with the reason', () => {
    const html = page(foldEvents(distinguishRun()));
    expect(html).toContain('<h2 id="distinguish">Distinguishing tests');
    expect(html).toContain('<p class="decided"><strong>c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1</strong></p>');
    expect(html).toContain('tester claude:opus, seed <code>d15c0</code>, labels A = c2, B = c3, C = c1');
    const winner = matrixRow(html, 'c2');
    expect(winner).toMatch(/^<tr data-target="c2" class="winner"><th>c2 <span class="note">hasty<\/span> <span class="badge ok">winner<\/span><\/th>/);
    expect(outcomes(winner)).toEqual(['pass', 'pass', 'timeout (dropped)', 'fail (dropped)']);
    expect(winner).toContain('<td class="num">2 of 2</td>');
    expect(outcomes(matrixRow(html, 'c1'))).toEqual(['fail', 'pass', 'pass (dropped)', 'fail (dropped)']);
    expect(outcomes(matrixRow(html, 'c3'))).toEqual(['pass', 'fail', 'pass (dropped)', 'fail (dropped)']);
    expect(outcomes(matrixRow(html, 'base'))).toEqual(['fail', 'fail', 'pass (dropped)', 'fail (dropped)']);
    // Best first, base last.
    const order = [...html.matchAll(/<tr data-target="([^"]+)"/g)].map((m) => m[1]);
    expect(order).toEqual(['c2', 'c1', 'c3', 'base']);
    expect(html).toContain('<th class="mark dropped" data-test="t3" title="test_slow.py — dropped: it timed out">');
    expect(html).toContain('<li><span class="badge">dropped</span> t4 <code>test_wrong.py</code>: it fails on every finalist</li>');
    // A failing cell opens the end of its output.
    const button = /<td class="fail mark" data-outcome="failed"><button type="button" class="cell" data-output="(dist-out-\d+)"/.exec(matrixRow(html, 'c1'));
    expect(button).not.toBeNull();
    expect(html).toContain(
      `<div id="${button?.[1]}" class="check-output" hidden><h4>t1 (test_accents.py) on c1 · FAIL</h4><pre>FAILED test_accents.py::test_strips_accents\nAssertionError: assert &quot;cr-me&quot; == &quot;creme&quot;</pre></div>`,
    );
    // The ranking says what each finalist passed.
    expect(html).toMatch(/<tr data-candidate="c2" class="pass">.*<td>passed 2 of 2 distinguishing tests<\/td><\/tr>/);
  });

  it('says why a skipped step did not decide, and has no section in a run without the step', () => {
    const html = page(foldEvents(skippedDistinguishRun()));
    expect(html).toContain('<p class="warning">Skipped: the tester wrote no test file (its call failed: rate limited): the tie-break decides</p>');
    expect(html).toContain('<p class="warning">The tester\'s error: rate limited</p>');
    expect(html).not.toContain('id="distinguish-matrix"');
    expect(page(foldEvents(finishedRun()))).not.toContain('Distinguishing tests');
  });

  it('keeps a hostile tail and a hostile file name as text', () => {
    const tail = '</pre></div><script>alert(1)</script><img src=x onerror="alert(2)">\u001b]0;pwned\u0007';
    const html = page(foldEvents(distinguishRun({ c1Tail: tail, t1File: 'x"><script>alert(3)</script>.py' })));
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain('&lt;/pre&gt;&lt;/div&gt;&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=&quot;alert(2)&quot;&gt;');
    expect(html).toContain('title="x&quot;&gt;&lt;script&gt;alert(3)&lt;/script&gt;.py"');
  });
});

describe("report.html's verdict", () => {
  it('names the distinguishing tests as the rule that decided', () => {
    const state = foldEvents(distinguishRun());
    const verdict = runVerdict(state);
    expect(verdict).toEqual({
      rule: 'distinguish',
      winner: 'c2',
      sentence: 'c2 won on the distinguishing tests: passed 2 of 2 distinguishing tests, c1 and c3 passed 1.',
    });
    expect(page(state)).toContain('data-rule="distinguish"');
  });

  it("is not claimed when the selection's pick was not the tests' pick", () => {
    // c2 is first by the tests, but the selection picked it by another rule (a run whose picks say so).
    const events = distinguishRun().map((e) => (e.type === 'selection.finished' ? { ...e, picks: { tie_break: 'c2', distinguish: 'c1' } } : e));
    const verdict = runVerdict(foldEvents(events));
    expect(verdict.winner).toBe('c2');
    expect(verdict.rule).not.toBe('distinguish');
  });
});
