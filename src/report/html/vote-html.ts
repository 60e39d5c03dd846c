/**
 * report.html's vote (`[vote]`): how it was run, a close call or missing voters, the tally step by
 * step, each voter's ballot de-anonymised (with the labels it was shown), and the voters' reviews.
 * The state it reads was redacted by the caller; every text goes in through escapeHtml.
 */
import type { RunState } from '../../engine/record/run-state.js';
import { plural } from '../../engine/words.js';
import type { TallyStep } from '../../vote/tally.js';
import { headOf } from './diff-cap.js';
import { escapeHtml as h } from './escape.js';

const num = (n: number): string => String(Math.round(n * 1000) / 1000);

function stepHtml(step: TallyStep): string {
  switch (step.kind) {
    case 'ballot':
      return `${h(step.voter)}: ${step.contributions.map((c) => `${h(c.candidate)} +${num(c.points)}`).join(', ')}`;
    case 'judgement':
      return `${h(step.voter)} on ${h(step.a)} vs ${h(step.b)}: ${h(step.counted)}`;
    case 'pair':
      return `${h(step.a)} vs ${h(step.b)}: ${step.winsA}–${step.winsB}, ${plural(step.ties, 'tie')}; points ${num(step.pointsA)} / ${num(step.pointsB)}`;
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

export function voteHtml(state: RunState): string {
  const v = state.vote;
  if (!v) return '';
  const parts = [
    `<h2>Vote</h2>`,
    `<p class="meta">method ${h(v.method)}, weight ${num(v.weight)} (0 = checks only, 1 = votes only), seed <code>${h(v.seed)}</code>, ${plural(v.calls.length, 'voter call')}, $${state.voteCostUsd.toFixed(4)}</p>`,
  ];
  if (v.skipped) return [...parts, `<p class="warning">${h(v.skipped)}</p>`].join('\n');
  const r = v.result;
  if (r) {
    if (r.closeCall?.tooClose)
      parts.push(
        `<p class="warning">Too close to call: ${h(r.closeCall.winner)} leads ${h(r.closeCall.runnerUp)} by ${num(r.closeCall.margin)}, but not in ${r.closeCall.notAhead} of ${r.closeCall.resamples} resamples; by checks alone: ${h(r.checksOnly.join(' > '))}.</p>`,
      );
    if (r.combined.degraded)
      parts.push(`<p class="warning">Degraded: missing voters ${h(r.combined.missingVoters.map((m) => `${m.voter} (${m.reason})`).join('; '))}</p>`);
    parts.push(
      `<h3>Tally</h3><table id="vote-tally"><tr><th class="num">rank</th><th>candidate</th><th class="num">check score</th><th class="num">vote</th><th class="num">combined</th></tr>${r.combined.entries
        .map(
          (e) =>
            `<tr><td class="num">${e.rank}</td><td>${h(e.candidate)}</td><td class="num">${num(e.checkScore)} (${num(e.checkNormalised)})</td><td class="num">${num(e.vote)} (${num(e.voteNormalised)})</td><td class="num">${num(e.combined)}</td></tr>`,
        )
        .join('')}</table>`,
      `<ul>${[...r.tally.steps.map(stepHtml), ...r.tally.tieBreaks.map((t) => `tie: ${h(t)}`), ...r.combined.tieBreaks.map((t) => `combined tie: ${h(t)}`)].map((l) => `<li>${l}</li>`).join('')}</ul>`,
    );
  } else {
    parts.push('<p class="warning">The vote did not finish.</p>');
  }
  const ballots = v.voters.map((voter) => {
    const view = v.views.find((w) => w.voter === voter.id);
    const shown = view ? view.shown.map((s) => `${s.label} = ${s.candidate}`).join(', ') + (view.recused ? `; recused from ${view.recused}` : '') : '';
    const calls = v.calls.filter((c) => c.voter === voter.id && c.purpose !== 'review');
    const ranking = calls.find((c) => c.ranking)?.ranking;
    const pairs = calls
      .filter((c) => c.purpose === 'pair')
      .map((c) => `${c.first} vs ${c.second}: ${c.verdict ? ('winner' in c.verdict ? c.verdict.winner : 'tie') : 'no answer'}`);
    const errors = calls.filter((c) => c.error).map((c) => c.error);
    const ballot = ranking ? ranking.join(' > ') : pairs.length > 0 ? pairs.join('; ') : `no ballot${errors.length > 0 ? ` (${errors.join('; ')})` : ''}`;
    const who = voter.candidate ? `${voter.candidate}'s agent` : `${voter.kind}${voter.model ? `:${voter.model}` : ''}`;
    return `<tr><td>${h(voter.id)} <span class="note">(${h(who)})</span></td><td>${h(shown)}</td><td>${h(ballot)}</td></tr>`;
  });
  parts.push(`<h3>Ballots</h3><table id="vote-ballots"><tr><th>voter</th><th>shown as</th><th>ballot</th></tr>${ballots.join('')}</table>`);
  const reviews = v.calls
    .filter((c) => c.purpose === 'review')
    .flatMap((c) =>
      c.error
        ? [`<li>${h(c.voter)}: no review (${h(c.error)})</li>`]
        : Object.entries(c.reviews ?? {}).map(([cand, text]) => `<li>${h(c.voter)} on ${h(cand)}: ${h(headOf(text))}</li>`),
    );
  if (reviews.length > 0) parts.push(`<h3>Voters' reviews</h3><ul>${reviews.join('')}</ul>`);
  return parts.join('\n');
}
