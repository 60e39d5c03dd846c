/**
 * The vote (`[vote]`, RunState.vote) as the compare view shows it: a one-line summary under the
 * ranking, each candidate's cells in the table, and the lines of the vote pane about the selected
 * candidate: every ballot about it de-anonymised (the place each voter gave it, and the label it
 * saw it under, so it can be checked against what the voter was shown), the pair verdicts, the
 * cross-reviews, and the voter recused from it. The wording is report.md's
 * (src/report/vote-report.ts) so that the screen and the report read the same; report.md has
 * everything (the tally step by step, the materials), this is what fits on a screen. Pure: the
 * view and the scroll clamp (../state/ui-state.ts) read the same lines.
 */
import type { CandidateState, RunState } from '../../engine/record/run-state.js';
import { plural } from '../../engine/words.js';
import type { VoteState } from '../../vote/record.js';
import type { PairOutcome } from '../../vote/types.js';
import { candidateName } from '../layout/columns.js';
import { reviewText } from './candidate.js';
import { oneLine } from './text.js';

/** Three decimals at most, as report.md writes them. */
export const voteNumber = (n: number): string => String(Math.round(n * 1000) / 1000);

export type VoteTone = 'primary' | 'secondary' | 'heading' | 'warning' | 'error' | 'ok';

export interface VoteText {
  readonly text: string;
  readonly tone: VoteTone;
}

/** 1st, 2nd, 3rd, 4th … 11th, 12th, 13th, 21st. */
export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/** What a candidate not judged by the vote shows in the table's vote columns. */
export const NOT_VOTED = '-';

/** The table's vote cells: the vote score (0..1) and the combined place with its score. */
export function voteCells(c: CandidateState): { readonly score: string; readonly combined: string } {
  if (!c.vote) return { score: NOT_VOTED, combined: NOT_VOTED };
  return { score: c.vote.score.toFixed(2), combined: `${c.vote.rank}. ${c.vote.combined.toFixed(2)}` };
}

/** Whether the vote decided (the table then has its columns). */
export function voteDecided(run: RunState): boolean {
  return run.vote?.result !== undefined && run.vote.skipped === undefined;
}

function agreement(v: VoteState, long: boolean): string {
  const s = v.result?.stats;
  if (!s) return '';
  const w = s.kendallW ? `Kendall's W ${voteNumber(s.kendallW.w)}${long ? ` (over ${plural(s.kendallW.voterPairs, 'voter pair')})` : ''}` : undefined;
  const pairs = s.pairwiseAgreement
    ? `pairwise agreement ${voteNumber(s.pairwiseAgreement.agreement)}${long ? ` over ${s.pairwiseAgreement.comparisons} comparisons` : ''}`
    : undefined;
  if (w && pairs) return long ? `${w}; ${pairs}` : w;
  return w ?? pairs ?? (long ? 'undefined (no two voters ranked or judged two candidates in common)' : 'agreement undefined');
}

function closeCallText(v: VoteState): string | undefined {
  const r = v.result;
  return r?.closeCall?.tooClose ? `too close to call (by checks alone: ${r.checksOnly.join(' > ')})` : undefined;
}

/**
 * The line under the ranking, most telling first (a narrow terminal cuts the end, and the vote
 * pane has every part in full): the combined order, a close call, missing voters, the
 * agreement, then method, weight and seed. A skipped vote says why instead.
 */
export function voteSummary(v: VoteState): VoteText[] {
  if (v.skipped) return [{ text: v.skipped, tone: 'warning' }];
  const r = v.result;
  const settings: VoteText = { text: ` · ${v.method}, weight ${v.weight}, seed ${v.seed}`, tone: 'secondary' };
  if (!r) return [{ text: `the vote did not finish (${plural(v.calls.length, 'voter call')} recorded)`, tone: 'warning' }, settings];
  const parts: VoteText[] = [{ text: r.combined.entries.map((e) => e.candidate).join(' > '), tone: 'primary' }];
  const close = closeCallText(v);
  if (close) parts.push({ text: ` · ${close}`, tone: 'warning' });
  if (r.combined.degraded) parts.push({ text: ` · degraded: missing ${r.combined.missingVoters.map((m) => m.voter).join(', ')}`, tone: 'warning' });
  parts.push({ text: ` · ${agreement(v, false)}`, tone: 'secondary' }, settings);
  return parts;
}

