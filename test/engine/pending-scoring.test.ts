/**
 * Which recorded iteration `bestof resume` scores instead of calling its agent again
 * (src/engine/loop/pending-scoring.ts): the last one, when its agent's call ended in an outcome
 * that goes on to the checks and no score was recorded.
 */
import { describe, expect, it } from 'vitest';
import { pendingIteration } from '../../src/engine/loop/pending-scoring.js';
import type { IterationState } from '../../src/engine/record/run-state.js';

const it_ = (iteration: number, over: Partial<IterationState>): IterationState => ({ iteration, checks: [], tampered: [], ...over }) as IterationState;

describe('pendingIteration', () => {
  it('is the last iteration, committed and finished by its agent, not scored; with the commit the one before was scored on', () => {
    const history = [it_(1, { outcome: 'success', commit: 'a', score: 40 }), it_(2, { outcome: 'success', commit: 'b', providerMessage: 'done' })];
    expect(pendingIteration(history)).toEqual({ iteration: 2, outcome: 'success', message: 'done', previousCommit: 'a' });
    // A crash or a timeout still goes on to the checks in a run: so on resume.
    expect(pendingIteration([it_(1, { outcome: 'crashed' })])).toMatchObject({ iteration: 1, previousCommit: undefined });
  });

  it('is none when the last iteration was scored, its agent did not finish, or its outcome stops the candidate', () => {
    expect(pendingIteration([])).toBeUndefined();
    expect(pendingIteration([it_(1, { outcome: 'success', score: 100 })])).toBeUndefined();
    expect(pendingIteration([it_(1, { outcome: 'success', score: 10 }), it_(2, {})])).toBeUndefined();
    expect(pendingIteration([it_(1, { outcome: 'cancelled' })])).toBeUndefined();
    expect(pendingIteration([it_(1, { outcome: 'auth_error' })])).toBeUndefined();
    expect(pendingIteration([it_(1, { outcome: 'rate_limited' })])).toBeUndefined();
  });
});
