/**
 * The state after the distinguish step's events (`distinguish.*`, ../../distinguish/types.ts): a
 * reducer of its own beside run-state.ts's families. A new `distinguish.started` (a resumed step)
 * starts the record again; the tester's cost counts once (a reused call was paid for before).
 */
import type { DistinguishEvent } from '../../distinguish/types.js';
import type { RunState } from './run-types.js';

export type DistinguishEventType = DistinguishEvent['type'];

export function reduceDistinguishEvent(state: RunState, event: DistinguishEvent): RunState {
  switch (event.type) {
    case 'distinguish.started': {
      const { type: _type, ...start } = event;
      return { ...state, distinguish: { start: withoutStamp(start), runs: [] } };
    }
    case 'distinguish.tester': {
      const { type: _type, ...call } = event;
      const cost = call.reused ? 0 : call.costUsd;
      const paid = { ...state, costUsd: state.costUsd + cost, distinguishCostUsd: (state.distinguishCostUsd ?? 0) + cost };
      return { ...paid, distinguish: { runs: [], ...state.distinguish, call: withoutStamp(call) } };
    }
    case 'distinguish.cross': {
      const current = state.distinguish ?? { runs: [] };
      return { ...state, distinguish: { ...current, cross: event.tests } };
    }
    case 'distinguish.run': {
      const { type: _type, ...run } = event;
      const current = state.distinguish ?? { runs: [] };
      return { ...state, distinguish: { ...current, runs: [...current.runs, withoutStamp(run)] } };
    }
    case 'distinguish.finished': {
      const current = state.distinguish ?? { runs: [] };
      return { ...state, distinguish: { ...current, result: event.result, skipped: undefined } };
    }
    case 'distinguish.skipped': {
      const current = state.distinguish ?? { runs: [] };
      return { ...state, distinguish: { ...current, skipped: event.message, result: undefined } };
    }
    default: {
      const unreachable: never = event;
      return unreachable;
    }
  }
}

/** The event's time stamp is the event's, not the record's. */
function withoutStamp<T extends object>(value: T): Omit<T, 't'> {
  const { t: _t, ...rest } = value as T & { t?: string };
  return rest;
}
