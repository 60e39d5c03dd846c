/**
 * Renders the Ink app with ink-testing-library inside act(), on a fixed terminal size, and
 * reads ANSI-stripped frames.
 */
import { render } from 'ink-testing-library';
import { act } from 'react';
import type { RunEvent } from '../../src/engine/record/events.js';
import type { RunState } from '../../src/engine/record/run-state.js';
import type { DiffLoader, UiCommands } from '../../src/ui/commands.js';
import { App } from '../../src/ui/components/App.js';
import { stripAnsi } from '../../src/ui/format/text.js';
import { ThemeContext } from '../../src/ui/hooks/useTheme.js';
import { createUiStore, type UiStore } from '../../src/ui/state/ui-store.js';
import { colourTheme, type Theme } from '../../src/ui/theme.js';
import { T0 } from './scripted-runs.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export const KEY = { up: '\u001b[A', down: '\u001b[B', enter: '\r', escape: '\u001b', backspace: '\u007f', ctrlC: '\u0003', right: '\u001b[C' } as const;

export interface Rendered {
  readonly store: UiStore;
  /** The last frame, ANSI-stripped, trailing spaces of each line removed. */
  frame(): string;
  /** The last frame as written (with colour codes). */
  rawFrame(): string;
  press(...keys: string[]): Promise<void>;
  /** Lets effects and promises (a diff loading) settle. */
  settle(): Promise<void>;
  /** Feeds more events, as the engine would, and draws the frame. */
  send(events: readonly RunEvent[]): Promise<void>;
  unmount(): Promise<void>;
}

export interface RenderOptions {
  readonly mode?: 'live' | 'review';
  readonly columns?: number;
  readonly rows?: number;
  readonly commands?: UiCommands;
  readonly loadDiff?: DiffLoader;
  readonly theme?: Theme;
  /** The store's clock (the spinner and elapsed times). */
  readonly now?: number;
  readonly budgetUsd?: number;
  /** A run folded beforehand, as `bestof show` passes it. */
  readonly run?: RunState;
}

export async function renderRun(events: readonly RunEvent[], options: RenderOptions = {}): Promise<Rendered> {
  const now = options.now ?? T0 + 30_000;
  const store = createUiStore({ mode: options.mode ?? 'live', tickMs: 0, clock: () => now, budgetUsd: options.budgetUsd, run: options.run });
  for (const event of events) store.onEvent(event);
  store.flush();
  let instance!: ReturnType<typeof render>;
  await act(async () => {
    instance = render(
      <ThemeContext.Provider value={options.theme ?? colourTheme}>
        <App
          store={store}
          commands={options.commands ?? { cancelRun: () => undefined }}
          loadDiff={options.loadDiff}
          size={{ columns: options.columns ?? 100, rows: options.rows ?? 30 }}
        />
      </ThemeContext.Provider>,
    );
  });
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 3; i++) {
      await act(async () => {
        await new Promise((resolve) => setImmediate(resolve));
      });
    }
  };
  await settle();
  return {
    store,
    frame: () =>
      stripAnsi(instance.lastFrame() ?? '')
        .split('\n')
        .map((line) => line.trimEnd())
        .join('\n'),
    rawFrame: () => instance.lastFrame() ?? '',
    async press(...keys) {
      for (const key of keys) {
        await act(async () => {
          instance.stdin.write(key);
        });
        await settle();
      }
    },
    settle,
    async send(events) {
      await act(async () => {
        for (const event of events) store.onEvent(event);
        store.flush();
      });
      await settle();
    },
    async unmount() {
      await act(async () => {
        instance.unmount();
      });
      store.dispose();
    },
  };
}
