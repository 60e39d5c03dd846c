/**
 * Mounts and unmounts the bench view. This module loads Ink and React: the CLI reaches it only
 * through the dynamic import() of ./bench-front-end.ts, taken on an interactive terminal.
 */
import { render } from 'ink';
import type { BenchEventListener } from '../../bench/events.js';
import { ThemeContext } from '../hooks/useTheme.js';
import type { TerminalSize } from '../hooks/useTerminalSize.js';
import { themeFor } from '../theme.js';
import { BenchApp } from './BenchApp.js';
import { createBenchStore, type BenchStore } from './bench-store.js';
import type { Env } from '../../env.js';

export interface BenchUiOptions {
  /** Cancels the bench (q or Ctrl-C in the view): the same as SIGINT. */
  readonly cancel: () => void;
  /** @default process.stdout */
  readonly stdout?: NodeJS.WriteStream;
  /** @default process.stdin */
  readonly stdin?: NodeJS.ReadStream;
  /** For NO_COLOR. @default process.env */
  readonly env?: Env;
  /** @default the terminal's size */
  readonly size?: TerminalSize;
}

export interface BenchUi {
  readonly onEvent: BenchEventListener;
  /** The bench is being cancelled from outside (SIGINT, SIGTERM): the view says so. */
  cancelling(): void;
  /** False once the view has closed: by close(), or by itself (an error in it). */
  isOpen(): boolean;
  /** Settles when the view has closed. */
  readonly closed: Promise<void>;
  /** Draws the last frame, leaves it on the screen, and gives the terminal back. */
  close(): void;
  readonly store: BenchStore;
}

export function startBenchUi(options: BenchUiOptions): BenchUi {
  const store = createBenchStore();
  const instance = render(
    <ThemeContext.Provider value={themeFor(options.env ?? process.env)}>
      <BenchApp store={store} cancel={options.cancel} size={options.size} />
    </ThemeContext.Provider>,
    // Ctrl-C is a key of the view (it cancels the bench and waits for it), not Ink's exit.
    { stdout: options.stdout ?? process.stdout, stdin: options.stdin ?? process.stdin, exitOnCtrlC: false, patchConsole: true },
  );
  let open = true;
  const closed = instance.waitUntilExit().then(
    () => undefined,
    () => undefined,
  );
  void closed.finally(() => {
    open = false;
  });
  return {
    onEvent: (event) => store.dispatch(event),
    cancelling: () => store.dispatch({ type: 'cancel-requested' }),
    isOpen: () => open,
    closed,
    close() {
      if (!open) return;
      open = false;
      instance.unmount();
    },
    store,
  };
}
