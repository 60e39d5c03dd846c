/**
 * What a signal does to a run (`bestof run`, `bestof resume`), as a pure step: the state so far
 * and what came in give the next state and the one action to take. src/cli/run-session.ts feeds it
 * the process's signals and the dashboard's cancel, and carries out the action; the rules live
 * here, where a table test (test/cli/signal-machine.test.ts) can hold every one of them.
 *
 * - The first Ctrl-C (SIGINT) or SIGTERM cancels the run cleanly (every agent stopped, what each
 *   wrote committed and kept); a second one quits at once (every process of the run SIGKILLed).
 * - The outer bestof of copy-on-write worktrees passes its SIGINT or SIGTERM on as FORWARDED_CANCEL
 *   (src/process/namespace.ts). A signal sent to the whole process group comes here directly too,
 *   before or after the forwarded one: the two are one cancel. So a forwarded cancel counts only as
 *   the first signal, and, when it came first, the direct signal after it is taken for its twin.
 * - A signal while Node winds down after the run (its handles closing) ends bestof with the run's
 *   own exit code: the run is over and recorded, and the signal's default 130 or 143 would make a
 *   finished run look cancelled to a script or CI job that stopped it a moment late.
 * - A closed terminal (SIGHUP) is no reason to stop a run: it goes on to its end without a screen
 *   (the dashboard closes; output errors are dropped, src/cli/output.ts), and its record is complete.
 * - The dashboard asks before it cancels; then it is the same cancel as Ctrl-C on the plain path
 *   (a Ctrl-C after it quits at once).
 */

export interface SignalState {
  /** Cancels so far: signals taken, and the dashboard's cancel (which counts as the first). */
  readonly signals: number;
  /** A forwarded cancel came first: the next direct SIGINT or SIGTERM is its twin, not a second signal. */
  readonly twinExpected: boolean;
}

export const INITIAL_SIGNAL_STATE: SignalState = { signals: 0, twinExpected: false };

export type SignalInput =
  /** SIGINT or SIGTERM, sent to bestof itself or to its process group. */
  | { readonly kind: 'direct'; readonly name: NodeJS.Signals }
  /** The outer bestof's SIGINT or SIGTERM, passed on (FORWARDED_CANCEL). */
  | { readonly kind: 'forwarded' }
  /** SIGHUP: the terminal closed. */
  | { readonly kind: 'hangup' }
  /** The user confirmed the cancel in the dashboard. */
  | { readonly kind: 'dashboardCancel' };

export type SignalAction =
  /** Nothing to do (the twin of a forwarded cancel, or a forwarded cancel after a cancel). */
  | { readonly kind: 'none' }
  /** Cancel the run cleanly, saying so (the dashboard says it itself), because of this signal. */
  | { readonly kind: 'cancel'; readonly name: NodeJS.Signals }
  /** Cancel the run cleanly; the dashboard asked for it and has said so. */
  | { readonly kind: 'cancelFromDashboard' }
  /** Kill every process of the run and exit at once. */
  | { readonly kind: 'quitNow' }
  /** The run has ended and is recorded: exit with its own code. */
  | { readonly kind: 'exit'; readonly code: number }
  /** Close the dashboard; the run goes on. */
  | { readonly kind: 'closeUi' };

export interface SignalStep {
  readonly state: SignalState;
  readonly action: SignalAction;
}

/**
 * The next state and the action for `input`. `runEnded` is the run's exit code once the run has
 * ended and its result is known (its record, reports and output written), else undefined.
 */
export function nextSignalStep(state: SignalState, input: SignalInput, runEnded: number | undefined): SignalStep {
  switch (input.kind) {
    case 'direct':
      if (runEnded !== undefined) return { state, action: { kind: 'exit', code: runEnded } };
      if (state.twinExpected) return { state: { ...state, twinExpected: false }, action: { kind: 'none' } };
      return countSignal(state, input.name);
    case 'forwarded': {
      if (runEnded !== undefined) return { state, action: { kind: 'exit', code: runEnded } };
      if (state.signals > 0) return { state, action: { kind: 'none' } };
      const step = countSignal(state, 'SIGTERM');
      return { state: { ...step.state, twinExpected: true }, action: step.action };
    }
    case 'hangup':
      return { state, action: { kind: 'closeUi' } };
    case 'dashboardCancel':
      return { state: { ...state, signals: Math.max(state.signals, 1) }, action: { kind: 'cancelFromDashboard' } };
  }
}

/** One more signal: the first cancels, any later one quits at once. */
function countSignal(state: SignalState, name: NodeJS.Signals): SignalStep {
  const signals = state.signals + 1;
  return { state: { ...state, signals }, action: signals === 1 ? { kind: 'cancel', name } : { kind: 'quitNow' } };
}
