/**
 * What a vote leaves in the record (events.ts: `vote.*`; run-state.ts folds them into
 * `RunState.vote`). Every value is the core's own (src/vote/), de-anonymised: labels exist only
 * in the views, which say which label stood for which candidate for each voter, so that a
 * reader can check every ballot against what the voter was shown.
 */
import type { CloseCall, Concordance, FlipRate, PairwiseAgreement } from './agreement.js';
import type { NormaliseRule } from './anonymise.js';
import type { CombinedRanking } from './combine.js';
import type { VoterView } from './order.js';
import type { Tally } from './tally.js';
import type { PairOutcome, VoteMethod } from './types.js';

/** One voter: a candidate's own agent (it never ranks `candidate`), or a jury member (`j1`…). */
export interface VoterInfo {
  readonly id: string;
  readonly candidate?: string;
  readonly kind: string;
  readonly model?: string;
}

/** One candidate's material as the voters saw it. */
export interface MaterialInfo {
  readonly candidate: string;
  /** Characters after normalising (the length correlation's x). */
  readonly length: number;
  /** The material was cut at `[vote] max_material`. */
  readonly cut: boolean;
  /** What the normaliser removed or replaced, by rule. */
  readonly changes: Readonly<Partial<Record<NormaliseRule, number>>>;
  /** The formatter failed: the material went unformatted, and why. */
  readonly formatterError?: string;
  /** The one-line check results shown beside the material. */
  readonly checks: string;
  /** sha256 of the material as the voters saw it: a resumed vote reuses answers only about the same text. */
  readonly digest?: string;
}

export type VoteCallPurpose = 'review' | 'ranking' | 'pair';

/** One question put to one voter (asked once more when the answer could not be read). */
export interface VoteCall {
  readonly voter: string;
  readonly purpose: VoteCallPurpose;
  /** Pairwise: the candidate shown first and second. */
  readonly first?: string;
  readonly second?: string;
  /** Every answer, raw (redacted like every event), first asking first. */
  readonly answers: readonly string[];
  /** Why the call did not count (failed, timed out, unparsable twice). */
  readonly error?: string;
  /** A ranking: candidate ids, best first. */
  readonly ranking?: readonly string[];
  /** Reviews by candidate id. */
  readonly reviews?: Readonly<Record<string, string>>;
  /** A pair's verdict. */
  readonly verdict?: PairOutcome;
  readonly costUsd: number;
  /**
   * Asked before an interruption and taken from the record on resume, not asked again (../engine/vote/reuse.ts).
   * Its `costUsd` is what it cost then, counted once: the run's total does not add it again.
   */
  readonly reused?: true;
}

export interface VoteStats {
  readonly kendallW?: Concordance;
  readonly pairwiseAgreement?: PairwiseAgreement;
  readonly orderFlipRate?: FlipRate;
  readonly lengthCorrelation?: number;
}

export interface VoteResult {
  readonly tally: Tally;
  readonly combined: CombinedRanking;
  /** The ranking of the same candidates by checks alone (weight 0): shown beside a close call. */
  readonly checksOnly: readonly string[];
  readonly stats: VoteStats;
  readonly closeCall?: CloseCall;
}

/** What vote.started records, before any voter is called. */
export interface VoteStart {
  readonly seed: string;
  readonly method: VoteMethod;
  readonly weight: number;
  readonly voters: readonly VoterInfo[];
  /** The candidates that could win, the ones voted on. */
  readonly eligible: readonly string[];
  readonly views: readonly VoterView[];
  readonly materials: readonly MaterialInfo[];
}

export interface VoteState extends VoteStart {
  readonly calls: readonly VoteCall[];
  /** Set when the vote did not decide: why (the ranking is by checks alone then). */
  readonly skipped?: string;
  readonly result?: VoteResult;
}
