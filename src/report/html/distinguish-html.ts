/**
 * report.html's distinguishing tests (`[select.distinguish]`): the sentence that says which rule
 * decided (or why the step did not), the tester and how it was run, and the matrix a person reads
 * at a glance: a row per finalist, best first, the winner's marked, then base's row; a column per
 * generated test, a green pass or a red FAIL in each cell (a failing cell opens the end of its
 * output, as the check matrix's do), the dropped tests greyed with the reason as the column's
 * title and listed under the table.
 *
 * The state it reads was redacted by the caller; every text goes in through escapeHtml.
 */
import { BASE_TARGET } from '../../distinguish/types.js';
import type { RunState } from '../../engine/record/run-state.js';
import { plural } from '../../engine/words.js';
import { distinguishMatrix, type MatrixCell, type MatrixRow, OUTCOME_WORDS, passedOf } from '../distinguish-matrix.js';
import { tailOf } from './diff-cap.js';
import { escapeHtml as h } from './escape.js';

const CELL_CLASS: Readonly<Record<MatrixCell['outcome'], string>> = { passed: 'pass', failed: 'fail', timed_out: 'timeout' };

function headCell(row: MatrixRow): string {
  const title = [row.file ?? 'no file recorded', ...(row.dropped ? [`dropped: ${row.dropped}`] : [])].join(' — ');
  return `<th class="mark${row.kept === false ? ' dropped' : ''}" data-test="${h(row.test)}" title="${h(title)}">${h(row.test)}${row.file ? `<br><span class="note mono">${h(row.file)}</span>` : ''}</th>`;
}

/** The step's meta line: the tester, the seed, the labels it saw, what it wrote and cost, the command. */
function metaHtml(state: RunState): string {
  const d = state.distinguish;
  const s = d?.start;
  if (!d || !s) return '';
  const tester = `${s.tester.kind}${s.tester.model ? `:${s.tester.model}` : ''}`;
  const parts = [
    `finalists ${h(s.finalists.join(', '))} (${s.when === 'always' ? 'the top candidates that can win' : 'tied at the top'})`,
    `tester ${h(tester)}, seed <code>${h(s.seed)}</code>, labels ${h(s.labels.map((l) => `${l.label} = ${l.candidate}`).join(', '))}`,
    ...(d.call
      ? [
          `${plural(d.call.tests.length, 'test file')}${d.call.reused ? ' (from the record of the interrupted step)' : ''}, $${(state.distinguishCostUsd ?? 0).toFixed(4)}`,
        ]
      : []),
    `each run with <code>${h(s.command)}</code>`,
  ];
  const lines = [`<p class="meta">${parts.join(' · ')}</p>`];
  const refused = d.call?.refused ?? [];
  if (refused.length > 0) lines.push(`<p class="note">Left out: ${refused.map((r) => `<code>${h(r.file)}</code> (${h(r.reason)})`).join('; ')}</p>`);
  if (d.call?.error) lines.push(`<p class="warning">The tester's error: ${h(d.call.error)}</p>`);
  return lines.join('\n');
}

/** The matrix and the panels its failing cells open. */
function matrixHtml(state: RunState): string {
  const d = state.distinguish;
  if (!d) return '';
  const { targets, rows } = distinguishMatrix(d);
  if (rows.length === 0) return '';
  const outputs: string[] = [];
  const cellHtml = (row: MatrixRow, target: string): string => {
    const c = row.cells[target];
    const dropped = row.kept === false ? ' dropped' : '';
    if (!c) return `<td class="skip mark${dropped}" title="not run">–</td>`;
    const words = OUTCOME_WORDS[c.outcome];
    if (c.outcome === 'passed') return `<td class="pass mark${dropped}" data-outcome="passed">${words}</td>`;
    const panelId = `dist-out-${outputs.length}`;
    outputs.push(
      `<div id="${panelId}" class="check-output" hidden><h4>${h(row.test)}${row.file ? ` (${h(row.file)})` : ''} on ${h(target)} · ${words}</h4><pre>${h(tailOf(c.tail ?? '') || '(no output)')}</pre></div>`,
    );
    return `<td class="${CELL_CLASS[c.outcome]} mark${dropped}" data-outcome="${c.outcome}"><button type="button" class="cell" data-output="${panelId}" aria-expanded="false" title="show the end of its output">${words}</button></td>`;
  };
  const body = targets.map((target) => {
    const base = target === BASE_TARGET;
    const winner = target === state.winner;
    const counted = passedOf(d, target);
    const name = base
      ? `${h(target)} <span class="note">(before any change)</span>`
      : `${h(target)} <span class="note">${h(state.candidates[target]?.label ?? '')}</span>${winner ? ' <span class="badge ok">winner</span>' : ''}`;
    return `<tr data-target="${h(target)}"${winner ? ' class="winner"' : base ? ' class="base"' : ''}><th>${name}</th>${rows.map((row) => cellHtml(row, target)).join('')}<td class="num">${counted ? `${counted.passed} of ${counted.of}` : '–'}</td></tr>`;
  });
  const head = `<tr><th>finalist</th>${rows.map(headCell).join('')}<th class="num">passed</th></tr>`;
  const dropped = rows.filter((r) => r.dropped !== null);
  const droppedList =
    dropped.length > 0
      ? `<ul class="dropped-tests">${dropped.map((r) => `<li><span class="badge">dropped</span> ${h(r.test)}${r.file ? ` <code>${h(r.file)}</code>` : ''}: ${h(r.dropped ?? '')}</li>`).join('')}</ul>`
      : '';
  return `<table id="distinguish-matrix" class="distinguish">${head}\n${body.join('\n')}</table>
${droppedList}
<div id="distinguish-outputs">${outputs.join('\n')}</div>`;
}

/** The Distinguishing tests section: empty for a run without the step. */
export function distinguishHtml(state: RunState): string {
  const d = state.distinguish;
  if (!d) return '';
  const decided = d.result
    ? `<p class="decided"><strong>${h(d.result.decided)}</strong></p>`
    : `<p class="warning">${d.skipped ? `Skipped: ${h(d.skipped)}` : 'The step did not finish: the matrix holds the runs recorded before it stopped.'}</p>`;
  const groups = d.result?.groups ?? [];
  const groupsHtml =
    groups.length > 0
      ? `<p class="note">Agreement groups (finalists that pass and fail the same tests; size × tests passed): ${h(groups.map((g) => `${g.members.join(' + ')} ${g.members.length} × ${g.passed} = ${g.score}`).join('; '))}</p>`
      : '';
  return `<h2 id="distinguish">Distinguishing tests <span class="note">(generated tests run on each finalist's scored tree and on base; click a failing cell for the end of its output)</span></h2>
${decided}
${metaHtml(state)}
${matrixHtml(state)}
${groupsHtml}`;
}
