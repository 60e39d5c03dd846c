/**
 * `[[prompts]]` phases inside a candidate's loop: they run in order; a phase ends after its
 * `iterations`, or earlier when its own `score_threshold` is reached. The position is part
 * of the loop's state and is rebuilt from the iteration history on resume.
 */
import type { PhasePlan } from '../plan/plan.js';

export interface PhasePosition {
  /** Index of the phase of the next iteration; phases.length when every phase has run. */
  readonly index: number;
  /** Iterations already run in that phase. */
  readonly usedInPhase: number;
}

export const FIRST_PHASE: PhasePosition = { index: 0, usedInPhase: 0 };

/** The phase of the next iteration; undefined when the spec has no phases (or all have run). */
export function currentPhase(phases: readonly PhasePlan[], at: PhasePosition): PhasePlan | undefined {
  return phases[at.index];
}

/** The position after an iteration of the current phase that scored `score`. */
export function advancePhase(phases: readonly PhasePlan[], at: PhasePosition, score: number): PhasePosition {
  const phase = phases[at.index];
  if (!phase) return at;
  const used = at.usedInPhase + 1;
  const reached = phase.scoreThreshold !== undefined && score >= phase.scoreThreshold;
  return reached || used >= phase.iterations ? { index: at.index + 1, usedInPhase: 0 } : { index: at.index, usedInPhase: used };
}
