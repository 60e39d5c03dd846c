/**
 * The rules of a run's signals (src/cli/signal-machine.ts), as tables: one step from a given
 * state, and whole sequences of signals from the start of a run. test/cli/cancel.test.ts and
 * test/cli/cow-worktrees.test.ts send the real signals to the binary; here every rule is held on its own.
 */
import { describe, expect, it } from 'vitest';
import { INITIAL_SIGNAL_STATE, nextSignalStep, type SignalAction, type SignalInput, type SignalState } from '../../src/cli/signal-machine.js';

const SIGINT: SignalInput = { kind: 'direct', name: 'SIGINT' };
const SIGTERM: SignalInput = { kind: 'direct', name: 'SIGTERM' };
const FORWARDED: SignalInput = { kind: 'forwarded' };
const HANGUP: SignalInput = { kind: 'hangup' };
const DASHBOARD: SignalInput = { kind: 'dashboardCancel' };

const state = (signals: number, twinExpected = false): SignalState => ({ signals, twinExpected });
const none: SignalAction = { kind: 'none' };
const quitNow: SignalAction = { kind: 'quitNow' };
const cancel = (name: NodeJS.Signals): SignalAction => ({ kind: 'cancel', name });

describe('one step', () => {
  const table: ReadonlyArray<{
    readonly why: string;
    readonly from: SignalState;
    readonly input: SignalInput;
    readonly runEnded?: number;
    readonly to: SignalState;
    readonly action: SignalAction;
  }> = [
    { why: 'a first Ctrl-C cancels', from: state(0), input: SIGINT, to: state(1), action: cancel('SIGINT') },
    { why: 'a first SIGTERM cancels, named', from: state(0), input: SIGTERM, to: state(1), action: cancel('SIGTERM') },
    { why: 'a second Ctrl-C quits at once', from: state(1), input: SIGINT, to: state(2), action: quitNow },
    { why: 'a SIGTERM after a Ctrl-C quits at once', from: state(1), input: SIGTERM, to: state(2), action: quitNow },
    { why: 'a third one quits too (if the first quit did not end bestof yet)', from: state(2), input: SIGINT, to: state(3), action: quitNow },
    { why: 'a forwarded cancel cancels as a SIGTERM and expects its twin', from: state(0), input: FORWARDED, to: state(1, true), action: cancel('SIGTERM') },
    { why: 'the direct twin of a forwarded cancel is taken for it', from: state(1, true), input: SIGINT, to: state(1), action: none },
    { why: 'a forwarded cancel after a direct signal is its twin', from: state(1), input: FORWARDED, to: state(1), action: none },
    { why: 'a forwarded cancel never counts as a second signal', from: state(2), input: FORWARDED, to: state(2), action: none },
    {
      why: 'a direct signal after the run ended exits with its code',
      from: state(0),
      input: SIGTERM,
      runEnded: 0,
      to: state(0),
      action: { kind: 'exit', code: 0 },
    },
    { why: 'even where a second signal would quit', from: state(1), input: SIGINT, runEnded: 3, to: state(1), action: { kind: 'exit', code: 3 } },
    { why: 'even where a twin was expected', from: state(1, true), input: SIGINT, runEnded: 2, to: state(1, true), action: { kind: 'exit', code: 2 } },
    {
      why: 'a forwarded cancel after the run ended exits with its code',
      from: state(1),
      input: FORWARDED,
      runEnded: 5,
      to: state(1),
      action: { kind: 'exit', code: 5 },
    },
    { why: 'a closed terminal only closes the dashboard', from: state(0), input: HANGUP, to: state(0), action: { kind: 'closeUi' } },
    { why: 'a closed terminal after a cancel changes nothing else', from: state(1, true), input: HANGUP, to: state(1, true), action: { kind: 'closeUi' } },
    { why: "the dashboard's cancel counts as the first signal", from: state(0), input: DASHBOARD, to: state(1), action: { kind: 'cancelFromDashboard' } },
    {
      why: "the dashboard's cancel after a signal does not count again",
      from: state(1),
      input: DASHBOARD,
      to: state(1),
      action: { kind: 'cancelFromDashboard' },
    },
  ];
  it.each(table)('$why', ({ from, input, runEnded, to, action }) => {
    expect(nextSignalStep(from, input, runEnded)).toEqual({ state: to, action });
  });
});

describe('sequences from the start of a run', () => {
  /** The actions of `inputs` in turn, from the initial state, the run still going. */
  const actions = (inputs: readonly SignalInput[]): SignalAction[] => {
    let current = INITIAL_SIGNAL_STATE;
    return inputs.map((input) => {
      const step = nextSignalStep(current, input, undefined);
      current = step.state;
      return step.action;
    });
  };
  const table: ReadonlyArray<{ readonly why: string; readonly inputs: readonly SignalInput[]; readonly expected: readonly SignalAction[] }> = [
    { why: 'Ctrl-C twice: cancel, then quit', inputs: [SIGINT, SIGINT], expected: [cancel('SIGINT'), quitNow] },
    {
      why: 'forwarded cancel with its twin, then a real second Ctrl-C quits',
      inputs: [FORWARDED, SIGINT, SIGINT],
      expected: [cancel('SIGTERM'), none, quitNow],
    },
    { why: 'the twin before the forwarded cancel: one cancel', inputs: [SIGTERM, FORWARDED], expected: [cancel('SIGTERM'), none] },
    { why: 'the twin before, then a real second signal quits', inputs: [SIGTERM, FORWARDED, SIGINT], expected: [cancel('SIGTERM'), none, quitNow] },
    { why: 'the dashboard cancels, a Ctrl-C after it quits', inputs: [DASHBOARD, SIGINT], expected: [{ kind: 'cancelFromDashboard' }, quitNow] },
    {
      why: 'a closed terminal does not count as a signal',
      inputs: [HANGUP, SIGINT, HANGUP],
      expected: [{ kind: 'closeUi' }, cancel('SIGINT'), { kind: 'closeUi' }],
    },
  ];
  it.each(table)('$why', ({ inputs, expected }) => {
    expect(actions(inputs)).toEqual(expected);
  });
});
