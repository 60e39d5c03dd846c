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
import type { TamperedPath } from '../checks/frozen.js';
import type { TieBreak } from '../spec/schema.js';
import type { CandidateState } from './run-state.js';

export interface RankEntry {
  readonly candidate: string;
  readonly rank: number;
  readonly score: number;
  readonly maxScore: number;
  readonly costUsd: number;
  readonly diffSize: number;
  readonly durationMs: number;
  readonly iterations: number;
  readonly eligible: boolean;
  /** The vote's normalised score and the combined score, when a vote decided (`[vote]`). */
  readonly vote?: number;
  readonly combined?: number;
  /** Why an ineligible candidate cannot win. */
  readonly reason?: string;
}

export interface SelectionPolicy {
  readonly minScore: number;
  readonly tieBreak: readonly TieBreak[];
  /**
   * `select.allow_tampered`: a candidate that changed a frozen path may still win (its
   * frozen-path changes are reverted in a commit of bestof's before the merge).
   * @default false
   */
  readonly allowTampered?: boolean;
}

/** What git says about a candidate at selection time, beside the run's record. */
export interface CandidateEvidence {
  /** Protected paths that its final, scored commit changes compared with base. */
  readonly tampered?: readonly TamperedPath[];
  /** Why its record cannot be trusted: its ref or branch moved since scoring, or its commit is gone. */
  readonly untrusted?: string;
}

const MAX_LISTED = 3;

function listPaths(paths: readonly string[]): string {
  const shown = paths.slice(0, MAX_LISTED).join(', ');
  return paths.length > MAX_LISTED ? `${shown} and ${paths.length - MAX_LISTED} more` : shown;
}

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
 * them: a winner that fails every check would be chosen by the tie-break alone.
 */
export function ineligibility(c: CandidateState, policy: SelectionPolicy, evidence: CandidateEvidence = {}): string | undefined {
  if (c.status === 'failed' && c.reason === 'setup_failed') return 'setup failed';
  if (c.status === 'failed' && c.reason === 'infrastructure_failed') return 'lost during setup (git or bestof failed, not the candidate)';
  if (c.status === 'cancelled') return 'cancelled';
  if (evidence.untrusted !== undefined) return evidence.untrusted;
  if (c.commit === undefined || c.diff.files === 0) return 'made no changes';
  if (c.score === undefined) return 'not scored';
  const frozen = frozenChanges(c, evidence);
  if (frozen.length > 0 && !policy.allowTampered) {
    return `changed frozen paths: ${listPaths(frozen)} (select.allow_tampered = true would let it win with them reverted)`;
  }
  if (c.score < policy.minScore) return `score ${c.score} is below min_score ${policy.minScore}`;
  if (c.maxScore > 0 && c.score === 0) return 'passed no check';
  return undefined;
}

const diffSize = (c: CandidateState): number => c.diff.insertions + c.diff.deletions;

/** Lower sorts first. */
function compareBy(key: TieBreak, a: CandidateState, b: CandidateState): number {
  switch (key) {
    case 'score':
      return (b.score ?? -1) - (a.score ?? -1);
    case 'cost':
      return a.costUsd - b.costUsd;
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
  withEligibility.sort((x, y) => {
    if ((x.reason === undefined) !== (y.reason === undefined)) return x.reason === undefined ? -1 : 1;
    // A vote decided (`[vote]`): its combined ranking of checks and votes orders the candidates it judged.
    if (x.c.vote !== undefined && y.c.vote !== undefined && x.c.vote.rank !== y.c.vote.rank) return x.c.vote.rank - y.c.vote.rank;
    for (const key of keys) {
      const order = compareBy(key, x.c, y.c);
      if (order !== 0) return order;
    }
    return x.c.index - y.c.index;
  });
  return withEligibility.map(({ c, reason }, i) => ({
    candidate: c.id,
    rank: i + 1,
    score: c.score ?? 0,
    maxScore: c.maxScore,
    costUsd: c.costUsd,
    diffSize: diffSize(c),
    durationMs: c.durationMs,
    iterations: c.iteration,
    eligible: reason === undefined,
    ...(c.vote !== undefined ? { vote: c.vote.score, combined: c.vote.combined } : {}),
    ...(reason === undefined ? {} : { reason }),
  }));
}
