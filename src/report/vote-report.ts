/**
 * The vote's part of report.json and report.md (`[vote]`), from the folded state: every ballot
 * and review de-anonymised (with the labels each voter saw, so it can be checked against what
 * the voter was shown), the seed that reproduces the orders, the tally step by step, the
 * agreement between voters, the order-flip rate, the length correlation, the voters that are
 * missing (a degraded result), and "too close to call" with both rankings.
 */
import type { RunState } from '../engine/record/run-state.js';
import { plural } from '../engine/words.js';
import type { VoteState } from '../vote/record.js';
import type { TallyStep } from '../vote/tally.js';

const num = (n: number): string => String(Math.round(n * 1000) / 1000);

export function voteJson(state: RunState): Record<string, unknown> | null {
  const v = state.vote;
  if (!v) return null;
  const result = v.result;
  const calls = byVoter(v);
  return {
    seed: v.seed,
    method: v.method,
    weight: v.weight,
    skipped: v.skipped ?? null,
    /** What the voters' calls cost, a vote interrupted and resumed included (in the run's cost, not in the candidates'). */
    costUsd: state.voteCostUsd,
    /** Answers taken from the record of an interrupted vote instead of asking again (resume). */
    reusedCalls: v.calls.filter((c) => c.reused).length,
    voters: v.voters,
    eligible: v.eligible,
    views: v.views,
    materials: v.materials,
    reviews: calls
      .filter((c) => c.purpose === 'review' && c.reviews)
      .flatMap((c) => Object.entries(c.reviews ?? {}).map(([candidate, text]) => ({ voter: c.voter, candidate, text }))),
    ballots: calls.filter((c) => c.purpose === 'ranking' && c.ranking).map((c) => ({ voter: c.voter, ranking: c.ranking })),
    pairs: calls
      .filter((c) => c.purpose === 'pair')
      .map((c) => ({ voter: c.voter, first: c.first, second: c.second, verdict: c.verdict ?? null, error: c.error ?? null })),
    calls,
    tally: result?.tally ?? null,
    combined: result?.combined ?? null,
    checksOnly: result?.checksOnly ?? null,
    stats: result?.stats ?? null,
    closeCall: result?.closeCall ?? null,
    tooCloseToCall: result?.closeCall?.tooClose ?? false,
    degraded: result?.combined.degraded ?? false,
    missingVoters: result?.combined.missingVoters ?? [],
  };
}

/** The calls in the voters' order (voters run side by side, so the record has them in the order they ended). */
function byVoter(v: VoteState): VoteState['calls'] {
  const order = new Map(v.voters.map((w, i) => [w.id, i]));
  return [...v.calls].sort((a, b) => (order.get(a.voter) ?? 0) - (order.get(b.voter) ?? 0));
}

function stepLine(step: TallyStep): string {
  switch (step.kind) {
    case 'ballot':
      return `- ${step.voter}: ${step.contributions.map((c) => `${c.candidate} +${num(c.points)} (share ${num(c.share)})`).join(', ')}`;
    case 'judgement':
      return `- ${step.voter} on ${step.a} vs ${step.b}: ${step.counted}`;
    case 'pair':
      return `- ${step.a} vs ${step.b}: ${step.winsA}–${step.winsB}, ${plural(step.ties, 'tie')}; points ${num(step.pointsA)} / ${num(step.pointsB)}`;
    default: {
      const unreachable: never = step;
      return unreachable;
    }
  }
}

function shownLine(v: VoteState, voter: string): string {
  const view = v.views.find((w) => w.voter === voter);
  if (!view) return '';
  return `shown ${view.shown.map((s) => `${s.label} = ${s.candidate}`).join(', ')}${view.recused ? `; recused from ${view.recused}` : ''}`;
}

