/**
 * From the counted ballots to the vote's result: the tally of `[vote] method`, the combination
 * with the check scores by `weight`, the agreement statistics and the close-call bootstrap. Pure:
 * the core (src/vote/) does the arithmetic; this only feeds it the way docs/design/vote.md says.
 * The close call resamples the ballots and scores the *combined* ranking, so that "too close to
 * call" speaks about the decision actually made.
 */
import {
  judgementsByVoter,
  kendallW,
  lengthCorrelation,
  orderFlipRate,
  pairwiseAgreement,
  preferencesFromJudgements,
  preferencesFromRankings,
  tooCloseToCall,
} from './agreement.js';
import { combineScores, type MissingVoter } from './combine.js';
import { countVotes } from './tally.js';
import type { PairJudgement, RankingBallot, ScoredCandidate, TieBreakOrder, VoteMethod } from './types.js';
import type { VoteResult, VoteStats } from './record.js';

export interface DecideInput {
  readonly seed: string;
  readonly method: VoteMethod;
  readonly weight: number;
  readonly candidates: readonly ScoredCandidate[];
  readonly tieBreakOrder: TieBreakOrder;
  readonly ballots: readonly RankingBallot[];
  readonly judgements: readonly PairJudgement[];
  readonly missingVoters: readonly MissingVoter[];
  /** Material length by candidate id (normalised characters). */
  readonly lengths: ReadonlyMap<string, number>;
}

export function decideVote(input: DecideInput): VoteResult {
  const { method, candidates, tieBreakOrder, weight, missingVoters } = input;
  const pairwise = method === 'pairwise';
  const tallyOf = (ballots: readonly RankingBallot[], judgements: readonly PairJudgement[]) =>
    countVotes(method === 'pairwise' ? { method, judgements } : { method, ballots }, candidates, tieBreakOrder);
  const combinedOf = (ballots: readonly RankingBallot[], judgements: readonly PairJudgement[]) => {
    const tally = tallyOf(ballots, judgements);
    return {
      tally,
      combined: combineScores({ candidates, votes: new Map(tally.scores.map((s) => [s.candidate, s.normalised])), weight, tieBreakOrder, missingVoters }),
    };
  };
  const { tally, combined } = combinedOf(input.ballots, input.judgements);
  const checksOnly = combineScores({ candidates, votes: new Map(), weight: 0, tieBreakOrder }).entries.map((e) => e.candidate);
  const votes = new Map(tally.scores.map((s) => [s.candidate, s.normalised]));
  const kendall = pairwise ? undefined : kendallW(input.ballots);
  const agreement = pairwiseAgreement(pairwise ? preferencesFromJudgements(input.judgements) : preferencesFromRankings(input.ballots));
  const flips = pairwise ? orderFlipRate(input.judgements) : undefined;
  const length = lengthCorrelation(candidates.map((c) => ({ length: input.lengths.get(c.id) ?? 0, vote: votes.get(c.id) ?? 0 })));
  const stats: VoteStats = {
    ...(kendall ? { kendallW: kendall } : {}),
    ...(agreement ? { pairwiseAgreement: agreement } : {}),
    ...(flips ? { orderFlipRate: flips } : {}),
    ...(length !== undefined ? { lengthCorrelation: length } : {}),
  };
  const [winner, runnerUp] = combined.entries;
  const scoresOf = (c: ReturnType<typeof combinedOf>['combined']): ReadonlyMap<string, number> => new Map(c.entries.map((e) => [e.candidate, e.combined]));
  const closeCall =
    winner && runnerUp && weight > 0
      ? pairwise
        ? tooCloseToCall({
            seed: input.seed,
            units: judgementsByVoter(input.judgements),
            score: (units) => scoresOf(combinedOf([], units.flat()).combined),
            winner: winner.candidate,
            runnerUp: runnerUp.candidate,
          })
        : tooCloseToCall({
            seed: input.seed,
            units: input.ballots,
            score: (units) => scoresOf(combinedOf(units, []).combined),
            winner: winner.candidate,
            runnerUp: runnerUp.candidate,
          })
      : undefined;
  return { tally, combined, checksOnly, stats, ...(closeCall ? { closeCall } : {}) };
}
