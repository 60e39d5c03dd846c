/**
 * bench.html's section on the pick against an oracle (src/bench/pick-summary.ts): per agent and
 * selection the random, pick and oracle rates with their Wilson intervals, then the paired
 * differences between selections. The same figures as bench.md's "The pick against the oracle",
 * from the same summary, written by the same formatters.
 */
import type { BenchSummary } from '../../bench/summary.js';
import { NONE, percent, percentInterval, points, pointsInterval } from '../../bench/format.js';
import { escapeHtml as h } from './escape.js';

export function picksSection(s: BenchSummary): string {
  const p = s.picks;
  if (p === null) return '';
  const rows = p.selections.map(
    (r) =>
      `<tr data-agent="${h(r.agent)}" data-selection="${h(r.selection)}"><td><strong>${h(r.agent)}</strong></td><td>${h(r.selection === r.policy ? r.policy : `${r.selection} (${r.policy})`)}</td><td class="num">${r.trials}</td>` +
      `<td class="num">${percent(r.random)} <span class="note">(${r.passingCandidates}/${r.candidates} candidates)</span></td><td class="num">${percentInterval(r.randomInterval)}</td>` +
      `<td class="num pick">${percent(r.pick)} <span class="note">(${r.picked}/${r.trials})</span></td><td class="num">${percentInterval(r.pickInterval)}</td>` +
      `<td class="num">${percent(r.oracle)} <span class="note">(${r.solvable}/${r.trials})</span></td><td class="num">${percentInterval(r.oracleInterval)}</td><td class="num">${r.fellBack}</td></tr>`,
  );
  const pairs = p.pairs.map((x) => {
    const d = x.difference;
    return `<tr data-agent="${h(x.agent)}"><td><strong>${h(x.agent)}</strong></td><td>${h(`${x.a} − ${x.b}`)}</td><td class="num">${d?.trials ?? 0}</td><td class="num">${d === null ? NONE : `${d.aOnly} / ${d.bOnly}`}</td><td class="num">${points(d?.mean ?? null)}</td><td class="num">${d === null ? NONE : `${pointsInterval(d.interval)}${d.clamped ? ' (clamped)' : ''}`}</td></tr>`;
  });
  return [
    '<h2>The pick against the oracle <span class="note">(every candidate run on the task\'s hidden oracle; intervals Wilson 95%)</span></h2>',
    `<table id="picks"><tr><th>agent</th><th>selection</th><th class="num">trials</th><th class="num">random</th><th class="num">95% interval</th><th class="num">pick</th><th class="num">95% interval</th><th class="num">oracle</th><th class="num">95% interval</th><th class="num">fell back</th></tr>\n${rows.join('\n')}</table>`,
    '<p class="note">Random: the mean share of a trial\'s candidates that pass the oracle (a pick at random). Pick: the trials whose pick by this selection passes it. Oracle: the trials where at least one candidate passes, the best any pick could do. Fell back: trials the selection did not decide, where its pick is the tie-break\'s.</p>',
    ...(pairs.length === 0
      ? []
      : [
          `<h3>Paired differences between selections</h3>\n<table id="pick-pairs"><tr><th>agent</th><th>selections</th><th class="num">trials</th><th class="num">only first / only second right</th><th class="num">difference</th><th class="num">95% interval</th></tr>\n${pairs.join('\n')}</table>`,
          '<p class="note">Per trial, whether the first selection\'s pick passes the oracle minus whether the second\'s does, on the same candidates; 95% interval by the normal approximation (paired proportions). An interval that contains 0 does not separate the two.</p>',
        ]),
  ].join('\n');
}
