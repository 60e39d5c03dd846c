/**
 * The distinguish step's part of report.json and report.md (`[select.distinguish]`), from the
 * folded state: how the step started (the finalists, the labels the tester saw them under, the
 * seed, the tester, the command that runs a test file), what the tester wrote (and what was left
 * out), the matrix of every test on every finalist and on base with the end of each failure's
 * output, the tests the ranking dropped and why, the agreement groups, the order, and the sentence
 * that says which rule decided, or why the step did not decide.
 *
 * What the tester named (its files, its errors) is one line each (printable: a newline in a file's
 * name would print a line of its own); a failure's tail is a fenced block it cannot close.
 */
import type { RunState } from '../engine/record/run-state.js';
import { plural } from '../engine/words.js';
import { printable } from '../printable.js';
import { distinguishMatrix, finalistsOf, type MatrixRow, OUTCOME_WORDS, passedOf } from './distinguish-matrix.js';
import { cell, fenced, lastLines } from './markdown-text.js';

/** Lines of a failing test's output report.md shows; report.json has the whole recorded tail. */
const TAIL_LINES = 8;

export function distinguishJson(state: RunState): Record<string, unknown> | null {
  const d = state.distinguish;
  if (!d) return null;
  const r = d.result;
  const matrix = distinguishMatrix(d);
  return {
    /** The record of distinguish.started: null when the step was skipped before it started. */
    start: d.start ?? null,
    /** The tester's call: the files kept, the ones left out and why, its error, its cost. */
    testerCall: d.call
      ? { tests: d.call.tests, refused: d.call.refused ?? [], error: d.call.error ?? null, costUsd: d.call.costUsd, reused: d.call.reused ?? false }
      : null,
    /** What the tester cost the run, counted once over a resumed step (in the run's cost, not in the candidates'). */
    costUsd: state.distinguishCostUsd ?? 0,
    targets: matrix.targets,
    matrix: matrix.rows,
    kept: r?.kept ?? null,
    dropped: r?.dropped ?? null,
    groups: r?.groups ?? null,
    order: r?.order ?? null,
    passed: r?.passed ?? null,
    decided: r?.decided ?? null,
    skipped: d.skipped ?? null,
  };
}

function testHeading(row: MatrixRow): string {
  return cell(`${row.test}${row.file ? ` ${row.file}` : ''}${row.kept === false ? ' (dropped)' : ''}`);
}

/** The table: a row per finalist (the winner's in bold) and one for base, a column per test, then the kept tests each passed. */
function matrixTable(state: RunState): string[] {
  const d = state.distinguish;
  if (!d) return [];
  const { targets, rows } = distinguishMatrix(d);
  if (rows.length === 0) return [];
  const lines = [`| target | ${rows.map(testHeading).join(' | ')} | passed |`, `|---|${rows.map(() => '---').join('|')}|---|`];
  for (const target of targets) {
    const name = target === state.winner ? `**${target}** (winner)` : target;
    const counted = passedOf(d, target);
    const cells = rows.map((row) => {
      const c = row.cells[target];
      return c ? OUTCOME_WORDS[c.outcome] : '-';
    });
    lines.push(`| ${name} | ${cells.join(' | ')} | ${counted ? `${counted.passed} of ${counted.of}` : '-'} |`);
  }
  return ['', ...lines];
}

/** Why each test the ranking left out was left out. */
function droppedLines(state: RunState): string[] {
  const rows = state.distinguish ? distinguishMatrix(state.distinguish).rows.filter((r) => r.dropped !== null) : [];
  if (rows.length === 0) return [];
  return [
    '',
    'Dropped (they tell nothing about the finalists):',
    '',
    ...rows.map((r) => `- ${r.test}${r.file ? ` \`${printable(r.file)}\`` : ''}: ${r.dropped}`),
  ];
}

/**
 * The end of the output of each finalist's failure on a test that counted (on every test when the
 * step did not decide): what a reader checks before trusting the order. Base failing is expected
 * (a test of what the task changes) and a dropped test counts for nobody: report.json has those.
 */
function tailLines(state: RunState): string[] {
  const d = state.distinguish;
  if (!d) return [];
  const lines: string[] = [];
  const { rows } = distinguishMatrix(d);
  for (const row of rows.filter((r) => r.kept !== false)) {
    for (const target of finalistsOf(d)) {
      const c = row.cells[target];
      if (!c || c.outcome === 'passed') continue;
      const tail = lastLines(c.tail ?? '', TAIL_LINES);
      lines.push('', `#### ${row.test} on ${target}: ${OUTCOME_WORDS[c.outcome]}`, '', ...(tail.length > 0 ? fenced(tail) : ['(no output)']));
    }
  }
  return lines.length > 0 ? ['', '### Failures', ...lines] : [];
}

function startLines(state: RunState): string[] {
  const d = state.distinguish;
  const s = d?.start;
  if (!d || !s) return [];
  const tester = `${s.tester.kind}${s.tester.model ? `:${s.tester.model}` : ''}`;
  const lines = [
    `- finalists: ${s.finalists.join(', ')} (${s.when === 'always' ? 'the top candidates that can win' : 'tied at the top'}); tester ${tester}, seed \`${s.seed}\`, labels ${s.labels.map((l) => `${l.label} = ${l.candidate}`).join(', ')}`,
    `- each test file run with \`${s.command}\` on every finalist's scored tree and on base`,
  ];
  const call = d.call;
  if (call) {
    const reused = call.reused ? ' (written before the run was interrupted, taken from the record)' : '';
    lines.push(
      `- the tester wrote ${plural(call.tests.length, 'test file')} in \`${s.folder}\`${reused}, $${(state.distinguishCostUsd ?? 0).toFixed(4)} (in the run's cost, not in the candidates')`,
    );
    for (const refused of call.refused ?? []) lines.push(`- left out: \`${printable(refused.file)}\` (${printable(refused.reason)})`);
    if (call.error) lines.push(`- the tester's error: ${printable(call.error)}`);
  }
  return lines;
}

/** report.md's section "Distinguishing tests": empty for a run without the step. */
export function distinguishMarkdown(state: RunState): string[] {
  const d = state.distinguish;
  if (!d) return [];
  const lines: string[] = ['', '## Distinguishing tests', ''];
  if (d.result) lines.push(`**${d.result.decided}**`, '');
  else
    lines.push(d.skipped ? `**Skipped: ${printable(d.skipped)}**` : '**The step did not finish** (the matrix holds the runs recorded before it stopped)', '');
  lines.push(...startLines(state));
  const groups = d.result?.groups ?? [];
  if (groups.length > 0)
    lines.push(
      `- agreement groups (finalists that pass and fail the same tests; size × tests passed): ${groups.map((g) => `${g.members.join(' + ')} ${g.members.length} × ${g.passed} = ${g.score}`).join('; ')}`,
    );
  lines.push(...matrixTable(state), ...droppedLines(state), ...tailLines(state));
  return lines;
}
