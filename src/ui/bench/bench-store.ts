/**
 * The bench view's state behind React's useSyncExternalStore: the bench's events and the
 * view's own actions (cancel) go through one reducer. A bench emits a few events a minute, so
 * every one is drawn at once; there is no frame throttle as the run's dashboard needs.
 */
import { benchViewReducer, initialBenchViewState, type BenchViewAction, type BenchViewState } from './bench-state.js';

export interface BenchStore {
  getSnapshot(): BenchViewState;
  subscribe(listener: () => void): () => void;
  dispatch(action: BenchViewAction): void;
}

export function createBenchStore(initial: BenchViewState = initialBenchViewState()): BenchStore {
  let state = initial;
  const listeners = new Set<() => void>();
  return {
    getSnapshot: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    dispatch(action) {
      const next = benchViewReducer(state, action);
      if (next === state) return;
      state = next;
      for (const listener of listeners) listener();
    },
  };
}
