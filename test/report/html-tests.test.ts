/**
 * report.html's tests (src/report/html/tests-html.ts): a table per check with a report, tests down
 * and candidates across, the tests someone did not pass first, bounded, every text escaped and
 * redacted; nothing at all for a run whose checks have no report.
 */
import { describe, expect, it } from 'vitest';
import type { JudgedTest } from '../../src/checks/test-report/types.js';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { renderRunHtml } from '../../src/report/html/run-html.js';
import { FAILING_ROWS } from '../../src/report/html/tests-html.js';
import { finishedRun } from '../ui/scripted-runs.js';
import { C1_FINAL, HOSTILE_TEST, REGRESSION, VANISHED, reportCheck, reportRun } from '../ui/report-runs.js';

const page = (events: readonly RunEvent[], secrets = createSecretSet([])): string => renderRunHtml(foldEvents(events), new Map(), { assets: null, secrets });

/** The section of one check's tests. */
function section(html: string, check: string): string {
  const start = html.indexOf(`<section class="check-tests" data-check="${check}">`);
  expect(start, `no tests section for ${check}`).toBeGreaterThanOrEqual(0);
  return html.slice(start, html.indexOf('</section>', start));
}

/** Each row of a tests table: the test's name (as escaped) and its cells' outcomes, in page order. */
function rows(html: string): { name: string; cells: string[] }[] {
  return [...html.matchAll(/<tr data-test="([^"]*)">([\s\S]*?)<\/tr>/g)].map((m) => ({
    name: m[1] ?? '',
    cells: [...(m[2] ?? '').matchAll(/<td class="[^"]*"(?: data-outcome="([a-z]+)")? title="[^"]*">/g)].map((c) => c[1] ?? 'absent'),
  }));
}

describe('the tests of a check with a report', () => {
  const html = page(reportRun());

  it('are one table, candidates across, with their counts and why the check failed', () => {
    const basic = section(html, 'basic');
    expect(basic).toContain('<th class="mark">c1<br><span class="note">25/27</span></th><th class="mark">c2<br><span class="note">0/27</span></th>');
    expect(basic).toContain(
      '<li><strong>c1</strong>: 25 of 27 passed, 1 failed, 1 missing; 1 new test — <span class="warning">1 of 27 tests failed, 1 went missing</span></li>',
    );
    expect(html).not.toContain('<section class="check-tests" data-check="unicode">');
    // After the check matrix, whose failing cell names the report's failure too.
    expect(html.indexOf('id="check-matrix"')).toBeLessThan(html.indexOf('id="tests"'));
    expect(html).toContain('c1 · basic · 1 of 27 tests failed, 1 went missing · exit 1 · iteration 1');
  });

  it('list first the tests most candidates did not pass, in report order, then the ones all passed, folded', () => {
    const all = rows(section(html, 'basic'));
    const escaped = (name: string): string => name.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    expect(all.slice(0, 2)).toEqual([
      { name: REGRESSION, cells: ['failed', 'errored'] },
      { name: escaped(VANISHED), cells: ['missing', 'skipped'] },
    ]);
    expect(all[2]).toEqual({ name: 'add::adds 1', cells: ['passed', 'failed'] });
    expect(all[26]?.name).toBe(escaped(HOSTILE_TEST).replace(/'/g, '&#39;'));
    // The only test both passed: c1's new one, which c2's report does not have.
    expect(all.slice(27)).toEqual([{ name: 'add::new edge', cells: ['passed', 'absent'] }]);
    expect(section(html, 'basic')).toContain('<details class="tests-passed"><summary>1 test no candidate failed</summary>');
  });

  it('keep a hostile name and message text, and redact secrets in them', () => {
    const SECRET = 'hunter2-very-secret-value-0001';
    const report = { ...C1_FINAL, tests: C1_FINAL.tests.map((t): JudgedTest => (t.name === REGRESSION ? { ...t, message: `token ${SECRET} </td>` } : t)) };
    const events = reportRun().map((e) =>
      e.type === 'check.finished' && e.candidate === 'c1' && e.check.name === 'basic' ? { ...e, check: reportCheck(report) } : e,
    );
    const hostile = page(events, createSecretSet([['DEPLOY_TOKEN', SECRET]]));
    expect(hostile).not.toContain(SECRET);
    expect(hostile).toContain('title="failed: token &lt;redacted:DEPLOY_TOKEN&gt; &lt;/td&gt;"');
    expect(hostile).not.toContain('<script>x()');
    expect(hostile).toContain('add::evil');
  });

  it(`show at most ${FAILING_ROWS} failing tests, then how many more`, () => {
    const many = Array.from({ length: FAILING_ROWS + 40 }, (_, i): JudgedTest => ({ name: `t${i}`, outcome: 'failed', role: 'pass_to_pass' }));
    const report = {
      kind: 'tap' as const,
      tests: many,
      expected: many.length,
      passed: 0,
      missing: 0,
      failure: `${many.length} of ${many.length} tests failed`,
    };
    const events = reportRun().map((e) => (e.type === 'check.finished' && e.check.name === 'basic' ? { ...e, check: reportCheck(report) } : e));
    const basic = section(page(events), 'basic');
    expect(rows(basic)).toHaveLength(FAILING_ROWS);
    expect(basic).toContain('and 40 failing tests more (report.json lists every test)');
  });
});

describe('a run whose checks have no report', () => {
  it('has no tests section', () => {
    const html = page(finishedRun());
    expect(html).not.toContain('id="tests"');
    expect(html).not.toContain('class="check-tests"');
  });
});
