/**
 * The plain data the vote's pure core reads and writes. Everything here is JSON-ready so the
 * wiring can put it into report.json as it is: the record of a vote is these values, not a
 * summary of them. Candidates and voters are named by their bestof ids (`c1`, `j1`); labels
 * (`A`, `B`) exist only inside one voter's prompts and are turned back into ids as soon as a
 * ballot is parsed (`deanonymiseRanking` in order.ts).
 */

/** How ballots are counted. `pairwise` asks for pairs in both orders instead of a ranking. */
export const VOTE_METHODS = ['borda', 'approval', 'plurality', 'pairwise'] as const;
export type VoteMethod = (typeof VOTE_METHODS)[number];

/** One who votes. A candidate's own agent names its candidate; a jury member names none. */
export interface VoterRef {
  readonly id: string;
  /** The candidate this voter wrote: it never sees it, never ranks it (recusal). */
  readonly candidate?: string;
}

/** A parsed, de-anonymised ranking: candidate ids, best first. */
export interface RankingBallot {
  readonly voter: string;
  readonly ranking: readonly string[];
}

/** What one pairwise answer said: the winning candidate's id, or a tie. */
export type PairOutcome = { readonly winner: string } | { readonly tie: true };

/**
 * One pair judged by one voter in both orders (`a` shown first, then `b` shown first),
 * de-anonymised. An order whose answer was missing or unparsable is `undefined`.
 */
export interface PairJudgement {
  readonly voter: string;
  readonly a: string;
  readonly b: string;
  readonly aFirst: PairOutcome | undefined;
  readonly bFirst: PairOutcome | undefined;
}

/** A candidate as the tally and the combination see it: its final frozen check score. */
export interface ScoredCandidate {
  readonly id: string;
  readonly checkScore: number;
}

/**
 * How ties end once votes and check scores are equal: candidate ids in the order selection's
 * `tie_break` gives them (cost, diff size…). A candidate missing from it sorts after those in
 * it, then by id, so a ranking is always total.
 */
export type TieBreakOrder = readonly string[];
