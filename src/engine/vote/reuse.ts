/**
 * A resumed vote does not pay twice for what it already asked. When the run was interrupted
 * during the vote, or after it (before the merge), the record holds every answer that was read;
 * on resume the vote starts again with the same seed, so every voter sees the same labels in the
 * same order, and an answer recorded about the very same prompt is taken from the record instead
 * of asking the voter again. A call that failed or could not be read is asked again.
 *
 * "The very same prompt" is checked, not assumed: the seed, the method, the voters, who is
 * eligible, each voter's view, and each material's digest and check lines must all be those of
 * the interrupted vote (a candidate re-recorded at another commit on resume changes its digest,
 * and then nothing is reused).
 *
 * Without the sandbox every agent could write the run folder, so a ballot in the record may be
 * forged (as a score may be: final-scoring.ts scores every finished candidate again then).
 * Nothing is reused without the sandbox: every voter is asked again.
 */
import type { VoteCall, VoteStart, VoteState } from '../../vote/record.js';

/** Why nothing of the interrupted vote is reused, or the answers that are. */
export type Reuse = { readonly calls: ReadonlyMap<string, VoteCall> } | { readonly none: string };

export function callKey(voter: string, purpose: VoteCall['purpose'], first?: string, second?: string): string {
  return [voter, purpose, first ?? '', second ?? ''].join('\u0000');
}

/** The parts of a vote's start that decide what every prompt says. */
function promptShape(start: VoteStart): string {
  return JSON.stringify({
    seed: start.seed,
    method: start.method,
    voters: start.voters.map((v) => [v.id, v.candidate ?? null, v.kind, v.model ?? null]),
    eligible: start.eligible,
    views: start.views,
    materials: start.materials.map((m) => [m.candidate, m.digest ?? null, m.checks, m.cut]),
  });
}

/**
 * The counted answers of `earlier` (the interrupted run's vote) that `now` may reuse.
 * `sandboxed`: the run folder was out of the agents' reach, so the record can be trusted.
 */
export function reusableCalls(earlier: VoteState | undefined, now: VoteStart, sandboxed: boolean): Reuse {
  if (!earlier || earlier.calls.length === 0) return { none: 'no answer was recorded' };
  if (!sandboxed) return { none: 'without the sandbox an agent could have written the record, so every voter is asked again' };
  if (earlier.materials.some((m) => m.digest === undefined)) return { none: 'the record predates material digests' };
  if (promptShape(earlier) !== promptShape(now)) return { none: 'the material, the voters or their views changed since' };
  const calls = new Map<string, VoteCall>();
  for (const call of earlier.calls) {
    if (call.error !== undefined) continue;
    const counted = call.ranking !== undefined || call.reviews !== undefined || call.verdict !== undefined;
    if (counted) calls.set(callKey(call.voter, call.purpose, call.first, call.second), call);
  }
  return { calls };
}
