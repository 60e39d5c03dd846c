import { useEffect } from 'react';
import type { DiffLoader } from '../commands.js';
import type { UiState } from '../state/ui-state.js';
import type { UiStore } from '../state/ui-store.js';

/** Loads the selected candidate's diff once the compare view shows it (once per candidate). */
export function useDiffLoader(store: UiStore, state: UiState, loadDiff: DiffLoader | undefined): void {
  const id = state.view === 'compare' ? state.selected : undefined;
  const candidate = id === undefined ? undefined : state.run.candidates[id];
  const commit = candidate?.commit;
  const known = id !== undefined && state.diffs[id] !== undefined;
  const { repo, baseCommit } = state.run;
  useEffect(() => {
    if (id === undefined || commit === undefined || known) return;
    if (!loadDiff) {
      store.dispatch({ type: 'diff-failed', candidate: id, message: 'diffs are not available here' });
      return;
    }
    store.dispatch({ type: 'diff-loading', candidate: id });
    loadDiff({ repo, from: baseCommit, to: commit }).then(
      (text) => store.dispatch({ type: 'diff-loaded', candidate: id, text }),
      (error: unknown) => store.dispatch({ type: 'diff-failed', candidate: id, message: error instanceof Error ? error.message : String(error) }),
    );
  }, [store, loadDiff, id, commit, known, repo, baseCommit]);
}
