/**
 * What a key press means, as a pure function of the UI state: UI actions for the store, and
 * commands for the run (stop, message, cancel, choose a winner). hooks/useKeys.ts carries
 * them out; tests call this directly.
 */
import { votePaneLines } from '../format/vote.js';
import type { MergeMode } from '../../spec/schema.js';
import { isFinished, runIsOver, type UiAction, type UiState } from './ui-state.js';

/** The keys the UI uses, independent of Ink's Key type. */
export interface KeyPress {
  /** Printable text typed (a pasted string arrives whole); '' for special keys. */
  readonly input: string;
  readonly up?: boolean;
  readonly down?: boolean;
  readonly left?: boolean;
  readonly right?: boolean;
  readonly enter?: boolean;
  readonly escape?: boolean;
  /** Backspace or Delete (terminals disagree on which one the backspace key sends). */
  readonly erase?: boolean;
  readonly tab?: boolean;
  readonly pageUp?: boolean;
  readonly pageDown?: boolean;
  readonly ctrlC?: boolean;
}

export type Intent =
  | { readonly kind: 'ui'; readonly action: UiAction }
  | { readonly kind: 'stop'; readonly candidate: string }
  | { readonly kind: 'message'; readonly candidate: string; readonly text: string }
  | { readonly kind: 'cancel' }
  | { readonly kind: 'force-quit' }
  | { readonly kind: 'choose-winner'; readonly candidate: string; readonly mode: MergeMode };

/** Which commands the front end was given; a key whose command is missing says so instead. */
export interface Capabilities {
  readonly stop: boolean;
  readonly message: boolean;
  readonly chooseWinner: boolean;
}

export interface KeyContext {
  readonly capabilities: Capabilities;
  /** Lines of diff on screen, for page-wise scrolling (the vote pane has as many). */
  readonly diffViewport: number;
}

const ui = (action: UiAction): Intent => ({ kind: 'ui', action });
const notice = (text: string, tone: 'info' | 'warning' | 'error' = 'info'): Intent => ui({ type: 'notice', notice: { text, tone } });

const isYes = (key: KeyPress): boolean => key.enter === true || key.input === 'y' || key.input === 'Y';
const isNo = (key: KeyPress): boolean => key.escape === true || key.input === 'n' || key.input === 'N' || key.input === 'q';

export function interpretKey(state: UiState, key: KeyPress, context: KeyContext): Intent[] {
  if (state.dialog) return dialogKey(state, key);
  if (key.ctrlC || key.input === 'q') return quitKey(state, key);
  if (key.input === '?') return [ui({ type: 'open-dialog', dialog: { kind: 'help' } })];
  switch (state.view) {
    case 'dashboard':
      return dashboardKey(state, key, context);
    case 'detail':
      if (key.escape || key.erase || key.left) return [ui({ type: 'back' })];
      return dashboardKey(state, key, context);
    case 'compare':
      return compareKey(state, key, context);
    default: {
      const unreachable: never = state.view;
      return unreachable;
    }
  }
}

function quitKey(state: UiState, key: KeyPress): Intent[] {
  if (runIsOver(state)) return [ui({ type: 'exit' })];
  if (state.cancelRequested) {
    return key.ctrlC
      ? [{ kind: 'force-quit' }]
      : [notice('already cancelling: every agent is being stopped and its work kept; Ctrl-C again quits at once', 'warning')];
  }
  return [ui({ type: 'open-dialog', dialog: { kind: 'confirm-cancel' } })];
}

function dialogKey(state: UiState, key: KeyPress): Intent[] {
  const dialog = state.dialog;
  const close = ui({ type: 'close-dialog' });
  switch (dialog?.kind) {
    case undefined:
      return [];
    case 'help':
      return key.ctrlC ? [close, ...quitKey(state, key)] : [close];
    case 'confirm-cancel':
      if (isYes(key) || key.ctrlC) return [{ kind: 'cancel' }];
      return isNo(key) ? [close] : [];
    case 'confirm-stop':
      if (isYes(key)) return [close, { kind: 'stop', candidate: dialog.candidate }];
      if (key.ctrlC) return quitKey({ ...state, dialog: undefined }, key);
      return isNo(key) ? [close] : [];
    case 'confirm-winner':
      if (isYes(key)) return [{ kind: 'choose-winner', candidate: dialog.candidate, mode: dialog.mode }];
      if (key.left || key.right || key.tab) return [ui({ type: 'cycle-merge-mode', delta: key.left ? -1 : 1 })];
      if (key.ctrlC) return [close];
      return isNo(key) ? [close] : [];
    case 'message': {
      if (key.ctrlC) return quitKey({ ...state, dialog: undefined }, key);
      if (key.escape) return [close];
      if (key.enter) return dialog.draft.trim() === '' ? [close] : [close, { kind: 'message', candidate: dialog.candidate, text: dialog.draft.trim() }];
      if (key.erase) return [ui({ type: 'edit-message', draft: [...dialog.draft].slice(0, -1).join('') })];
      // eslint-disable-next-line no-control-regex
      const typed = key.input.replace(/[\u0000-\u001f\u007f]/g, '');
      return typed === '' ? [] : [ui({ type: 'edit-message', draft: dialog.draft + typed })];
    }
    default: {
      const unreachable: never = dialog;
      return unreachable;
    }
  }
}