/** Skipped before vote.started: the state's method and weight are placeholders (run-state.ts), no voter was asked. */
function neverStarted(v: VoteState): boolean {
  return v.voters.length === 0 && v.calls.length === 0;
}

/** The vote pane's second header line: how the vote was run. `costUsd`: what the voters cost the run (RunState.voteCostUsd, a resumed vote's earlier calls included). */
export function voteSettings(v: VoteState, costUsd: number): string {
  if (neverStarted(v)) return `${v.seed ? `seed ${v.seed} · ` : ''}the vote did not start: no voter was asked`;
  return `method ${v.method}, weight ${v.weight} (0 = checks only, 1 = votes only), seed ${v.seed} · ${plural(v.calls.length, 'voter call')}, $${costUsd.toFixed(4)}`;
}

function verdictText(verdict: PairOutcome | undefined): string {
  if (!verdict) return 'no answer';
  return 'winner' in verdict ? verdict.winner : 'tie';
}

/** The lines about the whole vote: the combined ranking, agreement, close call, missing voters. */
function resultLines(v: VoteState): VoteText[] {
  const r = v.result;
  if (!r) return [{ text: 'the vote did not finish: the ballots below are the ones recorded before it stopped', tone: 'warning' }];
  const lines: VoteText[] = [
    { text: `combined: ${r.combined.entries.map((e) => `${e.candidate} ${voteNumber(e.combined)}`).join(' > ')}`, tone: 'primary' },
    { text: `agreement: ${agreement(v, true)}`, tone: 'secondary' },
  ];
  const s = r.stats;
  if (s.orderFlipRate)
    lines.push({
      text: `order-flip rate: ${voteNumber(s.orderFlipRate.rate)} (${s.orderFlipRate.flipped} of ${plural(s.orderFlipRate.judged, 'pair')} changed verdict when the order was swapped)`,
      tone: 'secondary',
    });
  const close = closeCallText(v);
  if (close && r.closeCall) {
    lines.push({
      text: `${close}: ${r.closeCall.winner} leads ${r.closeCall.runnerUp} by ${voteNumber(r.closeCall.margin)}, but not in ${r.closeCall.notAhead} of ${r.closeCall.resamples} resamples of the ballots`,
      tone: 'warning',
    });
  }
  if (r.combined.degraded)
    lines.push({ text: `degraded: missing voters: ${r.combined.missingVoters.map((m) => `${m.voter} (${oneLine(m.reason)})`).join('; ')}`, tone: 'warning' });
  return lines;
}

/** One voter's ballot as it concerns `id`: the place it gave it, or its pair verdicts about it. */
function ballotLine(v: VoteState, voter: string, id: string): VoteText {
  const view = v.views.find((w) => w.voter === voter);
  const label = view?.shown.find((s) => s.candidate === id)?.label;
  const saw = label ? ` · saw it as ${label}` : '';
  const calls = v.calls.filter((c) => c.voter === voter);
  if (v.method === 'pairwise') {
    const pairs = calls.filter((c) => c.purpose === 'pair' && (c.first === id || c.second === id));
    if (pairs.length === 0) return { text: `  ${voter}: no pair verdicts${saw}`, tone: 'secondary' };
    const unanswered = pairs.some((c) => !c.verdict);
    return {
      text: `  ${voter}: ${pairs.map((c) => `${c.first} vs ${c.second}: ${verdictText(c.verdict)}`).join('; ')}${saw}`,
      tone: unanswered ? 'warning' : 'primary',
    };
  }
  const call = calls.find((c) => c.purpose === 'ranking');
  const ranking = call?.ranking;
  const place = ranking ? ranking.indexOf(id) : -1;
  if (ranking && place >= 0) return { text: `  ${voter}: ${ordinal(place + 1)} of ${ranking.length}${saw} · ${ranking.join(' > ')}`, tone: 'primary' };
  if (call?.error) return { text: `  ${voter}: no ballot (${oneLine(call.error)})${saw}`, tone: 'warning' };
  return { text: `  ${voter}: no ballot${saw}`, tone: 'secondary' };
}

