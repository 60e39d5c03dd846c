import { useTheme } from '../hooks/useTheme.js';
import { candidateName } from '../layout/columns.js';
import type { Capabilities } from '../state/keys.js';
import type { Dialog, UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';

function nameOf(state: UiState, id: string): string {
  const c = state.run.candidates[id];
  return c ? candidateName(c) : id;
}

/** The question a dialog asks (first line) and its answer keys or input (second line). */
function dialogLines(state: UiState, dialog: Dialog, theme: Theme): [Segment[], Segment[]] {
  const ask = (text: string): Segment[] => [{ text, style: theme.dialog }];
  const keys = (text: string): Segment[] => [{ text, style: theme.text.secondary }];
  switch (dialog.kind) {
    case 'help':
      return [[], keys('esc or any key: close this list')];
    case 'confirm-cancel':
      return [ask("Cancel the run? Every agent is stopped; each candidate's work is committed and kept."), keys('y / enter: cancel the run    n / esc: keep running')];
    case 'confirm-stop':
      return [ask(`Stop ${nameOf(state, dialog.candidate)} before its next iteration? Its work is kept; the others go on.`), keys('y / enter: stop it    n / esc: keep it running')];
    case 'message':
      return [ask(`Message to ${nameOf(state, dialog.candidate)} (added to its next prompt):`), [{ text: '> ' }, { text: dialog.draft }, { text: '▌', style: theme.text.accent }]];
    case 'confirm-winner': {
      const merged = state.run.merge?.ok && state.run.merge.commit ? ` (${state.run.merge.candidate} is already merged as ${state.run.merge.commit.slice(0, 10)})` : '';
      return [
        ask(`Make ${nameOf(state, dialog.candidate)} the winner with merge = "${dialog.mode}"?${merged}`),
        keys('y / enter: do it    ←/→: merge mode (merge, squash, ff, branch, pr)    n / esc: back'),
      ];
    }
    default: {
      const unreachable: never = dialog;
      return unreachable;
    }
  }
}

function hints(state: UiState, capabilities: Capabilities): string {
  const live = state.run.status === 'running' && state.mode === 'live';
  const steer = live ? `${capabilities.stop ? '  s stop' : ''}${capabilities.message ? '  m message' : ''}` : '';
  const quit = live ? '  q cancel run' : '  q quit';
  switch (state.view) {
    case 'dashboard':
      return `↑↓ select  ⏎ details${steer}${quit}  ? keys`;
    case 'detail':
      return `esc back  ↑↓ candidate${steer}${quit}  ? keys`;
    case 'compare':
      return `↑↓ candidate  j/k/space/b scroll  n/p file${state.run.vote ? '  v vote' : ''}  ⏎ details${capabilities.chooseWinner ? '  w choose winner' : ''}${quit}  ? keys`;
    default: {
      const unreachable: never = state.view;
      return unreachable;
    }
  }
}

/** Two lines at the bottom: a notice or the latest warning, then the keys (or an open dialog). */
export function Footer({ state, width, capabilities }: { readonly state: UiState; readonly width: number; readonly capabilities: Capabilities }) {
  const theme = useTheme();
  if (state.dialog) {
    const [question, answer] = dialogLines(state, state.dialog, theme);
    return (
      <>
        <Line segments={question} width={width} />
        <Line segments={answer} width={width} />
      </>
    );
  }
  const warning = state.run.warnings[state.run.warnings.length - 1];
  const toneStyle = { info: theme.text.accent, ok: theme.status.ok, warning: theme.status.warning, error: theme.status.error };
  const status: Segment[] = state.notice
    ? [{ text: state.notice.text, style: toneStyle[state.notice.tone] }]
    : state.cancelRequested && state.run.status === 'running'
      ? [{ text: 'cancelling: stopping every agent and committing what each wrote… (Ctrl-C again quits at once)', style: theme.status.warning }]
      : warning
        ? [{ text: `warning: ${warning}`, style: theme.status.warning }]
        : [];
  return (
    <>
      <Line segments={status} width={width} />
      <Line segments={[{ text: hints(state, capabilities), style: theme.text.secondary }]} width={width} />
    </>
  );
}
