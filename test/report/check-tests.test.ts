/**
 * The tests of a check with a report, in the record and in report.md and report.json: the folded
 * state keeps each check's report (the final scoring's over the loop's), state.json keeps it, and
 * the reports say the counts and the tests that did not pass, bounded, every name made printable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { LISTED_TESTS } from '../../src/report/check-tests.js';
import { buildJsonReport, renderJsonReport, renderMarkdownReport } from '../../src/report/report.js';
import { createStateFileWriter, readStateFile } from '../../src/report/state-file.js';
import { C1_FINAL, C2_FINAL, HOSTILE_TEST, REGRESSION, VANISHED, judgedReport, reportCheck, reportRun } from '../ui/report-runs.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** report.md's section of one candidate's check, up to the next heading. */
function mdSection(md: string, heading: string): string {
  const start = md.indexOf(heading);
  expect(start, `no "${heading}" in report.md`).toBeGreaterThanOrEqual(0);
  const next = md.indexOf('\n#', start + heading.length);
  return md.slice(start, next < 0 ? undefined : next);
}

describe('the record keeps the reports', () => {
  it("folds each check's report into its iteration, the final scoring's in place of the loop's", () => {
    const state = foldEvents(reportRun());
    const basic = (id: string) => state.candidates[id]?.iterations.at(-1)?.checks.find((k) => k.name === 'basic');
    expect(basic('c1')?.report).toEqual(C1_FINAL);
    expect(basic('c2')?.report).toEqual(C2_FINAL);
    expect(state.candidates.c1?.iterations.at(-1)?.checks.map((k) => k.name)).toEqual(['unicode', 'edges', 'basic']);
  });

  it('state.json holds them as they were folded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bestof-state-'));
    dirs.push(dir);
    const writer = createStateFileWriter(dir, { intervalMs: 0 });
    for (const event of reportRun()) writer.listener(event);
    writer.close();
    const read = await readStateFile(dir);
    expect(read?.candidates.c1?.iterations.at(-1)?.checks.find((k) => k.name === 'basic')?.report).toEqual(C1_FINAL);
  });
});

describe('report.json', () => {
  it('has every test of each check of the final scoring: name, outcome, role and message', () => {
    const json = buildJsonReport(foldEvents(reportRun())) as {
      candidates: { id: string; finalChecks: { iteration: number; checks: Record<string, unknown>[] } }[];
    };
    const c1 = json.candidates.find((c) => c.id === 'c1')?.finalChecks;
    expect(c1?.iteration).toBe(1);
    const basic = c1?.checks.find((k) => k.name === 'basic') as { reason: string; report: { tests: unknown[]; expected: number; failure: string } };
    expect(basic.reason).toBe('1 of 27 tests failed, 1 went missing');
    expect(basic.report).toMatchObject({ kind: 'junit', expected: 27, passed: 25, missing: 1, failure: '1 of 27 tests failed, 1 went missing' });
    expect(basic.report.tests).toHaveLength(28);
    expect(basic.report.tests).toContainEqual({
      name: REGRESSION,
      outcome: 'failed',
      role: 'pass_to_pass',
      message: 'AssertionError: expected 0 to be 1\n    at test/add.test.js:3:5',
    });
    expect(basic.report.tests).toContainEqual({ name: 'add::new edge', outcome: 'passed', role: 'new', message: null });
    expect(c1?.checks.find((k) => k.name === 'unicode')).toMatchObject({ passed: true, reason: null, report: null });
  });

  it('reads back the hostile name exactly, escaped in the text', () => {
    const text = renderJsonReport(foldEvents(reportRun()));
    expect(text).not.toContain('\u001b');
    expect(JSON.stringify(JSON.parse(text))).toContain(JSON.stringify(HOSTILE_TEST).slice(1, -1));
  });
});

describe("report.md's failed checks", () => {
  it('name the tests that did not pass with their messages, in place of the output', () => {
    const md = renderMarkdownReport(foldEvents(reportRun()));
    const failed = md.slice(md.indexOf('## Failed checks (last iteration)'));
    expect(failed).toContain('### c1 · basic: 1 of 27 tests failed, 1 went missing');
    expect(failed).toMatch(/^✗ add::keeps zero \(failed, passed on base\): AssertionError: expected 0 to be 1$/m);
    expect(failed).not.toContain('Tests 25 passed | 2 failed');
  });
});

describe('report.md', () => {
  const md = renderMarkdownReport(foldEvents(reportRun()));

  it('says per candidate and check the counts and the tests that did not pass, by name, with what base made of them', () => {
    const c1 = mdSection(md, '### c1 · basic (junit)');
    expect(c1).toContain('25 of 27 passed, 1 failed, 1 missing; 1 new test — failed: 1 of 27 tests failed, 1 went missing\n');
    expect(c1).toContain('- `add::keeps zero`: failed (passed on base) — AssertionError: expected 0 to be 1\n');
    expect(c1).toContain(`- \`${VANISHED}\`: missing (passed on base)\n`);
    // A passing test is not listed, the new one neither (it passed).
    expect(c1).not.toContain('add::adds 1`');
    expect(c1).not.toContain('new edge');
    // The loop's report was replaced by the final scoring's.
    expect(md).not.toContain('3 of 27 tests failed');
  });

  it(`lists at most ${LISTED_TESTS} tests, then how many more`, () => {
    const c2 = mdSection(md, '### c2 · basic (junit)');
    expect(c2).toContain('0 of 27 passed, 25 failed, 1 errored, 1 skipped, 0 missing — failed: 27 of 27 tests failed');
    expect(c2.split('\n').filter((line) => line.startsWith('- `'))).toHaveLength(LISTED_TESTS);
    expect(c2).toContain('- and 7 more (report.json lists every test)\n');
  });

  it('prints a hostile test name on one line, in a code span it cannot close, its terminal sequence escaped', () => {
    const hostile = judgedReport({ [HOSTILE_TEST]: 'failed' }, { failure: '1 of 27 tests failed' });
    const events = reportRun().map((e) => (e.type === 'check.finished' && e.candidate === 'c1' ? { ...e, check: reportCheck(hostile) } : e));
    const md = renderMarkdownReport(foldEvents(events));
    const line = mdSection(md, '### c1 · basic (junit)')
      .split('\n')
      .find((l) => l.includes('add::evil'));
    expect(line).toBe('- ``add::evil \\u001b[2K`tick`</td><script>x()</script>\\nc9 score 100``: failed (passed on base)');
    expect(md).not.toMatch(/^c9 score 100/m);
  });

  it("heads a failed check's output with its report's words, then its exit code", () => {
    expect(md).toContain('### c1 · basic: 1 of 27 tests failed, 1 went missing, exit 1 (iteration 1)\n');
    // The section of tests comes before the outputs.
    expect(md.indexOf('## Tests (last iteration)')).toBeLessThan(md.indexOf('## Failed checks (last iteration)'));
  });
});
