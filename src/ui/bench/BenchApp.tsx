/**
 * The bench view with its keys and its clock. q and Ctrl-C cancel the bench (the same cancel as
 * SIGINT: the command passes it in); nothing else is a key. The marks change only on events;
 * the clock only moves the elapsed time and counts the ETA down, once a second, and stops when
 * the bench has finished.
 */
import { Box, useInput, type Key } from 'ink';
import { useCallback, useEffect, useState, useSyncExternalStore } from 'react';
import { useTerminalSize, type TerminalSize } from '../hooks/useTerminalSize.js';
import type { BenchStore } from './bench-store.js';
import { BenchView } from './BenchView.js';

export interface BenchAppProps {
  readonly store: BenchStore;
  /** Cancels the bench: the command's AbortController, as SIGINT. */
  readonly cancel: () => void;
  /** A fixed size (tests); by default the terminal's, following resizes. */
  readonly size?: TerminalSize;
  /** A fixed clock (tests): no timer runs. */
  readonly now?: number;
  /** @default 1000 */
  readonly tickMs?: number;
  /**
   * Read keys (puts stdin in raw mode).
   * @default true
   */
  readonly keys?: boolean;
}

/** One line is kept free: a frame as high as the screen makes Ink clear the screen on every frame. */
const RESERVED_LINES = 1;

function useClock(fixed: number | undefined, tickMs: number, running: boolean): number {
  const [now, setNow] = useState(() => fixed ?? Date.now());
  useEffect(() => {
    if (fixed !== undefined || !running || tickMs <= 0) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), tickMs);
    return () => clearInterval(timer);
  }, [fixed, tickMs, running]);
  return fixed ?? now;
}

export function BenchApp({ store, cancel, size: fixedSize, now: fixedNow, tickMs = 1000, keys = true }: BenchAppProps) {
  const state = useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
  const size = useTerminalSize(fixedSize);
  const now = useClock(fixedNow, tickMs, state.started && state.finishedAt === null);
  const onKey = useCallback(
    (input: string, key: Key) => {
      const quit = input === 'q' || (key.ctrl && input === 'c');
      const current = store.getSnapshot();
      if (!quit || current.cancelRequested || current.finishedAt !== null) return;
      store.dispatch({ type: 'cancel-requested' });
      cancel();
    },
    [store, cancel],
  );
  useInput(onKey, { isActive: keys });
  const width = Math.max(20, size.columns);
  const height = Math.max(1, size.rows - RESERVED_LINES);
  return (
    <Box flexDirection="column" width={width}>
      <BenchView state={state} width={width} height={height} now={now} />
    </Box>
  );
}
