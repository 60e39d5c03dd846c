/**
 * What `bestof bench` needs to show the Ink view of a running bench: loading it (Ink and React
 * through import(), so that the plain path never loads either), and falling back to the plain
 * lines when it cannot start or closes before the bench ends. No static import here may reach
 * Ink or React (test/ui/bench-view.test.tsx checks the command's import graph).
 */
import type { BenchEvent, BenchEventListener } from '../../bench/events.js';
import { createBenchPlainReporter } from '../bench-lines.js';
import { loadBenchUi } from '../load-ink-ui.js';

export interface BenchFrontEnd {
  readonly listener: BenchEventListener;
  /** The bench is being cancelled from outside (SIGINT, SIGTERM). */
  cancelling(): void;
  /** Leaves the last frame on the screen and gives the terminal back (idempotent). */
  close(): void;
}

export interface BenchViewOptions {
  readonly cancel: () => void;
  /** Where the plain lines go if the view cannot start or closes early. */
  readonly write: (line: string) => void;
  /** Where the note that the view could not start goes. */
  readonly warn: (line: string) => void;
}

/**
 * The Ink view, or `undefined` (with a note through `warn`) when it cannot start: the caller
 * then uses the plain lines. The plain reporter folds every event from the start, silently
 * while the view is open, so that if the view closes before the bench ends its lines go on
 * with the right counts ("[7/60]", not "[1/0]").
 */
export async function startBenchView(options: BenchViewOptions): Promise<BenchFrontEnd | undefined> {
  let ui: import('./start-bench-ui.js').BenchUi;
  try {
    const { startBenchUi } = await loadBenchUi();
    ui = startBenchUi({ cancel: options.cancel });
  } catch (error) {
    options.warn(
      `bestof bench: the terminal view could not start (${error instanceof Error ? error.message : String(error)}); one line per finished trial instead (--no-tui chooses these lines)\n`,
    );
    return undefined;
  }
  let plainOut = false;
  const plain = createBenchPlainReporter((line) => {
    if (plainOut) options.write(line);
  });
  return {
    listener(event: BenchEvent) {
      plainOut = !ui.isOpen();
      plain(event);
      if (!plainOut) ui.onEvent(event);
    },
    cancelling: () => ui.cancelling(),
    close: () => ui.close(),
  };
}
