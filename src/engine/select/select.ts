/**
 * Selection: rank every candidate by its final frozen score, then by the spec's
 * `tie_break` list, and choose the best eligible one. When a vote decided (`[vote]`), the
 * candidates it judged are ordered by its combined ranking of checks and votes first (which
 * already breaks its ties by check score and this same tie-break order); `votes` in `tie_break`
 * compares the vote score. Pure: the same inputs always give
 * the same ranking, and the candidate index breaks any remaining tie. What git says about
 * each candidate (its ref moved, the frozen paths its final commit changes) comes in as
 * `CandidateEvidence`, gathered by the selection phase.
 */
import type { TamperedPath } from '../../checks/frozen.js';
import { reportsCost } from '../../providers/definitions.js';
import type { TieBreak } from '../../spec/schema.js';
import type { CandidateState, RankEntry } from '../record/run-types.js';
import { costIsKnown } from '../record/cost-known.js';
import { listFew } from '../words.js';
import { ALLOW_AUTORUN_KEY, describeAutorun } from './autorun-files.js';

export interface SelectionPolicy {
  readonly minScore: number;
  readonly tieBreak: readonly TieBreak[];
  /**
   * `select.allow_tampered`: a candidate that changed a frozen path may still win (its
   * frozen-path changes are reverted in a commit of bestof's before the merge).
   * @default false
   */
  readonly allowTampered?: boolean;
  /**
   * `select.allow_autorun`: a candidate whose commit adds or changes files that run code in the
   * user's checkout (./autorun-files.ts) may win; it is named as such either way.
   * @default true
   */
  readonly allowAutorun?: boolean;
}

/** What git says about a candidate at selection time, beside the run's record. */
export interface CandidateEvidence {
  /** Protected paths that its final, scored commit changes compared with base. */
  readonly tampered?: readonly TamperedPath[];
  /** Why its record cannot be trusted: its ref or branch moved since scoring, or its commit is gone. */
  readonly untrusted?: string;
  /** Files its final commit adds or changes that run code in the user's checkout (./autorun-files.ts). */
  readonly autorun?: readonly string[];
}

const MAX_LISTED = 3;

/**
 * The frozen paths a candidate changed: those the run recorded over its iterations and those
 * its final commit changes (from git). A change outside `[checks] editable` is not in here: it
 * may win, and is reverted before the merge.
 */
export function frozenChanges(c: CandidateState, evidence: CandidateEvidence = {}): string[] {
  const frozen = [...c.tampered, ...(evidence.tampered ?? [])].filter((p) => (p.rule ?? 'frozen') === 'frozen');
  return [...new Set(frozen.map((p) => p.path))].sort();
}

/**
 * Why a candidate cannot win, or undefined when it can. A candidate must have committed
 * work whose ref and branch are still where it was scored, change no frozen path (unless
 * `allow_tampered`), reach `min_score`, and (when the spec has checks) pass at least one of
 * them: a winner that fails every check would be chosen by the tie-break alone. One that an
 * internal error (of bestof or of git) stopped was not finally scored, and cannot win either.
 */
export function ineligibility(c: CandidateState, policy: SelectionPolicy, evidence: CandidateEvidence = {}): string | undefined {
  if (c.status === 'failed' && c.reason === 'setup_failed') return 'setup failed';
  if (c.status === 'failed' && c.reason === 'infrastructure_failed') return 'lost during setup (git or bestof failed, not the candidate)';
  if (c.status === 'cancelled') return 'cancelled';
  // Its last iteration's score is not a final score (final scoring skips it: bestof's own record of
  // it may be incomplete, its diff is not counted), so it is not set against the others'.
  if (c.status === 'failed' && c.reason === 'internal_error')
    return 'stopped by an internal error (of bestof or of git) before its final scoring (its work is kept)';
  if (c.status === 'failed' && c.reason === 'worktree_replaced')
    return 'had its worktree folder replaced (by its agent, or by the code its checks ran, without the sandbox), so bestof stopped working in it';
  if (evidence.untrusted !== undefined) return evidence.untrusted;
  if (c.commit === undefined || c.diff.files === 0) return 'made no changes';
  if (c.score === undefined) return 'not scored';
  const frozen = frozenChanges(c, evidence);
  if (frozen.length > 0 && !policy.allowTampered) {
    return `changed frozen paths: ${listFew(frozen, MAX_LISTED)} (select.allow_tampered = true would let it win with them reverted)`;
  }
  const autorun = evidence.autorun ?? [];
  if (autorun.length > 0 && policy.allowAutorun === false) return `${describeAutorun(autorun)} (${ALLOW_AUTORUN_KEY} = false)`;
  if (c.score < policy.minScore) return `score ${c.score} is below min_score ${policy.minScore}`;
  if (c.maxScore > 0 && c.score === 0) return 'passed no check';
  return undefined;
}

