/**
 * Counting ballots: `borda`, `approval`, `plurality` over rankings, and `pairwise` (Copeland)
 * over judgements asked in both orders. Every tally returns the score of each candidate, a
 * normalised score in [0, 1], the ranking, and the record of how it got there (what each
 * ballot gave each candidate, and why each tie ended as it did).
 *
 * **Recusal** means ballots differ in size: a candidate's own voter ranks n-1 candidates, a
 * jury voter ranks n. Raw points are shown, but the ranking uses the normalised score: the
 * mean, over the ballots that could rank the candidate, of the share of that ballot's points
 * it got. When every candidate votes and none fails, every candidate is on n-1 ballots of
 * size n-1 and both orders are the same; when a voter fails, no candidate gains from having
 * been on more ballots.
 *
 * - borda: on a ballot of k candidates, place i (0-based) gives k-1-i points; a share of
 *   points/(k-1).
 * - approval: a voter approves the top ceil(k/2) of its k candidates (the better half,
 *   rounding up, so a ballot of one approves it).
 * - plurality: the top candidate of each ballot gets 1.
 * - A ballot of one candidate (two candidates that vote for each other) carries no preference
 *   and counts for nothing, whatever the method: it would give each its only vote.
 * - pairwise, **Copeland** rather than Bradley-Terry: with a handful of voters and three to
 *   five candidates, Bradley-Terry's maximum likelihood has no finite answer when a candidate
 *   wins every comparison (the usual case) and needs a prior to be made to converge, and its
 *   strengths cannot be checked by hand; Copeland is a count that the report can show pair by
 *   pair. A judgement counts only when its two orders agree (position bias otherwise decides
 *   it); a pair's winner has more agreed wins than the other (a tie otherwise, also when no
 *   judgement counted) and earns 1, a tie earns 1/2 each. Share: points/(n-1).
 *
 * Ties end by the check score (higher first), then the given tie-break order (selection's
 * `tie_break`), then the id, and the record says which rule separated each adjacent pair.
 * Scores are equal within 1e-9 (a share of 1/3 computed two ways must tie).
 */
import type { PairJudgement, PairOutcome, RankingBallot, ScoredCandidate, TieBreakOrder, VoteMethod } from './types.js';

export const SCORE_EPSILON = 1e-9;

export interface CandidateTally {
  readonly candidate: string;
  /** Raw points (Borda points, approvals, first places, Copeland points). */
  readonly points: number;
  /** How many ballots (voters, for pairwise: pairs) could give it points. */
  readonly ballots: number;
  /** In [0, 1]; what the ranking and the combination use. */
  readonly normalised: number;
}

export type TallyStep =
  | {
      readonly kind: 'ballot';
      readonly voter: string;
      readonly contributions: readonly { readonly candidate: string; readonly points: number; readonly share: number }[];
    }
  | {
      readonly kind: 'judgement';
      readonly voter: string;
      readonly a: string;
      readonly b: string;
      /** What counted: a candidate's id, `tie`, `flipped` (the two orders disagreed) or `incomplete` (an order has no answer). */
      readonly counted: string;
    }
  | {
      readonly kind: 'pair';
      readonly a: string;
      readonly b: string;
      readonly winsA: number;
      readonly winsB: number;
      readonly ties: number;
      readonly pointsA: number;
      readonly pointsB: number;
    };

export interface Tally {
  readonly method: VoteMethod;
  /** In the order the candidates were given. */
  readonly scores: readonly CandidateTally[];
  /** Candidate ids, best first. */
  readonly ranking: readonly string[];
  readonly steps: readonly TallyStep[];
  /** One line for each adjacent pair of the ranking whose vote scores tie: which rule separated them. */
  readonly tieBreaks: readonly string[];
}

/** What a ranked ballot gives its candidates: points, and the share of the ballot's points. */
type BallotRule = (k: number, place: number) => { points: number; share: number };

const RULES: Record<Exclude<VoteMethod, 'pairwise'>, BallotRule> = {
  borda: (k, place) => ({ points: k - 1 - place, share: (k - 1 - place) / (k - 1) }),
  approval: (k, place) => {
    const approved = place < Math.ceil(k / 2) ? 1 : 0;
    return { points: approved, share: approved };
  },
  plurality: (_k, place) => ({ points: place === 0 ? 1 : 0, share: place === 0 ? 1 : 0 }),
};

interface Accumulator {
  points: number;
  ballots: number;
  shares: number;
}

function accumulators(candidates: readonly ScoredCandidate[]): Map<string, Accumulator> {
  return new Map(candidates.map((c) => [c.id, { points: 0, ballots: 0, shares: 0 }]));
}

/** Counts ranked ballots by `borda`, `approval` or `plurality`. Ballot entries that are not candidates are a bug of the caller. */
export function tallyRankings(
  method: Exclude<VoteMethod, 'pairwise'>,
  candidates: readonly ScoredCandidate[],
  ballots: readonly RankingBallot[],
  tieBreakOrder: TieBreakOrder = [],
): Tally {
  const acc = accumulators(candidates);
  const steps: TallyStep[] = ballots.map((ballot) => {
    const k = ballot.ranking.length;
    const contributions = ballot.ranking.flatMap((candidate, place) => {
      const a = acc.get(candidate);
      if (a === undefined) throw new Error(`bug: voter ${ballot.voter} ranked ${candidate}, which is not in the vote`);
      if (k < 2) return [];
      const given = RULES[method](k, place);
      a.points += given.points;
      a.shares += given.share;
      a.ballots += 1;
      return [{ candidate, points: given.points, share: given.share }];
    });
    return { kind: 'ballot', voter: ballot.voter, contributions };
  });
  return finish(method, candidates, acc, steps, tieBreakOrder);
}

