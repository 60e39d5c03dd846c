/**
 * The final ranking: check scores and vote scores, mixed by `[vote] weight`.
 *
 * Checks say whether the work passes; votes say which passing work is better. Both are put on
 * the same scale before mixing, each divided by the best candidate's (so the best check score
 * and the best vote score are both 1, whatever the number of checks or voters), and
 * combined = (1 - weight) * checks + weight * votes. weight 0 is checks only, 1 is votes only;
 * equal combined scores end by the check score, then the tie-break order (tally.ts).
 *
 * A vote with voters that failed, timed out or had their ballot discarded is **degraded**: it
 * still counts (the ballots that came are real), but the record says who is missing, as users
 * of existing LLM councils ask for, rather than pass a vote of two as a vote of five.
 */
import { rankWithTies } from './tally.js';
import type { ScoredCandidate, TieBreakOrder } from './types.js';

/** A voter whose ballot is missing, and why ("timed out after 10m", "ballot unparsable twice: …"). */
export interface MissingVoter {
  readonly voter: string;
  readonly reason: string;
}

export interface CombineInput {
  /** The eligible candidates with their final check scores. */
  readonly candidates: readonly ScoredCandidate[];
  /** Each candidate's vote score (a tally's `normalised`); a candidate absent here has 0. */
  readonly votes: ReadonlyMap<string, number>;
  /** `[vote] weight`, 0..1. */
  readonly weight: number;
  readonly tieBreakOrder?: TieBreakOrder;
  /** @default [] */
  readonly missingVoters?: readonly MissingVoter[];
}

export interface CombinedEntry {
  readonly candidate: string;
  readonly rank: number;
  readonly checkScore: number;
  /** checkScore / the best check score (0 when every check score is 0). */
  readonly checkNormalised: number;
  readonly vote: number;
  /** vote / the best vote (0 when every vote is 0). */
  readonly voteNormalised: number;
  readonly combined: number;
}

export interface CombinedRanking {
  readonly weight: number;
  /** Best first. */
  readonly entries: readonly CombinedEntry[];
  readonly winner: string | undefined;
  readonly tieBreaks: readonly string[];
  readonly degraded: boolean;
  readonly missingVoters: readonly MissingVoter[];
}

function byMax(values: readonly number[]): (v: number) => number {
  const max = Math.max(0, ...values);
  return (v) => (max > 0 ? v / max : 0);
}

export function combineScores(input: CombineInput): CombinedRanking {
  if (!(input.weight >= 0 && input.weight <= 1)) throw new Error(`bug: vote weight ${input.weight} is outside 0..1 (the spec checks it)`);
  const { candidates, weight } = input;
  const voteOf = (id: string): number => input.votes.get(id) ?? 0;
  const checkNorm = byMax(candidates.map((c) => c.checkScore));
  const voteNorm = byMax(candidates.map((c) => voteOf(c.id)));
  const scored = new Map(
    candidates.map((c) => {
      const checkNormalised = checkNorm(c.checkScore);
      const voteNormalised = voteNorm(voteOf(c.id));
      return [
        c.id,
        { checkScore: c.checkScore, checkNormalised, vote: voteOf(c.id), voteNormalised, combined: (1 - weight) * checkNormalised + weight * voteNormalised },
      ];
    }),
  );
  const { ranking, tieBreaks } = rankWithTies(candidates, (id) => scored.get(id)?.combined ?? 0, input.tieBreakOrder ?? [], 'combined score');
  const entries = ranking.map((candidate, i) => ({ candidate, rank: i + 1, ...(scored.get(candidate) as Omit<CombinedEntry, 'candidate' | 'rank'>) }));
  const missingVoters = input.missingVoters ?? [];
  return { weight, entries, winner: ranking[0], tieBreaks, degraded: missingVoters.length > 0, missingVoters };
}