const diffSize = (c: CandidateState): number => c.diff.insertions + c.diff.deletions;

/**
 * Cheaper first; an unknown cost after every known one. An unknown cost is not $0 (a model
 * without a price, a command agent that reports none), so it never wins a cost comparison; two
 * unknown costs separate no one.
 */
function compareCost(a: CandidateState, b: CandidateState): number {
  const [aKnown, bKnown] = [costIsKnown(a), costIsKnown(b)];
  if (aKnown && bKnown) return a.costUsd - b.costUsd;
  if (aKnown !== bKnown) return aKnown ? -1 : 1;
  return 0;
}

/** Which price is missing, in words: what the user adds to configs/prices.toml (or the spec) to know the cost. */
export function missingPrice(c: Pick<CandidateState, 'provider' | 'model' | 'cli'>): string {
  if (!reportsCost(c.provider)) return `a ${c.provider} agent reports no cost`;
  const model = c.cli?.model ?? c.model;
  return model
    ? `no price for its model "${model}" (${c.provider}) in configs/prices.toml; add [providers.${c.provider}.prices."${model}"] to the spec`
    : `its ${c.provider} CLI reported tokens of a model with no price in configs/prices.toml (its activity names the model)`;
}

/** Lower sorts first. */
function compareBy(key: TieBreak, a: CandidateState, b: CandidateState): number {
  switch (key) {
    case 'score':
      return (b.score ?? -1) - (a.score ?? -1);
    case 'cost':
      return compareCost(a, b);
    case 'diff_size':
      return diffSize(a) - diffSize(b);
    case 'duration':
      return a.durationMs - b.durationMs;
    case 'iterations':
      return a.iteration - b.iteration;
    case 'votes':
      // The vote's normalised score; without a vote (or for a candidate it did not judge) it separates no one.
      return a.vote !== undefined && b.vote !== undefined ? b.vote.score - a.vote.score : 0;
    default: {
      const unreachable: never = key;
      return unreachable;
    }
  }
}

export function rankCandidates(
  candidates: readonly CandidateState[],
  policy: SelectionPolicy,
  evidence: ReadonlyMap<string, CandidateEvidence> = new Map(),
): RankEntry[] {
  const keys: TieBreak[] = ['score', ...policy.tieBreak.filter((k) => k !== 'score')];
  const withEligibility = candidates.map((c) => ({ c, reason: ineligibility(c, policy, evidence.get(c.id)) }));
  /** The order of two candidates, and the tie-break that decided it (undefined: eligibility, the vote or the index). */
  const decide = (x: CandidateState, y: CandidateState, xReason: string | undefined, yReason: string | undefined): { order: number; by?: TieBreak } => {
    if ((xReason === undefined) !== (yReason === undefined)) return { order: xReason === undefined ? -1 : 1 };
    // A vote decided (`[vote]`): its combined ranking of checks and votes orders the candidates it judged.
    if (x.vote !== undefined && y.vote !== undefined && x.vote.rank !== y.vote.rank) return { order: x.vote.rank - y.vote.rank };
    for (const key of keys) {
      const order = compareBy(key, x, y);
      if (order !== 0) return { order, by: key };
    }
    return { order: x.index - y.index };
  };
  withEligibility.sort((x, y) => decide(x.c, y.c, x.reason, y.reason).order);
  // An eligible candidate ranked after an equal one for its unknown cost says so (and which price is missing).
  const ranked = withEligibility.map(({ c, reason }, i) => {
    const above = withEligibility[i - 1];
    const eligible = reason === undefined;
    if (!eligible || above === undefined || costIsKnown(c) || !costIsKnown(above.c)) return { c, eligible, reason };
    if (decide(above.c, c, above.reason, reason).by !== 'cost') return { c, eligible, reason };
    return {
      c,
      eligible,
      reason: `ranked after ${above.c.id} on cost: its cost is unknown (${missingPrice(c)}), and an unknown cost ranks after every known one`,
    };
  });
  return ranked.map(({ c, eligible, reason }, i) => ({
    candidate: c.id,
    rank: i + 1,
    score: c.score ?? 0,
    maxScore: c.maxScore,
    costUsd: c.costUsd,
    ...(costIsKnown(c) ? {} : { costKnown: false as const }),
    diffSize: diffSize(c),
    durationMs: c.durationMs,
    iterations: c.iteration,
    eligible,
    ...(c.vote !== undefined ? { vote: c.vote.score, combined: c.vote.combined } : {}),
    ...(reason === undefined ? {} : { reason }),
    ...(evidence.get(c.id)?.autorun?.length ? { autorun: evidence.get(c.id)?.autorun } : {}),
  }));
}
