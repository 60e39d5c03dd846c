import { Box, useApp } from 'ink';
import { useEffect, useMemo } from 'react';
import { capabilitiesOf, type DiffLoader, type UiCommands } from '../commands.js';
import { useDiffLoader } from '../hooks/useDiffLoader.js';
import { useKeys } from '../hooks/useKeys.js';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import { useUiState } from '../hooks/useUiState.js';
import type { UiStore } from '../state/ui-store.js';
import { CompareView, compareHeights } from './CompareView.js';
import { Dashboard } from './Dashboard.js';
import { DetailView } from './DetailView.js';
import { Footer } from './Footer.js';
import { HelpView } from './HelpView.js';

export interface AppProps {
  readonly store: UiStore;
  readonly commands: UiCommands;
  readonly loadDiff?: DiffLoader;
  /** A fixed size (tests, the bench); by default the terminal's, following resizes. */
  readonly size?: TerminalSize;
  /** Ctrl-C while the run is already cancelling: quit at once. */
  readonly onForceQuit?: () => void;
  /**
   * Read keys (puts stdin in raw mode).
   * @default true
   */
  readonly keys?: boolean;
}

/** Lines kept free: the footer's two, and one so that Ink never fills the screen (it would clear it on every frame). */
const RESERVED_LINES = 3;

export function App({ store, commands, loadDiff, size: fixedSize, onForceQuit, keys = true }: AppProps) {
  const state = useUiState(store);
  const size = useTerminalSize(fixedSize);
  const { exit } = useApp();
  const capabilities = useMemo(() => capabilitiesOf(commands), [commands]);
  const width = Math.max(20, size.columns);
  const bodyHeight = Math.max(4, size.rows - RESERVED_LINES);
  const diffViewport = compareHeights(state.run.order.length, bodyHeight).diffLines;

  useKeys({ store, commands, onForceQuit, isActive: keys, capabilities, diffViewport });
  useDiffLoader(store, state, loadDiff);
  useEffect(() => {
    if (state.exitRequested) exit();
  }, [state.exitRequested, exit]);

  let body;
  if (state.dialog?.kind === 'help') body = <HelpView state={state} width={width} capabilities={capabilities} />;
  else if (state.view === 'detail') body = <DetailView state={state} width={width} height={bodyHeight} />;
  else if (state.view === 'compare') body = <CompareView state={state} width={width} height={bodyHeight} />;
  else body = <Dashboard state={state} width={width} height={bodyHeight} />;
  return (
    <Box flexDirection="column" width={width}>
      {body}
      <Footer state={state} width={width} capabilities={capabilities} />
    </Box>
  );
}
