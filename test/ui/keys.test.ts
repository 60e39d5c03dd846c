/** What each key means in each state (pure: no Ink, no run). */
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { interpretKey, type Capabilities, type Intent, type KeyPress } from '../../src/ui/state/keys.js';
import { initialUiState, reduceUiAction, reduceUiEvent, type UiState } from '../../src/ui/state/ui-state.js';
import { finishedRun, mixedRun, T0 } from './scripted-runs.js';

const ALL: Capabilities = { stop: true, message: true, chooseWinner: true };
const fold = (events: readonly RunEvent[]): UiState => events.reduce(reduceUiEvent, initialUiState({ mode: 'live', now: T0 }));

/** Presses keys in order, applying UI intents as the store would, and returns every intent. */
function press(state: UiState, keys: readonly KeyPress[], capabilities: Capabilities = ALL): { state: UiState; intents: Intent[] } {
  const intents: Intent[] = [];
  for (const key of keys) {
    for (const intent of interpretKey(state, key, { capabilities, diffViewport: 10 })) {
      intents.push(intent);
      if (intent.kind === 'ui') state = reduceUiAction(state, intent.action);
      if (intent.kind === 'cancel') state = reduceUiAction(state, { type: 'cancel-requested' });
    }
  }
  return { state, intents };
}

const k = (input: string): KeyPress => ({ input });
const commands = (intents: Intent[]) => intents.filter((i) => i.kind !== 'ui');

describe('keys on the live dashboard', () => {
  it('q asks before cancelling; y cancels; n keeps running', () => {
    const running = fold(mixedRun());
    const asked = press(running, [k('q')]);
    expect(asked.state.dialog).toEqual({ kind: 'confirm-cancel' });
    expect(commands(asked.intents)).toEqual([]);
    expect(commands(press(running, [k('q'), k('y')]).intents)).toEqual([{ kind: 'cancel' }]);
    const kept = press(running, [k('q'), k('n')]);
    expect(kept.state.dialog).toBeUndefined();
    expect(commands(kept.intents)).toEqual([]);
  });

  it('Ctrl-C asks too, a second Ctrl-C confirms, and a third quits at once', () => {
    const running = fold(mixedRun());
    const ctrlC: KeyPress = { input: '', ctrlC: true };
    expect(press(running, [ctrlC]).state.dialog).toEqual({ kind: 'confirm-cancel' });
    expect(commands(press(running, [ctrlC, ctrlC]).intents)).toEqual([{ kind: 'cancel' }]);
    expect(commands(press(running, [ctrlC, ctrlC, ctrlC]).intents)).toEqual([{ kind: 'cancel' }, { kind: 'force-quit' }]);
  });

  it('s asks before stopping the selected candidate', () => {
    const running = fold(mixedRun());
    const { state, intents } = press(running, [{ input: '', down: true }, k('s'), k('y')]);
    expect(commands(intents)).toEqual([{ kind: 'stop', candidate: 'c2' }]);
    expect(state.dialog).toBeUndefined();
  });

  it('says why s or m does nothing: a finished candidate, or a command the front end lacks', () => {
    const running = fold(mixedRun());
    expect(press(running, [k('s')]).state.notice?.text).toContain('c1 has already finished');
    const noStop = press(running, [{ input: '', down: true }, k('s')], { stop: false, message: false, chooseWinner: false });
    expect(noStop.state.notice?.text).toContain('not available');
    expect(noStop.state.dialog).toBeUndefined();
  });

  it('m types a message, backspace erases, enter sends it', () => {
    const running = fold(mixedRun());
    const { intents } = press(running, [
      { input: '', down: true },
      k('m'),
      k('use'),
      k(' NFKX'),
      { input: '', erase: true },
      k('D'),
      { input: '', enter: true },
    ]);
    expect(commands(intents)).toEqual([{ kind: 'message', candidate: 'c2', text: 'use NFKD' }]);
    const quitLetters = press(running, [{ input: '', down: true }, k('m'), k('q'), k('?'), { input: '', escape: true }]);
    expect(commands(quitLetters.intents)).toEqual([]);
    expect(quitLetters.state.dialog).toBeUndefined();
  });

  it('enter opens details, esc and backspace come back, ? lists the keys', () => {
    const running = fold(mixedRun());
    expect(press(running, [{ input: '', enter: true }]).state.view).toBe('detail');
    expect(
      press(running, [
        { input: '', enter: true },
        { input: '', escape: true },
      ]).state.view,
    ).toBe('dashboard');
    expect(
      press(running, [
        { input: '', enter: true },
        { input: '', erase: true },
      ]).state.view,
    ).toBe('dashboard');
    expect(press(running, [k('?')]).state.dialog).toEqual({ kind: 'help' });
    expect(press(running, [k('?'), k('x')]).state.dialog).toBeUndefined();
  });
});

describe('keys in the compare view', () => {
  it('q quits without asking once the run is over', () => {
    expect(press(fold(finishedRun()), [k('q')]).state.exitRequested).toBe(true);
    expect(press(fold(finishedRun()), [{ input: '', ctrlC: true }]).state.exitRequested).toBe(true);
  });

  it("w asks before choosing another winner, in the spec's merge mode, which arrows change", () => {
    const over = fold(finishedRun());
    const { intents } = press(over, [{ input: '', down: true }, k('w'), { input: '', right: true }, k('y')]);
    expect(commands(intents)).toEqual([{ kind: 'choose-winner', candidate: 'c2', mode: 'pr' }]);
    expect(commands(press(over, [{ input: '', down: true }, k('w'), k('y')]).intents)).toEqual([{ kind: 'choose-winner', candidate: 'c2', mode: 'branch' }]);
    expect(press(over, [k('w')]).state.notice?.text).toContain('already the winner');
  });

  it('j, k, space and b scroll the diff; n and p jump between files', () => {
    const over = fold(finishedRun());
    const ui = (keys: KeyPress[]) => press(over, keys).intents.map((i) => (i.kind === 'ui' ? i.action.type : i.kind));
    expect(ui([k('j'), k('k'), k(' '), k('b'), k('n'), k('p')])).toEqual([
      'scroll-diff',
      'scroll-diff',
      'scroll-diff',
      'scroll-diff',
      'jump-file',
      'jump-file',
    ]);
  });
});
