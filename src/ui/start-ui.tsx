/**
 * The Ink front end's entry points. This module loads Ink and React, so the CLI imports it
 * with a dynamic `import()` only when stdout and stdin are a terminal; the plain path never
 * loads either.
 */
import { render } from 'ink';
import type { RunEvent, RunEventListener } from '../engine/record/events.js';
import type { RunState } from '../engine/record/run-state.js';
import type { DiffLoader, UiCommands } from './commands.js';
import { App } from './components/App.js';
import { ThemeContext } from './hooks/useTheme.js';
import type { TerminalSize } from './hooks/useTerminalSize.js';
import { createUiStore, type UiStore } from './state/ui-store.js';
import { themeFor } from './theme.js';
import type { Env } from '../env.js';

export interface InkUiOptions {
  readonly commands: UiCommands;
  readonly loadDiff?: DiffLoader;
  /** @default process.stdout */
  readonly stdout?: NodeJS.WriteStream;
  /** @default process.stdin */
  readonly stdin?: NodeJS.ReadStream;
  /** For NO_COLOR. @default process.env */
  readonly env?: Env;
  /** @default the terminal's size */
  readonly size?: TerminalSize;
  /** @default 15 */
  readonly maxFramesPerSecond?: number;
}

export interface LiveUiOptions extends InkUiOptions {
  /** `[budget] max_total_cost_usd`, shown against the spend. */
  readonly budgetUsd?: number;
  /** Ctrl-C pressed while the run is already cancelling. */
  readonly onForceQuit?: () => void;
}

export interface LiveUi {
  /** The engine's event listener. */
  readonly onEvent: RunEventListener;
  /** Settles when the UI has closed: the user quit after the run, or a run they cancelled has ended. */
  readonly closed: Promise<void>;
  isOpen(): boolean;
  /** Draws what is queued and closes the UI (restores the terminal). */
  close(): void;
  readonly store: UiStore;
}

function mount(store: UiStore, options: InkUiOptions & { readonly onForceQuit?: () => void }) {
  const stdout = options.stdout ?? process.stdout;
  const maxFps = options.maxFramesPerSecond ?? 15;
  return render(
    <ThemeContext.Provider value={themeFor(options.env ?? process.env)}>
      <App store={store} commands={options.commands} loadDiff={options.loadDiff} size={options.size} onForceQuit={options.onForceQuit} />
    </ThemeContext.Provider>,
    // Ctrl-C is a key of the UI (it asks before cancelling), not Ink's exit.
    { stdout, stdin: options.stdin ?? process.stdin, exitOnCtrlC: false, patchConsole: true, maxFps },
  );
}

/** The live dashboard for `bestof run`; after the run it turns into the compare view. */
export function startLiveUi(options: LiveUiOptions): LiveUi {
  const store = createUiStore({ mode: 'live', budgetUsd: options.budgetUsd, maxFramesPerSecond: options.maxFramesPerSecond });
  const instance = mount(store, options);
  let open = true;
  const closed = instance.waitUntilExit().then(
    () => undefined,
    () => undefined,
  );
  void closed.finally(() => {
    open = false;
    store.dispose();
  });
  return {
    onEvent: (event: RunEvent) => store.onEvent(event),
    closed,
    isOpen: () => open,
    close() {
      if (!open) return;
      store.flush();
      instance.unmount();
    },
    store,
  };
}

/** The compare view of a finished run (`bestof show` on a terminal); settles when the user quits. */
export async function reviewRun(run: RunState, options: InkUiOptions): Promise<void> {
  const store = createUiStore({ mode: 'review', run, tickMs: 0, maxFramesPerSecond: options.maxFramesPerSecond });
  const instance = mount(store, options);
  try {
    await instance.waitUntilExit();
  } finally {
    store.dispose();
  }
}
