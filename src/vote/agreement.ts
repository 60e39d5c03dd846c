/**
 * How much to trust a vote: whether the voters agree, whether they judged the work or the
 * position it was shown in, whether they paid for length, and whether the winner's lead is
 * more than the voters' disagreement could produce by chance. All for the report; none of it
 * changes the tally.
 *
 * - **Kendall's W with recusal.** The textbook W needs every voter to rank every candidate,
 *   and recusal means none does. W of complete rankings equals ((m-1)·mean ρ + 1)/m, with ρ
 *   Spearman's correlation of every pair of the m voters; we compute ρ for each pair of voters
 *   on the candidates both ranked (re-ranked 1..c among themselves, pairs sharing fewer than
 *   two skipped) and use the same formula. On complete rankings it is exactly Kendall's W.
 * - **Pairwise agreement**: for each pair of candidates and each two voters that both ordered
 *   it, do they order it the same way? The share that do. It needs no complete rankings.
 * - **Order-flip rate** (position bias, measured): the share of pairwise judgements whose two
 *   orders disagreed. Published judges flip 13-45% of pairs; a high rate says the vote was
 *   mostly about order, and those judgements did not count (tally.ts).
 * - **Length correlation** (length bias, measured): Pearson's r of material length and vote
 *   score over the candidates.
 * - **Too close to call**: the ballots (for pairwise, each voter's judgements together, as
 *   they are not independent) are resampled with replacement, from the recorded seed, 1000
 *   times; the vote is too close when the winner is not ahead of the runner-up (margin <= 0)
 *   in more than 5% of them, i.e. the one-sided 95% bootstrap interval of the margin reaches
 *   zero. The record keeps the 5th and 95th percentiles of the margin beside the verdict.
 */
import { seededRandom } from './order.js';
import { judgementCount, SCORE_EPSILON } from './tally.js';
import type { PairJudgement, RankingBallot } from './types.js';

function spearman(x: readonly string[], y: readonly string[]): number | undefined {
  const inY = new Set(y);
  const common = x.filter((c) => inY.has(c));
  const c = common.length;
  if (c < 2) return undefined;
  const inCommon = new Set(common);
  const rankY = new Map(y.filter((id) => inCommon.has(id)).map((id, i) => [id, i]));
  const sumD2 = common.reduce((sum, id, i) => sum + (i - (rankY.get(id) as number)) ** 2, 0);
  return 1 - (6 * sumD2) / (c * (c * c - 1));
}

export interface Concordance {
  /** Kendall's W (see the module comment for recusal), in [0, 1]. */
  readonly w: number;
  readonly meanSpearman: number;
  /** Pairs of voters that shared at least two candidates. */
  readonly voterPairs: number;
}

/** Undefined when no two voters ranked two candidates in common. */
export function kendallW(ballots: readonly RankingBallot[]): Concordance | undefined {
  const usable = ballots.filter((b) => b.ranking.length >= 2);
  const rhos: number[] = [];
  usable.forEach((x, i) => {
    for (const y of usable.slice(i + 1)) {
      const rho = spearman(x.ranking, y.ranking);
      if (rho !== undefined) rhos.push(rho);
    }
  });
  if (rhos.length === 0) return undefined;
  const m = usable.length;
  const meanSpearman = rhos.reduce((a, b) => a + b, 0) / rhos.length;
  return { w: ((m - 1) * meanSpearman + 1) / m, meanSpearman, voterPairs: rhos.length };
}

