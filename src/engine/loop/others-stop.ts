/**
 * `[select] stop_others = "on_threshold"`: the one flag every candidate's loop of a run shares. The
 * candidates stage (../run/stages/candidates.ts) sets it once a candidate has reached the threshold
 * and could win; each loop reads it at its iteration boundaries (./stop-rules.ts), so the step a
 * candidate is in (its agent call, its scoring) finishes and is committed, and no new one starts.
 * Cooperative on purpose: no process is killed, and the stop takes the same path as a budget or an
 * iteration cap.
 */
/** The candidate that reached the threshold first, and its score. */
export interface ThresholdReached {
  readonly candidate: string;
  readonly score: number;
}

export class OthersStop {
  private reached: ThresholdReached | undefined;

  /** @param from the run's record on resume (RunState.stoppingOthers): a stop said before is kept. */
  constructor(from?: ThresholdReached) {
    this.reached = from;
  }

  /** Sets the flag; the first candidate to reach the threshold is the one named. */
  reach(by: ThresholdReached): boolean {
    if (this.reached) return false;
    this.reached = by;
    return true;
  }

  get by(): ThresholdReached | undefined {
    return this.reached;
  }
}
