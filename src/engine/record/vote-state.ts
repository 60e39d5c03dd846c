/**
 * The state after the cross-review and vote (`vote.*` events): a reducer of its own beside
 * run-state.ts's families, as ./distinguish-state.ts is. A vote that starts again or is skipped
 * forgets every candidate's place in the earlier one.
 */
import type { VoteState } from '../../vote/record.js';
import type { CandidateVote, EventOf, RunState } from './run-types.js';

/** The state after the cross-review and vote. */
export function reduceVoteEvent(state: RunState, event: EventOf<'vote.started' | 'vote.call' | 'vote.finished' | 'vote.skipped'>): RunState {
  switch (event.type) {
    case 'vote.started':
      return {
        ...withoutVotes(state),
        vote: {
          seed: event.seed,
          method: event.method,
          weight: event.weight,
          voters: event.voters,
          eligible: event.eligible,
          views: event.views,
          materials: event.materials,
          calls: [],
        },
      };
    case 'vote.call': {
      // A reused answer was paid for when it was first asked (and counted then).
      const cost = event.reused ? 0 : event.costUsd;
      const paid = { ...state, costUsd: state.costUsd + cost, voteCostUsd: state.voteCostUsd + cost };
      if (!state.vote) return paid;
      const { type: _type, t: _t, ...call } = event;
      return { ...paid, vote: { ...state.vote, calls: [...state.vote.calls, call] } };
    }
    case 'vote.finished': {
      if (!state.vote) return state;
      let next: RunState = { ...state, vote: { ...state.vote, result: event.result, skipped: undefined } };
      for (const e of event.result.combined.entries) next = withCandidateVote(next, e.candidate, { rank: e.rank, score: e.vote, combined: e.combined });
      return next;
    }
    case 'vote.skipped': {
      const base: VoteState = state.vote ?? {
        seed: event.seed ?? '',
        method: 'borda',
        weight: 0,
        voters: [],
        eligible: [],
        views: [],
        materials: [],
        calls: [],
      };
      return { ...withoutVotes(state), vote: { ...base, skipped: event.message, result: undefined } };
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** Every candidate's place in an earlier vote forgotten: a vote that starts again or is skipped decides nothing yet. */
function withoutVotes(state: RunState): RunState {
  const candidates = Object.fromEntries(Object.entries(state.candidates).map(([id, c]) => [id, c.vote === undefined ? c : { ...c, vote: undefined }]));
  return { ...state, candidates };
}

function withCandidateVote(state: RunState, id: string, vote: CandidateVote): RunState {
  const current = state.candidates[id];
  return current ? { ...state, candidates: { ...state.candidates, [id]: { ...current, vote } } } : state;
}