function sameOutcome(x: PairOutcome, y: PairOutcome): boolean {
  return 'tie' in x ? 'tie' in y : 'winner' in y && y.winner === x.winner;
}

/** What a judgement counts as: a winner's id, `tie`, `flipped` or `incomplete`. */
export function judgementCount(j: PairJudgement): string {
  if (j.aFirst === undefined || j.bFirst === undefined) return 'incomplete';
  if (!sameOutcome(j.aFirst, j.bFirst)) return 'flipped';
  return 'tie' in j.aFirst ? 'tie' : j.aFirst.winner;
}

const pairKey = (a: string, b: string): string => (a < b ? `${a}\u0000${b}` : `${b}\u0000${a}`);

/** Counts pairwise judgements by Copeland (see the module comment). */
export function tallyPairwise(candidates: readonly ScoredCandidate[], judgements: readonly PairJudgement[], tieBreakOrder: TieBreakOrder = []): Tally {
  const acc = accumulators(candidates);
  const steps: TallyStep[] = [];
  const counted = new Map<string, string[]>();
  for (const j of judgements) {
    const result = judgementCount(j);
    steps.push({ kind: 'judgement', voter: j.voter, a: j.a, b: j.b, counted: result });
    const key = pairKey(j.a, j.b);
    counted.set(key, [...(counted.get(key) ?? []), result]);
  }
  candidates.forEach((x, i) => {
    for (const y of candidates.slice(i + 1)) {
      const results = counted.get(pairKey(x.id, y.id)) ?? [];
      const winsA = results.filter((r) => r === x.id).length;
      const winsB = results.filter((r) => r === y.id).length;
      const ties = results.filter((r) => r === 'tie').length;
      const [pointsA, pointsB] = winsA > winsB ? [1, 0] : winsB > winsA ? [0, 1] : [0.5, 0.5];
      for (const [id, points] of [
        [x.id, pointsA],
        [y.id, pointsB],
      ] as const) {
        const a = acc.get(id) as Accumulator;
        a.points += points;
        a.shares += points;
        a.ballots += 1;
      }
      steps.push({ kind: 'pair', a: x.id, b: y.id, winsA, winsB, ties, pointsA, pointsB });
    }
  });
  return finish('pairwise', candidates, acc, steps, tieBreakOrder);
}

function finish(
  method: VoteMethod,
  candidates: readonly ScoredCandidate[],
  acc: Map<string, Accumulator>,
  steps: TallyStep[],
  tieBreakOrder: TieBreakOrder,
): Tally {
  const scores = candidates.map((c) => {
    const a = acc.get(c.id) as Accumulator;
    return { candidate: c.id, points: a.points, ballots: a.ballots, normalised: a.ballots === 0 ? 0 : a.shares / a.ballots };
  });
  const byId = new Map(scores.map((s) => [s.candidate, s.normalised]));
  const { ranking, tieBreaks } = rankWithTies(candidates, (id) => byId.get(id) ?? 0, tieBreakOrder, 'vote score');
  return { method, scores, ranking, steps, tieBreaks };
}

/**
 * Orders candidates by `score` (higher first), then check score, then the tie-break order,
 * then id; and says, for each adjacent pair whose scores tie, what separated them. Shared with
 * the combination (combine.ts).
 */
export function rankWithTies(
  candidates: readonly ScoredCandidate[],
  score: (id: string) => number,
  tieBreakOrder: TieBreakOrder,
  scoreName: string,
): { ranking: string[]; tieBreaks: string[] } {
  const position = (id: string): number => {
    const at = tieBreakOrder.indexOf(id);
    return at < 0 ? Number.MAX_SAFE_INTEGER : at;
  };
  const compare = (x: ScoredCandidate, y: ScoredCandidate): number => {
    const byScore = score(y.id) - score(x.id);
    if (Math.abs(byScore) > SCORE_EPSILON) return byScore;
    if (x.checkScore !== y.checkScore) return y.checkScore - x.checkScore;
    return position(x.id) - position(y.id) || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
  };
  const sorted = [...candidates].sort(compare);
  const tieBreaks: string[] = [];
  sorted.forEach((x, i) => {
    const y = sorted[i + 1];
    if (y === undefined || Math.abs(score(x.id) - score(y.id)) > SCORE_EPSILON) return;
    const tie = `${x.id} and ${y.id} tie on ${scoreName} (${round(score(x.id))})`;
    if (x.checkScore !== y.checkScore) tieBreaks.push(`${tie}: ${x.id} goes first on its higher check score (${x.checkScore} against ${y.checkScore})`);
    else if (position(x.id) !== position(y.id)) tieBreaks.push(`${tie} and check score (${x.checkScore}): ${x.id} goes first by the tie-break order`);
    else tieBreaks.push(`${tie}, check score and tie-break order: ${x.id} goes first by id`);
  });
  return { ranking: sorted.map((c) => c.id), tieBreaks };
}

/** Three decimals for messages; the record keeps the exact numbers. */
export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** The ballots of a vote, as its method asks for them. */
export type VoteInput =
  | { readonly method: Exclude<VoteMethod, 'pairwise'>; readonly ballots: readonly RankingBallot[] }
  | { readonly method: 'pairwise'; readonly judgements: readonly PairJudgement[] };

/** The tally of `[vote] method`: one call for the wiring, whichever the method. */
export function countVotes(input: VoteInput, candidates: readonly ScoredCandidate[], tieBreakOrder: TieBreakOrder = []): Tally {
  return input.method === 'pairwise'
    ? tallyPairwise(candidates, input.judgements, tieBreakOrder)
    : tallyRankings(input.method, candidates, input.ballots, tieBreakOrder);
}