/** One voter's view of one pair of candidates: `better` or a tie (`better` undefined). */
export interface Preference {
  readonly voter: string;
  readonly pair: string;
  readonly better: string | undefined;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

export function preferencesFromRankings(ballots: readonly RankingBallot[]): Preference[] {
  return ballots.flatMap((b) => b.ranking.flatMap((x, i) => b.ranking.slice(i + 1).map((y) => ({ voter: b.voter, pair: pairKey(x, y), better: x }))));
}

/** Only judgements whose two orders agreed say something about the pair. */
export function preferencesFromJudgements(judgements: readonly PairJudgement[]): Preference[] {
  return judgements.flatMap((j) => {
    const counted = judgementCount(j);
    if (counted === 'flipped' || counted === 'incomplete') return [];
    return [{ voter: j.voter, pair: pairKey(j.a, j.b), better: counted === 'tie' ? undefined : counted }];
  });
}

export interface PairwiseAgreement {
  /** Share of comparisons on which two voters ordered a pair the same way. */
  readonly agreement: number;
  readonly comparisons: number;
}

/** Undefined when no two voters judged the same pair. */
export function pairwiseAgreement(preferences: readonly Preference[]): PairwiseAgreement | undefined {
  const byPair = new Map<string, Preference[]>();
  for (const p of preferences) byPair.set(p.pair, [...(byPair.get(p.pair) ?? []), p]);
  let agree = 0;
  let comparisons = 0;
  for (const prefs of byPair.values()) {
    prefs.forEach((x, i) => {
      for (const y of prefs.slice(i + 1)) {
        if (x.voter === y.voter) continue;
        comparisons += 1;
        if (x.better === y.better) agree += 1;
      }
    });
  }
  return comparisons === 0 ? undefined : { agreement: agree / comparisons, comparisons };
}

export interface FlipRate {
  readonly rate: number;
  readonly flipped: number;
  /** Judgements with an answer in both orders. */
  readonly judged: number;
}

/** Undefined when no judgement was answered in both orders. */
export function orderFlipRate(judgements: readonly PairJudgement[]): FlipRate | undefined {
  const results = judgements.map(judgementCount).filter((r) => r !== 'incomplete');
  const flipped = results.filter((r) => r === 'flipped').length;
  return results.length === 0 ? undefined : { rate: flipped / results.length, flipped, judged: results.length };
}

/**
 * Pearson's r of material length and vote score. Undefined with fewer than three candidates
 * (two points always give ±1) or when either does not vary.
 */
export function lengthCorrelation(points: readonly { readonly length: number; readonly vote: number }[]): number | undefined {
  const n = points.length;
  if (n < 3) return undefined;
  const meanX = points.reduce((s, p) => s + p.length, 0) / n;
  const meanY = points.reduce((s, p) => s + p.vote, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of points) {
    sxy += (p.length - meanX) * (p.vote - meanY);
    sxx += (p.length - meanX) ** 2;
    syy += (p.vote - meanY) ** 2;
  }
  if (sxx <= SCORE_EPSILON || syy <= SCORE_EPSILON) return undefined;
  return sxy / Math.sqrt(sxx * syy);
}

export interface CloseCall {
  readonly tooClose: boolean;
  readonly winner: string;
  readonly runnerUp: string;
  /** The winner's score minus the runner-up's, on all the ballots. */
  readonly margin: number;
  readonly resamples: number;
  /** Resamples in which the winner was not ahead. */
  readonly notAhead: number;
  /** 5th and 95th percentiles of the margin over the resamples. */
  readonly interval: readonly [number, number];
}

export interface CloseCallInput<T> {
  /** The run's recorded vote seed. */
  readonly seed: string;
  /** What is resampled: ballots, or each voter's judgements as one unit. */
  readonly units: readonly T[];
  /** Scores by candidate id from a set of units (a tally's normalised scores, or the combined score). */
  readonly score: (units: readonly T[]) => ReadonlyMap<string, number>;
  readonly winner: string;
  readonly runnerUp: string;
  /** @default 1000 */
  readonly resamples?: number;
  /** The largest share of resamples in which the winner may not be ahead. @default 0.05 */
  readonly tolerance?: number;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const at = Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1));
  return sorted[at] as number;
}

/** Whether the winner's lead survives resampling the voters (see the module comment). */
export function tooCloseToCall<T>(input: CloseCallInput<T>): CloseCall {
  const { units, winner, runnerUp } = input;
  const resamples = input.resamples ?? 1000;
  const marginOf = (scores: ReadonlyMap<string, number>): number => (scores.get(winner) ?? 0) - (scores.get(runnerUp) ?? 0);
  const margin = marginOf(input.score(units));
  const random = seededRandom(`${input.seed}\u0000bootstrap`);
  const margins: number[] = [];
  if (units.length > 0) {
    for (let r = 0; r < resamples; r++) {
      const sample = units.map(() => units[Math.floor(random() * units.length)] as T);
      margins.push(marginOf(input.score(sample)));
    }
  }
  margins.sort((a, b) => a - b);
  const notAhead = margins.filter((m) => m <= SCORE_EPSILON).length;
  const tooClose = margin <= SCORE_EPSILON || margins.length === 0 || notAhead > (input.tolerance ?? 0.05) * margins.length;
  return { tooClose, winner, runnerUp, margin, resamples: margins.length, notAhead, interval: [percentile(margins, 0.05), percentile(margins, 0.95)] };
}

/** Groups judgements by voter, in first-seen order: the unit of resampling for pairwise votes. */
export function judgementsByVoter(judgements: readonly PairJudgement[]): PairJudgement[][] {
  const groups = new Map<string, PairJudgement[]>();
  for (const j of judgements) groups.set(j.voter, [...(groups.get(j.voter) ?? []), j]);
  return [...groups.values()];
}
