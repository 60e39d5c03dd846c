import { useInput, type Key } from 'ink';
import { useCallback } from 'react';
import type { UiCommands } from '../commands.js';
import { interpretKey, type Intent, type KeyContext, type KeyPress } from '../state/keys.js';
import type { UiStore } from '../state/ui-store.js';

export function toKeyPress(input: string, key: Key): KeyPress {
  const ctrlC = key.ctrl && input === 'c';
  return {
    input: key.ctrl || key.meta ? '' : input,
    up: key.upArrow,
    down: key.downArrow,
    left: key.leftArrow,
    right: key.rightArrow,
    enter: key.return,
    escape: key.escape,
    erase: key.backspace || key.delete,
    tab: key.tab,
    pageUp: key.pageUp,
    pageDown: key.pageDown,
    ctrlC,
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Carries out what a key means: UI actions go to the store, commands to the run. */
export function runIntents(intents: readonly Intent[], store: UiStore, commands: UiCommands, onForceQuit: (() => void) | undefined): void {
  const say = (text: string, tone: 'info' | 'ok' | 'warning' | 'error' = 'info'): void => store.dispatch({ type: 'notice', notice: { text, tone } });
  for (const intent of intents) {
    try {
      switch (intent.kind) {
        case 'ui':
          store.dispatch(intent.action);
          break;
        case 'stop':
          commands.stopCandidate?.(intent.candidate);
          say(`stop requested for ${intent.candidate}: it stops before its next iteration; its work is committed and kept`);
          break;
        case 'message':
          commands.sendMessage?.(intent.candidate, intent.text);
          say(`message for ${intent.candidate} queued: it goes into its next prompt`, 'ok');
          break;
        case 'cancel':
          store.dispatch({ type: 'cancel-requested' });
          commands.cancelRun?.();
          break;
        case 'force-quit':
          onForceQuit?.();
          break;
        case 'choose-winner': {
          const choose = commands.chooseWinner;
          if (!choose) break;
          const { candidate, mode } = intent;
          store.dispatch({ type: 'winner-pending', candidate, mode });
          choose(candidate, mode).then(
            (result) => {
              // The recorded choice first: the frame that shows the result names the new winner.
              if (result.recorded) store.onEvent(result.recorded);
              store.dispatch({ type: 'winner-result', candidate, ok: result.ok, message: result.message });
            },
            (error: unknown) => store.dispatch({ type: 'winner-result', candidate, ok: false, message: describe(error) }),
          );
          break;
        }
        default: {
          const unreachable: never = intent;
          return unreachable;
        }
      }
    } catch (error) {
      say(`${intent.kind} failed: ${describe(error)}`, 'error');
    }
  }
}

export interface UseKeysOptions extends KeyContext {
  readonly store: UiStore;
  readonly commands: UiCommands;
  readonly onForceQuit?: () => void;
  readonly isActive: boolean;
}

/** Keys of the whole UI. Ctrl-C arrives here as a key (raw mode), not as SIGINT. */
export function useKeys({ store, commands, onForceQuit, isActive, capabilities, diffViewport }: UseKeysOptions): void {
  const handler = useCallback(
    (input: string, key: Key) => {
      const intents = interpretKey(store.getSnapshot(), toKeyPress(input, key), { capabilities, diffViewport });
      runIntents(intents, store, commands, onForceQuit);
    },
    [store, commands, onForceQuit, capabilities, diffViewport],
  );
  useInput(handler, { isActive });
}