function dashboardKey(state: UiState, key: KeyPress, context: KeyContext): Intent[] {
  if (key.up || key.input === 'k') return [ui({ type: 'move-selection', delta: -1 })];
  if (key.down || key.input === 'j') return [ui({ type: 'move-selection', delta: 1 })];
  if (key.enter) return [ui({ type: 'open-detail' })];
  const id = state.selected;
  const candidate = id === undefined ? undefined : state.run.candidates[id];
  if (!id || !candidate) return [];
  if (key.input === 's') {
    if (!context.capabilities.stop)
      return [notice('stopping one candidate is not available in this version; q cancels the whole run (every candidate keeps its work)', 'warning')];
    if (isFinished(candidate.status)) return [notice(`${id} has already finished (${candidate.status})`)];
    return [ui({ type: 'open-dialog', dialog: { kind: 'confirm-stop', candidate: id } })];
  }
  if (key.input === 'm') {
    if (!context.capabilities.message) return [notice('messages to a running agent are not available in this version', 'warning')];
    if (isFinished(candidate.status)) return [notice(`${id} has already finished (${candidate.status}); a message would never be read`)];
    return [ui({ type: 'open-dialog', dialog: { kind: 'message', candidate: id, draft: '' } })];
  }
  if (state.view === 'detail' && runIsOver(state)) return compareKey(state, key, context);
  return [];
}

function compareKey(state: UiState, key: KeyPress, context: KeyContext): Intent[] {
  const page = Math.max(1, context.diffViewport - 1);
  const viewport = context.diffViewport;
  // j k space b scroll the pane on screen: the vote pane's lines, or the diff.
  const voteShown = state.comparePane === 'vote' && state.run.vote !== undefined;
  const scroll = (delta: number): Intent[] =>
    voteShown
      ? [ui({ type: 'scroll-vote', delta, viewport, lines: votePaneLines(state.run, state.selected).length })]
      : [ui({ type: 'scroll-diff', delta, viewport })];
  if (key.up) return [ui({ type: 'move-selection', delta: -1 })];
  if (key.down) return [ui({ type: 'move-selection', delta: 1 })];
  if (key.enter && state.view === 'compare') return [ui({ type: 'open-detail' })];
  if (key.input === 'v' && state.view === 'compare') {
    if (!state.run.vote) return [notice('this run had no vote (`[vote] enabled = true` in the spec asks for one)')];
    return [ui({ type: 'toggle-compare-pane' })];
  }
  if (key.input === 'j') return scroll(1);
  if (key.input === 'k') return scroll(-1);
  if (key.pageDown || key.input === ' ') return scroll(page);
  if (key.pageUp || key.input === 'b') return scroll(-page);
  if (key.input === 'n' && !voteShown) return [ui({ type: 'jump-file', delta: 1, viewport: context.diffViewport })];
  if (key.input === 'p' && !voteShown) return [ui({ type: 'jump-file', delta: -1, viewport: context.diffViewport })];
  if (key.input === 'w') return chooseWinnerKey(state, context);
  return [];
}

function chooseWinnerKey(state: UiState, context: KeyContext): Intent[] {
  const id = state.selected;
  const candidate = id === undefined ? undefined : state.run.candidates[id];
  if (!id || !candidate) return [];
  if (!context.capabilities.chooseWinner) return [notice('choosing another winner is not available here', 'warning')];
  if (state.choice && state.choice.ok === undefined) return [notice(`already merging ${state.choice.candidate}; wait for it to finish`, 'warning')];
  if (!candidate.commit) return [notice(`${id} has no commit: it made no changes, so there is nothing to merge`, 'warning')];
  if (state.run.winner === id && state.run.merge?.ok && state.choice === undefined) return [notice(`${id} is already the winner (${state.run.merge.message})`)];
  const mode: MergeMode = state.run.mergeMode === 'none' ? 'branch' : state.run.mergeMode;
  return [ui({ type: 'open-dialog', dialog: { kind: 'confirm-winner', candidate: id, mode } })];
}