function reviewLines(v: VoteState, id: string, name: string): VoteText[] {
  const calls = v.calls.filter((c) => c.purpose === 'review');
  const order = new Map(v.voters.map((w, i) => [w.id, i]));
  const about = calls
    .filter((c) => c.reviews?.[id] !== undefined || v.views.some((w) => w.voter === c.voter && w.shown.some((s) => s.candidate === id)))
    .sort((a, b) => (order.get(a.voter) ?? 0) - (order.get(b.voter) ?? 0));
  if (about.length === 0) return [];
  return [
    { text: `Reviews of ${name} (cross-review)`, tone: 'heading' },
    ...about.map((c): VoteText => {
      if (c.error !== undefined) return { text: `  ${c.voter}: no review (${oneLine(c.error)})`, tone: 'warning' };
      const text = c.reviews?.[id];
      return text === undefined ? { text: `  ${c.voter}: no review of it`, tone: 'secondary' } : { text: `  ${c.voter}: ${oneLine(text)}`, tone: 'primary' };
    }),
  ];
}

/** The reviewer's (`[review]`) verdict of the candidate's latest reviewed iteration, if any. */
function reviewerLine(c: CandidateState): VoteText[] {
  const latest = [...c.iterations].reverse().find((it) => it.review);
  if (!latest?.review) return [];
  const tone: VoteTone = latest.review.verdict === 'lgtm' ? 'ok' : latest.review.verdict === 'refuse' ? 'error' : 'secondary';
  return [{ text: `Review of ${candidateName(c)} (iteration ${latest.iteration}): ${reviewText(latest.review)}`, tone }];
}

/**
 * The vote pane's lines (it scrolls them): the result, then about the selected candidate its
 * ballots (every voter, in the voters' order; the voter recused from it last), then the
 * cross-reviews of it, one line each (the pane cuts them to its width), then the reviewer's
 * verdict. A skipped vote has only its reason.
 */
export function votePaneLines(run: RunState, selected: string | undefined): VoteText[] {
  const v = run.vote;
  if (!v) return [];
  const c = selected === undefined ? undefined : run.candidates[selected];
  if (v.skipped) return [{ text: v.skipped, tone: 'warning' }, ...(c ? reviewerLine(c) : [])];
  const lines = resultLines(v);
  if (!c) return lines;
  const name = candidateName(c);
  if (!v.eligible.includes(c.id)) {
    lines.push({ text: `${name} was not in the vote: only the candidates that could win were judged (${v.eligible.join(', ')})`, tone: 'secondary' });
    const own = v.calls.find((call) => call.voter === c.id && call.purpose === 'ranking');
    if (own?.ranking) lines.push({ text: `  its agent voted as ${c.id}: ${own.ranking.join(' > ')}`, tone: 'secondary' });
    return [...lines, ...reviewerLine(c)];
  }
  lines.push({ text: `Ballots about ${name}`, tone: 'heading' });
  const recused = v.views.filter((w) => w.recused === c.id).map((w) => w.voter);
  for (const voter of v.voters) if (!recused.includes(voter.id)) lines.push(ballotLine(v, voter.id, c.id));
  for (const voter of recused) lines.push({ text: `  ${voter}: recused (its own agent never judges its own work)`, tone: 'secondary' });
  return [...lines, ...reviewLines(v, c.id, name), ...reviewerLine(c)];
}
