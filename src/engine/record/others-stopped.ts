/**
 * `[select] stop_others = "on_threshold"` in the record: who reached the threshold first, whom that
 * stopped, and what it saved, for the reports (report.md, report.html, report.json, `bestof show`).
 */
import { plural } from '../words.js';
import type { RunState } from './run-types.js';

export interface OthersStopped {
  /** The candidate that reached the threshold first and could win. */
  readonly candidate: string;
  readonly score: number;
  /** The candidates that ended for it (reason `other_reached_threshold`), in the run's order. */
  readonly stopped: readonly string[];
  /**
   * For each stopped candidate, `max_iterations` less the iterations it did, summed: the agent
   * calls the stop spared at most (a candidate might have reached the threshold sooner).
   */
  readonly callsNotMade: number;
}

export function othersStopped(state: RunState): OthersStopped | undefined {
  const by = state.stoppingOthers;
  if (!by) return undefined;
  const stopped = state.order.filter((id) => state.candidates[id]?.reason === 'other_reached_threshold');
  const callsNotMade = stopped.reduce((sum, id) => sum + Math.max(0, state.maxIterations - (state.candidates[id]?.iteration ?? 0)), 0);
  return { candidate: by.candidate, score: by.score, stopped, callsNotMade };
}

/** "c1 reached the threshold first (100 points): c2 and c3 were stopped after their current step; up to 4 agent calls not made". */
export function othersStoppedWords(s: OthersStopped): string {
  const whom =
    s.stopped.length === 0
      ? 'the others ended on their own after the step they were in (their last iteration, or another stop rule)'
      : `${s.stopped.length === 1 ? `${s.stopped[0]} was` : `${s.stopped.slice(0, -1).join(', ')} and ${s.stopped.at(-1)} were`} stopped after their current step`;
  return `${s.candidate} reached the threshold first (${plural(s.score, 'point')}, select.stop_others = "on_threshold"): ${whom}; up to ${plural(s.callsNotMade, 'agent call')} not made`;
}
