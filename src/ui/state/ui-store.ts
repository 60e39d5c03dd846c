/**
 * The store between the engine and Ink. Events arrive as fast as agents talk (hundreds a
 * second); they are queued and folded at the next frame, and a frame is published at most
 * `maxFramesPerSecond` times a second, so the screen's cost does not grow with the event
 * rate. Ink reads snapshots with `useSyncExternalStore` (hooks/useUiState.ts).
 */
import type { RunEvent } from '../../engine/record/events.js';
import { initialUiState, isBusy, reduceUiAction, reduceUiEvents, type UiAction, type UiState, type UiStateOptions } from './ui-state.js';

export interface UiStoreOptions extends UiStateOptions {
  /** @default 15 */
  readonly maxFramesPerSecond?: number;
  /** @default Date.now */
  readonly clock?: () => number;
  /**
   * How often the clock ticks while a candidate is busy (the spinner and the elapsed times);
   * once a second when nothing is busy. 0 turns the clock off (tests drive `tick` themselves).
   * Every tick is a frame, and a frame costs the same whatever changed (Ink redraws the whole
   * screen), so this sets what an otherwise quiet dashboard costs: 5 frames a second.
   * @default 200
   */
  readonly tickMs?: number;
}

export interface UiStore {
  getSnapshot(): UiState;
  subscribe(listener: () => void): () => void;
  /** The engine's listener: cheap, never renders by itself. */
  onEvent(event: RunEvent): void;
  /**
   * A UI action (a key press, a loaded diff): applied and published at once, with whatever
   * events are queued, so that the next key press sees its effect (two keys typed within one
   * frame must both reach a message draft). People type far below the frame budget.
   */
  dispatch(action: UiAction): void;
  /** Folds what is queued and publishes a snapshot now (tests, and the last frame). */
  flush(): void;
  /** Snapshots published so far (the bench counts them). */
  readonly frames: number;
  dispose(): void;
}

export function createUiStore(options: UiStoreOptions): UiStore {
  const clock = options.clock ?? Date.now;
  const frameMs = 1000 / (options.maxFramesPerSecond ?? 15);
  const tickMs = options.tickMs ?? 200;
  let snapshot = initialUiState({ ...options, now: options.now ?? clock() });
  let queue: (RunEvent | UiAction)[] = [];
  const listeners = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;
  let ticker: NodeJS.Timeout | undefined;
  let lastFrameAt = -Infinity;
  let frames = 0;
  let disposed = false;

  const isEvent = (item: RunEvent | UiAction): item is RunEvent => 't' in item;

  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    lastFrameAt = clock();
    const items = queue;
    queue = [];
    let next = snapshot;
    let events: RunEvent[] = [];
    for (const item of items) {
      if (isEvent(item)) {
        events.push(item);
        continue;
      }
      next = reduceUiAction(reduceUiEvents(next, events), item);
      events = [];
    }
    next = reduceUiEvents(next, events);
    next = reduceUiAction(next, { type: 'tick', now: lastFrameAt });
    scheduleTicks(next);
    if (next === snapshot) return;
    snapshot = next;
    frames += 1;
    for (const listener of [...listeners]) listener();
  };

  const requestFrame = (): void => {
    if (timer || disposed) return;
    const wait = Math.max(0, lastFrameAt + frameMs - clock());
    timer = setTimeout(flush, wait);
  };

  // The clock runs fast while something spins, slowly while candidates wait, and stops with the run.
  let tickEvery = 0;
  function scheduleTicks(state: UiState): void {
    const running = state.mode === 'live' && state.run.status === 'running' && state.run.order.length > 0;
    const busy = running && state.run.order.some((id) => isBusy(state.run.candidates[id]?.status ?? 'queued'));
    const wanted = tickMs <= 0 || disposed || !running ? 0 : busy ? tickMs : 1000;
    if (wanted === tickEvery) return;
    if (ticker) clearInterval(ticker);
    ticker = undefined;
    tickEvery = wanted;
    if (wanted > 0) {
      ticker = setInterval(requestFrame, wanted);
      ticker.unref();
    }
  }

  return {
    getSnapshot: () => snapshot,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onEvent(event) {
      queue.push(event);
      requestFrame();
    },
    dispatch(action) {
      if (disposed) return;
      queue.push(action);
      flush();
    },
    flush,
    get frames() {
      return frames;
    },
    dispose() {
      disposed = true;
      if (timer) clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      timer = undefined;
      ticker = undefined;
      listeners.clear();
    },
  };
}
