import { useSyncExternalStore } from 'react';
import type { UiState } from '../state/ui-state.js';
import type { UiStore } from '../state/ui-store.js';

/** The store's latest published snapshot; re-renders only when a frame is published. */
export function useUiState(store: UiStore): UiState {
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