export function voteMarkdown(state: RunState): string[] {
  const v = state.vote;
  if (!v) return [];
  const lines: string[] = ['', '## Vote', ''];
  lines.push(`- method: ${v.method}, weight ${v.weight} (0 = checks only, 1 = votes only), seed \`${v.seed}\` (the same seed reproduces every voter's order)`);
  const reused = v.calls.filter((c) => c.reused).length;
  if (v.calls.length > 0) {
    const again = reused > 0 ? ` (${reused} of them answered before the run was interrupted, taken from the record)` : '';
    lines.push(`- ${plural(v.calls.length, 'voter call')}${again}, $${state.voteCostUsd.toFixed(4)} (in the run's cost, not in the candidates')`);
  }
  if (v.voters.length > 0)
    lines.push(
      `- voters: ${v.voters.map((w) => `${w.id} (${w.candidate ? `${w.candidate}'s agent` : `${w.kind}${w.model ? `:${w.model}` : ''}`})`).join(', ')}`,
    );
  if (v.skipped) {
    lines.push(`- **${v.skipped}**`);
    return lines;
  }
  const r = v.result;
  if (!r) {
    lines.push('- the vote did not finish');
    return lines;
  }
  if (r.closeCall?.tooClose) {
    lines.push(
      `- **too close to call**: ${r.closeCall.winner} leads ${r.closeCall.runnerUp} by ${num(r.closeCall.margin)}, but not in ${r.closeCall.notAhead} of ${r.closeCall.resamples} resamples of the ballots; ` +
        `combined: ${r.combined.entries.map((e) => e.candidate).join(' > ')}; by checks alone: ${r.checksOnly.join(' > ')}`,
    );
  }
  if (r.combined.degraded) lines.push(`- **degraded**: missing voters: ${r.combined.missingVoters.map((m) => `${m.voter} (${m.reason})`).join('; ')}`);
  lines.push('', '| rank | candidate | check score | vote | combined |', '|---|---|---|---|---|');
  for (const e of r.combined.entries)
    lines.push(
      `| ${e.rank} | ${e.candidate} | ${num(e.checkScore)} (${num(e.checkNormalised)}) | ${num(e.vote)} (${num(e.voteNormalised)}) | ${num(e.combined)} |`,
    );
  const s = r.stats;
  lines.push('');
  lines.push(
    `- agreement: ${s.kendallW ? `Kendall's W ${num(s.kendallW.w)} (over ${plural(s.kendallW.voterPairs, 'voter pair')})` : "Kendall's W undefined (no two voters ranked two candidates in common)"}${s.pairwiseAgreement ? `; pairwise agreement ${num(s.pairwiseAgreement.agreement)} over ${s.pairwiseAgreement.comparisons} comparisons` : ''}`,
  );
  if (s.orderFlipRate)
    lines.push(
      `- order-flip rate: ${num(s.orderFlipRate.rate)} (${s.orderFlipRate.flipped} of ${plural(s.orderFlipRate.judged, 'pair')} changed verdict when the order was swapped)`,
    );
  lines.push(
    `- length correlation (material length vs vote): ${s.lengthCorrelation === undefined ? 'undefined (fewer than 3 candidates, or no variation)' : num(s.lengthCorrelation)}`,
  );
  const changed = v.materials.filter((m) => Object.keys(m.changes).length > 0 || m.cut || m.formatterError);
  if (changed.length > 0) {
    lines.push('- anonymising:');
    for (const m of changed)
      lines.push(
        `  - ${m.candidate}: ${[...Object.entries(m.changes).map(([rule, n]) => `${rule} ×${n}`), ...(m.cut ? ['cut'] : []), ...(m.formatterError ? [m.formatterError] : [])].join(', ')}`,
      );
  }
  lines.push(
    '',
    '### Tally',
    '',
    ...r.tally.steps.map(stepLine),
    ...r.tally.tieBreaks.map((t) => `- tie: ${t}`),
    ...r.combined.tieBreaks.map((t) => `- combined tie: ${t}`),
  );
  lines.push('', '### Ballots', '');
  for (const voter of v.voters) {
    const calls = v.calls.filter((c) => c.voter === voter.id && c.purpose !== 'review');
    const ranking = calls.find((c) => c.ranking)?.ranking;
    const failed = calls.filter((c) => c.error).map((c) => c.error);
    const pairs = calls
      .filter((c) => c.purpose === 'pair')
      .map((c) => `${c.first} vs ${c.second}: ${c.verdict ? ('winner' in c.verdict ? c.verdict.winner : 'tie') : 'no answer'}`);
    lines.push(
      `- ${voter.id} (${shownLine(v, voter.id)}): ${ranking ? ranking.join(' > ') : pairs.length > 0 ? pairs.join('; ') : 'no ballot'}${failed.length > 0 && !ranking ? ` — ${failed.join('; ')}` : ''}`,
    );
  }
  const reviews = byVoter(v).filter((c) => c.purpose === 'review');
  if (reviews.length > 0) {
    lines.push('', '### Reviews', '');
    for (const c of reviews) {
      if (c.error) {
        lines.push(`- ${c.voter}: no review (${c.error})`);
        continue;
      }
      for (const [candidate, text] of Object.entries(c.reviews ?? {})) lines.push(`- ${c.voter} on ${candidate}: ${text.replace(/\s*\n\s*/g, ' ')}`);
    }
  }
  return lines;
}
