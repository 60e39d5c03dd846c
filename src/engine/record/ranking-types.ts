/**
 * The ranking's record: each candidate's place and why, its place in the vote (selection.finished), what each selection
 * policy would have picked, and a winner the user chose after the run. Re-exported by
 * ./run-types.ts, where the rest of the record's types are.
 */
import type { MergeMode } from '../../spec/schema.js';

/** A candidate's place in the vote's combined ranking (vote.finished), when a vote decided. */
export interface CandidateVote {
  /** 1-based place in the combined ranking of checks and votes. */
  readonly rank: number;
  /** The tally's normalised vote score, in [0, 1]. */
  readonly score: number;
  /** `(1 - weight) * checks + weight * votes`, each divided by the best candidate's. */
  readonly combined: number;
}

export interface RankEntry {
  readonly candidate: string;
  readonly rank: number;
  readonly score: number;
  readonly maxScore: number;
  readonly costUsd: number;
  /** false when the candidate's cost is unknown (./cost-known.ts): `costUsd` is then what the calls that reported one cost. */
  readonly costKnown?: false;
  readonly diffSize: number;
  readonly durationMs: number;
  readonly iterations: number;
  readonly eligible: boolean;
  /** The vote's normalised score and the combined score, when a vote decided (`[vote]`). */
  readonly vote?: number;
  readonly combined?: number;
  /** A finalist of the distinguish step: the kept generated tests it passed, of how many. */
  readonly distinguish?: { readonly passed: number; readonly of: number };
  /**
   * Why an ineligible candidate cannot win; for an eligible one, why it ranks after the one above
   * it when that was decided by something the user would not guess (an unknown cost).
   */
  readonly reason?: string;
  /** Files its final commit adds or changes that run code in the user's checkout after the merge (../select/autorun-files.ts). */
  readonly autorun?: readonly string[];
}

/**
 * The candidate each selection policy picks from the same candidates (null: none can win):
 * `tie_break` by score and the spec's tie-breaks alone, `vote` with the vote's ranking (when a vote
 * decided), `distinguish` with the distinguishing tests' (when they decided).
 */
export interface SelectionPicks {
  readonly tie_break: string | null;
  readonly vote?: string | null;
  readonly distinguish?: string | null;
}

/** A winner the user chose in the compare view after the run (winner.chosen), the latest one. */
export interface WinnerChoice {
  readonly candidate: string;
  /** The winner until then; absent when the run had none. */
  readonly previous?: string;
  readonly mode: MergeMode;
  /** The merge was done; when not, the run's winner and merge are the ones before the choice. */
  readonly ok: boolean;
  readonly message: string;
  readonly by: 'user';
  readonly at: string;
}
