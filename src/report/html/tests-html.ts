/**
 * report.html's tests: one table per check that names a test report, its tests down and the
 * candidates across. Every candidate was judged against the same base, so base's tests are the
 * same rows for all; a candidate's new tests are rows of their own, empty for the others. The
 * tests that did not pass for someone come first; the ones no candidate failed follow in a
 * folded block. Both are bounded: a suite of 20 000 tests would make a page nobody opens.
 *
 * The state it reads was redacted by the caller; every text goes in through escapeHtml.
 */
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { CheckReport, JudgedTest } from '../../checks/test-report/types.js';
import type { CandidateState, RunState } from '../../engine/record/run-state.js';
import { checkFailureWords, type JudgedOutcome, TEST_MARK, testCountsWords } from '../../engine/record/test-report-words.js';
import { plural } from '../../engine/words.js';
import { headOf } from './diff-cap.js';
import { escapeHtml as h } from './escape.js';

/** Rows of tests that some candidate did not pass; the rest are left out with a count. */
export const FAILING_ROWS = 300;
/** Rows of tests no candidate failed, in the folded block. */
export const PASSING_ROWS = 1000;

const CELL_CLASS: Readonly<Record<JudgedOutcome, string>> = { passed: 'pass', failed: 'fail', errored: 'fail', missing: 'fail', skipped: 'skip' };
const ROLE_WORDS: Readonly<Record<JudgedTest['role'], string>> = {
  fail_to_pass: 'to fix',
  pass_to_pass: 'to keep',
  skipped_on_base: 'skipped on base',
  new: 'new',
};

/** A candidate's check of its last checked iteration, when it has a report. */
interface Column {
  readonly id: string;
  readonly check: CheckOutcome;
  readonly report: CheckReport;
  readonly byName: ReadonlyMap<string, JudgedTest>;
}

interface Row {
  readonly name: string;
  readonly role: JudgedTest['role'];
  /** Candidates that did not pass it (a new test another candidate has not counted). */
  readonly notPassed: number;
}

function lastCheck(c: CandidateState | undefined, name: string): CheckOutcome | undefined {
  const last = c?.iterations.filter((it) => it.checks.length > 0).at(-1);
  return last?.checks.find((k) => k.name === name);
}

function columnsOf(state: RunState, checkName: string): Column[] {
  return state.order.flatMap((id) => {
    const check = lastCheck(state.candidates[id], checkName);
    if (!check?.report) return [];
    return [{ id, check, report: check.report, byName: new Map(check.report.tests.map((t) => [t.name, t])) }];
  });
}

/** Every test of every column once, in report order (base's first, then each candidate's new ones), with how many did not pass it. */
function rowsOf(columns: readonly Column[]): Row[] {
  const rows = new Map<string, { role: JudgedTest['role']; notPassed: number }>();
  for (const column of columns) {
    for (const test of column.report.tests) {
      const row = rows.get(test.name) ?? { role: test.role, notPassed: 0 };
      if (test.role !== 'new') row.role = test.role;
      // A test the check does not hold anyone to (new, or skipped on base) costs nothing unless it failed.
      const uncounted = test.role === 'new' || test.role === 'skipped_on_base';
      if (test.outcome !== 'passed' && !(uncounted && (test.outcome === 'skipped' || test.outcome === 'missing'))) row.notPassed += 1;
      rows.set(test.name, row);
    }
  }
  return [...rows].map(([name, row]) => ({ name, ...row }));
}

function cellHtml(column: Column, name: string): string {
  const test = column.byName.get(name);
  if (!test) return '<td class="skip" title="not in its report">·</td>';
  const title = test.message ? `${test.outcome}: ${headOf(test.message, 600)}` : test.outcome;
  return `<td class="${CELL_CLASS[test.outcome]} mark" data-outcome="${test.outcome}" title="${h(title)}">${TEST_MARK[test.outcome]}</td>`;
}

function rowHtml(columns: readonly Column[], row: Row): string {
  return `<tr data-test="${h(row.name)}"><td class="mono">${h(row.name)}</td><td class="note">${ROLE_WORDS[row.role]}</td>${columns.map((c) => cellHtml(c, row.name)).join('')}</tr>`;
}

/** The table of one check: each candidate's counts over its column, the failing rows, then the passing ones folded. */
function checkTestsHtml(checkName: string, columns: readonly Column[]): string {
  const rows = rowsOf(columns);
  const failing = rows.filter((r) => r.notPassed > 0).sort((a, b) => b.notPassed - a.notPassed);
  const passing = rows.filter((r) => r.notPassed === 0);
  const summary = columns.map(
    (c) =>
      `<li><strong>${h(c.id)}</strong>: ${h(testCountsWords(c.report))}${c.check.passed ? '' : ` — <span class="warning">${h(checkFailureWords(c.check))}</span>`}</li>`,
  );
  const head = `<tr><th>test</th><th>role</th>${columns.map((c) => `<th class="mark">${h(c.id)}<br><span class="note">${c.report.passed}/${c.report.expected}</span></th>`).join('')}</tr>`;
  const width = columns.length + 2;
  const more = (n: number, what: string): string =>
    n > 0 ? `<tr><td colspan="${width}" class="note">and ${plural(n, what)} more (report.json lists every test)</td></tr>` : '';
  const failingHtml =
    failing.length > 0
      ? `<table class="tests" data-check="${h(checkName)}">${head}\n${failing
          .slice(0, FAILING_ROWS)
          .map((r) => rowHtml(columns, r))
          .join('\n')}${more(failing.length - FAILING_ROWS, 'failing test')}</table>`
      : '<p class="note">Every candidate passed every test.</p>';
  const passingHtml =
    passing.length > 0
      ? `<details class="tests-passed"><summary>${plural(passing.length, 'test')} no candidate failed</summary><table class="tests">${head}\n${passing
          .slice(0, PASSING_ROWS)
          .map((r) => rowHtml(columns, r))
          .join('\n')}${more(passing.length - PASSING_ROWS, 'passing test')}</table></details>`
      : '';
  const kind = columns[0]?.report.kind ?? '';
  const hidden = columns.some((c) => c.check.hidden) ? ', hidden' : '';
  return `<section class="check-tests" data-check="${h(checkName)}"><h3>${h(checkName)} <span class="note">(${h(kind)}${hidden})</span></h3>
<ul>${summary.join('')}</ul>
${failingHtml}
${passingHtml}</section>`;
}

/** The Tests section: a table per check with a report; empty when no check of the run has one. */
export function testsHtml(state: RunState): string {
  const tables = state.checks.flatMap((k) => {
    const columns = columnsOf(state, k.name);
    return columns.length > 0 ? [checkTestsHtml(k.name, columns)] : [];
  });
  if (tables.length === 0) return '';
  const legend = Object.entries(TEST_MARK)
    .map(([outcome, mark]) => `${mark} ${outcome}`)
    .join(', ');
  return `<h2 id="tests">Tests <span class="note">(each candidate's last checked iteration; ${h(legend)}, · not in its report; hover a cell for its message)</span></h2>
${tables.join('\n')}`;
}
