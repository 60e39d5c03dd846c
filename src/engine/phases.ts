/**
 * `[[prompts]]` phases inside a candidate's loop: they run in order; a phase ends after its
 * `iterations`, or earlier when its own `score_threshold` is reached. Rebuilt from the
 * iteration history on resume.
 */
import type { PhasePlan } from './plan.js';
import type { IterationState } from './run-state.js';

export class PhaseCursor {
  private index = 0;
  private usedInPhase = 0;

  constructor(
    private readonly phases: readonly PhasePlan[],
    history: readonly IterationState[] = [],
  ) {
    for (const past of history) this.afterIteration(past.score ?? 0);
  }

  /** The phase of the next iteration; undefined when the spec has no phases. */
  get current(): PhasePlan | undefined {
    return this.phases[this.index];
  }

  /** Every phase has run its course. */
  get exhausted(): boolean {
    return this.phases.length > 0 && this.index >= this.phases.length;
  }

  afterIteration(score: number): void {
    const phase = this.phases[this.index];
    if (!phase) return;
    this.usedInPhase += 1;
    const reached = phase.scoreThreshold !== undefined && score >= phase.scoreThreshold;
    if (reached || this.usedInPhase >= phase.iterations) {
      this.index += 1;
      this.usedInPhase = 0;
    }
  }
}
