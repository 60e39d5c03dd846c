import { Box, useApp } from 'ink';
import { type ReactNode, useEffect, useMemo } from 'react';
import { capabilitiesOf, type DiffLoader, type UiCommands } from '../commands.js';
import { useDiffLoader } from '../hooks/useDiffLoader.js';
import { useKeys } from '../hooks/useKeys.js';
import { useTheme } from '../hooks/useTheme.js';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import { useUiState } from '../hooks/useUiState.js';
import type { UiStore } from '../state/ui-store.js';
import { CompareView, compareHeights, compareTopLines } from './CompareView.js';
import { Dashboard } from './Dashboard.js';
import { DetailView } from './DetailView.js';
import { Footer, footerLines } from './Footer.js';
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

/** A line kept free so that Ink never fills the screen (it would clear it on every frame). */
const SPARE_LINES = 1;

export function App({ store, commands, loadDiff, size: fixedSize, onForceQuit, keys = true }: AppProps) {
  const state = useUiState(store);
  const size = useTerminalSize(fixedSize);
  const { exit } = useApp();
  const capabilities = useMemo(() => capabilitiesOf(commands), [commands]);
  const theme = useTheme();
  const width = Math.max(20, size.columns);
  // The footer first: a dialog's question or a merge's result may take more than its two lines.
  const footer = footerLines(state, capabilities, width, theme);
  const bodyHeight = Math.max(4, size.rows - footer.length - SPARE_LINES);
  const diffViewport = compareHeights(state.run.order.length, bodyHeight, compareTopLines(state.run, width)).diffLines;

  useKeys({ store, commands, onForceQuit, isActive: keys, capabilities, diffViewport });
  useDiffLoader(store, state, loadDiff);
  useEffect(() => {
    if (state.exitRequested) exit();
  }, [state.exitRequested, exit]);

  let body: ReactNode;
  if (state.dialog?.kind === 'help') body = <HelpView state={state} width={width} height={bodyHeight} capabilities={capabilities} />;
  else if (state.view === 'detail') body = <DetailView state={state} width={width} height={bodyHeight} />;
  else if (state.view === 'compare') body = <CompareView state={state} width={width} height={bodyHeight} />;
  else body = <Dashboard state={state} width={width} height={bodyHeight} />;
  return (
    <Box flexDirection="column" width={width}>
      {body}
      <Footer lines={footer} width={width} />
    </Box>
  );
}
