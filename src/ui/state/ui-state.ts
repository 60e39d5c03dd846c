/**
 * What the terminal UI shows, as one immutable value: the engine's RunState (folded by the
 * engine's own reducer, so the screen agrees with state.json and the reports) plus what
 * only the UI needs: the selection, the view, an open dialog, a bounded activity log per
 * candidate, when each candidate started, the clock, and diffs loaded for the compare view.
 * Everything here is pure; ./ui-store.ts decides when a new snapshot is published.
 */
import type { RunEvent } from '../../engine/record/events.js';
import { initialRunState, reduceRunState, type CandidateState, type RunState } from '../../engine/record/run-state.js';
import { parseDiff, type ParsedDiff } from '../format/diff.js';
import { oneLine } from '../format/text.js';
import { formatEvent } from '../plain-reporter.js';
import type { MergeMode } from '../../spec/schema.js';

/** Lines kept per candidate for the detail view's activity log. */
export const ACTIVITY_LOG_LINES = 200;
/** An activity line longer than this is cut before it is stored (the screen is narrower anyway). */
const MAX_LINE = 400;

export type View = 'dashboard' | 'detail' | 'compare';

export type Dialog =
  | { readonly kind: 'help' }
  | { readonly kind: 'confirm-cancel' }
  | { readonly kind: 'confirm-stop'; readonly candidate: string }
  | { readonly kind: 'message'; readonly candidate: string; readonly draft: string }
  | { readonly kind: 'confirm-winner'; readonly candidate: string; readonly mode: MergeMode };

export type Tone = 'info' | 'ok' | 'warning' | 'error';
export interface Notice {
  readonly text: string;
  readonly tone: Tone;
  /** When it was shown (the UI clock); a live run's clock clears it after NOTICE_MS. */
  readonly at?: number;
}

/** How long a notice stays on a live dashboard. */
export const NOTICE_MS = 6000;

/**
 * What the compare view shows below the ranking: the selected candidate's diff, or the vote
 * about it (`v` switches; only a run with a vote has the second).
 */
export type ComparePane = 'diff' | 'vote';

export type DiffView =
  | { readonly status: 'loading' }
  | { readonly status: 'ready'; readonly diff: ParsedDiff }
  | { readonly status: 'error'; readonly message: string };

export interface UiState {
  readonly run: RunState;
  /** `live`: a run in progress (`bestof run`); `review`: a finished run (`bestof show`). */
  readonly mode: 'live' | 'review';
  readonly view: View;
  readonly selected: string | undefined;
  readonly dialog: Dialog | undefined;
  /** Per candidate, its last ACTIVITY_LOG_LINES lines, oldest first, ANSI-stripped. */
  readonly activity: Readonly<Record<string, readonly string[]>>;
  /** Per candidate, when it left the queue (ms since the epoch), for its elapsed time while it works. */
  readonly activeSince: Readonly<Record<string, number>>;
  /** The clock (ms since the epoch), advanced by `tick`. */
  readonly now: number;
  /** `[budget] max_total_cost_usd` when the front end knows it (run.started does not carry it). */
  readonly budgetUsd: number | undefined;
  readonly notice: Notice | undefined;
  readonly cancelRequested: boolean;
  /** The UI should close (the user quit, or a cancelled run has finished). */
  readonly exitRequested: boolean;
  /** Diffs for the compare view, by candidate id. */
  readonly diffs: Readonly<Record<string, DiffView>>;
  readonly diffScroll: number;
  readonly comparePane: ComparePane;
  /** The first line of the vote pane on screen. */
  readonly voteScroll: number;
  /** A winner chosen in the compare view: in progress (`ok` undefined) or done. */
  readonly choice: { readonly candidate: string; readonly mode: MergeMode; readonly ok?: boolean; readonly message?: string } | undefined;
}

export type UiAction =
  | { readonly type: 'tick'; readonly now: number }
  | { readonly type: 'move-selection'; readonly delta: number }
  | { readonly type: 'open-detail' }
  | { readonly type: 'back' }
  | { readonly type: 'open-dialog'; readonly dialog: Dialog }
  | { readonly type: 'close-dialog' }
  | { readonly type: 'edit-message'; readonly draft: string }
  | { readonly type: 'cycle-merge-mode'; readonly delta: number }
  | { readonly type: 'notice'; readonly notice: Notice | undefined }
  | { readonly type: 'cancel-requested' }
  | { readonly type: 'exit' }
  | { readonly type: 'scroll-diff'; readonly delta: number; readonly viewport: number }
  | { readonly type: 'jump-file'; readonly delta: number; readonly viewport: number }
  | { readonly type: 'toggle-compare-pane' }
  /** `lines`: how many lines the vote pane has (format/vote.ts `votePaneLines`), to stop at its end. */
  | { readonly type: 'scroll-vote'; readonly delta: number; readonly viewport: number; readonly lines: number }
  | { readonly type: 'diff-loading'; readonly candidate: string }
  | { readonly type: 'diff-loaded'; readonly candidate: string; readonly text: string }
  | { readonly type: 'diff-failed'; readonly candidate: string; readonly message: string }
  | { readonly type: 'winner-pending'; readonly candidate: string; readonly mode: MergeMode }
  | { readonly type: 'winner-result'; readonly candidate: string; readonly ok: boolean; readonly message: string };

export interface UiStateOptions {
  readonly mode: 'live' | 'review';
  /** @default undefined: the header shows spend without a budget */
  readonly budgetUsd?: number;
  /** A finished run to review (`bestof show`). */
  readonly run?: RunState;
  readonly now?: number;
}

/** The merge modes offered when choosing a winner: the spec's own first. `none` is `branch` by another name. */
export const MERGE_MODES: readonly MergeMode[] = ['merge', 'squash', 'ff', 'branch', 'pr'];

export function initialUiState(options: UiStateOptions): UiState {
  const run = options.run ?? initialRunState();
  return {
    run,
    mode: options.mode,
    view: options.mode === 'review' ? 'compare' : 'dashboard',
    selected: selectionOrder(run, options.mode === 'review' ? 'compare' : 'dashboard', options.mode)[0],
    dialog: undefined,
    activity: {},
    activeSince: {},
    now: options.now ?? 0,
    budgetUsd: options.budgetUsd,
    notice: undefined,
    cancelRequested: false,
    exitRequested: false,
    diffs: {},
    diffScroll: 0,
    comparePane: 'diff',
    voteScroll: 0,
    choice: undefined,
  };
}

export function isBusy(status: CandidateState['status']): boolean {
  return status === 'setup' || status === 'running' || status === 'checking' || status === 'reviewing';
}

export function isFinished(status: CandidateState['status']): boolean {
  return status === 'done' || status === 'failed' || status === 'stopped' || status === 'cancelled';
}

export function runIsOver(state: UiState): boolean {
  return state.run.status !== 'running' || state.mode === 'review';
}

/** Candidates in the order the current view lists them: by rank once the run is over, else as started. */
export function selectionOrder(run: RunState, view: View, mode: UiState['mode'] = 'live'): readonly string[] {
  const over = run.status !== 'running' || mode === 'review';
  if (view !== 'dashboard' && over && run.ranking.length > 0) {
    const ranked = [...run.ranking].sort((a, b) => a.rank - b.rank).map((r) => r.candidate);
    return [...ranked, ...run.order.filter((id) => !ranked.includes(id))];
  }
  return run.order;
}

/** The log with `lines` added at the end, keeping the last ACTIVITY_LOG_LINES: one copy per batch, not per line. */
function appendBounded(log: readonly string[] | undefined, lines: readonly string[]): readonly string[] {
  const kept = log ?? [];
  const drop = Math.max(0, kept.length + lines.length - ACTIVITY_LOG_LINES);
  if (drop >= kept.length) return lines.slice(lines.length - Math.min(lines.length, ACTIVITY_LOG_LINES));
  return [...kept.slice(drop), ...lines];
}

/** The activity-log line an event adds to its candidate's log, if any. */
function logLine(event: RunEvent): { readonly candidate: string; readonly line: string } | undefined {
  if (event.type === 'candidate.activity') return { candidate: event.candidate, line: oneLine(event.text).slice(0, MAX_LINE) };
  if (!('candidate' in event) || event.candidate === undefined) return undefined;
  // The plain reporter's wording, without the candidate id it starts with: the log is the candidate's own.
  const text = oneLine(formatEvent(event));
  const own = text.startsWith(`${event.candidate} `) ? text.slice(event.candidate.length + 1) : text;
  return { candidate: event.candidate, line: `· ${own}`.slice(0, MAX_LINE) };
}

/** What an event changes besides the run and the logs (few events do). */
function reduceUiFields(state: UiState, event: RunEvent): UiState {
  const run = state.run;
  switch (event.type) {
    case 'run.started':
      return { ...state, selected: state.selected ?? run.order[0], now: Math.max(state.now, Date.parse(event.t) || 0) };
    case 'candidate.status':
      return state.activeSince[event.candidate] !== undefined
        ? state
        : { ...state, activeSince: { ...state.activeSince, [event.candidate]: Date.parse(event.t) || state.now } };
    case 'run.finished':
      if (state.cancelRequested) return { ...state, exitRequested: true };
      // The live run is over: its results replace the dashboard, best first.
      return {
        ...state,
        view: 'compare',
        dialog: state.dialog?.kind === 'help' ? state.dialog : undefined,
        selected: selectionOrder(run, 'compare', state.mode)[0],
        diffScroll: 0,
      };
    default:
      return state;
  }
}

/**
 * Folds a batch of events (all that arrived since the last frame): the engine's reducer for
 * each, the UI's fields for the few events that change them, and each candidate's log once.
 */
export function reduceUiEvents(state: UiState, events: readonly RunEvent[]): UiState {
  let next = state;
  const logs = new Map<string, string[]>();
  for (const event of events) {
    const run = reduceRunState(next.run, event);
    next = reduceUiFields(run === next.run ? next : { ...next, run }, event);
    const logged = logLine(event);
    if (logged && run.candidates[logged.candidate]) {
      const lines = logs.get(logged.candidate);
      if (lines) lines.push(logged.line);
      else logs.set(logged.candidate, [logged.line]);
    }
  }
  if (logs.size === 0) return next;
  const activity = { ...next.activity };
  for (const [id, lines] of logs) activity[id] = appendBounded(activity[id], lines);
  return { ...next, activity };
}

export function reduceUiEvent(state: UiState, event: RunEvent): UiState {
  return reduceUiEvents(state, [event]);
}

function moveSelection(state: UiState, delta: number): UiState {
  const order = selectionOrder(state.run, state.view, state.mode);
  if (order.length === 0) return state;
  const at = state.selected === undefined ? -1 : order.indexOf(state.selected);
  const index = Math.min(order.length - 1, Math.max(0, at + delta));
  const selected = order[index];
  return selected === state.selected ? state : { ...state, selected, diffScroll: 0, voteScroll: 0 };
}

function readyDiff(state: UiState): ParsedDiff | undefined {
  const view = state.selected === undefined ? undefined : state.diffs[state.selected];
  return view?.status === 'ready' ? view.diff : undefined;
}

function clampScroll(state: UiState, scroll: number, viewport: number): number {
  const lines = readyDiff(state)?.lines.length ?? 0;
  return Math.max(0, Math.min(scroll, lines - Math.max(1, viewport)));
}

function jumpFile(state: UiState, delta: number, viewport: number): number {
  const files = readyDiff(state)?.files ?? [];
  const starts = files.map((f) => f.line);
  const target = delta > 0 ? starts.find((line) => line > state.diffScroll) : [...starts].reverse().find((line) => line < state.diffScroll);
  return clampScroll(state, target ?? state.diffScroll, viewport);
}

export function reduceUiAction(state: UiState, action: UiAction): UiState {
  switch (action.type) {
    case 'tick': {
      if (action.now === state.now) return state;
      const stale = state.notice?.at !== undefined && action.now - state.notice.at > NOTICE_MS;
      return { ...state, now: action.now, notice: stale ? undefined : state.notice };
    }
    case 'move-selection':
      return moveSelection(state, action.delta);
    case 'open-detail':
      return state.selected === undefined ? state : { ...state, view: 'detail', notice: undefined };
    case 'back':
      return { ...state, view: runIsOver(state) ? 'compare' : 'dashboard', notice: undefined };
    case 'open-dialog':
      return { ...state, dialog: action.dialog, notice: undefined };
    case 'close-dialog':
      return { ...state, dialog: undefined };
    case 'edit-message':
      return state.dialog?.kind === 'message' ? { ...state, dialog: { ...state.dialog, draft: action.draft } } : state;
    case 'cycle-merge-mode': {
      if (state.dialog?.kind !== 'confirm-winner') return state;
      const at = MERGE_MODES.indexOf(state.dialog.mode);
      const mode = MERGE_MODES[(at + action.delta + MERGE_MODES.length) % MERGE_MODES.length] ?? state.dialog.mode;
      return { ...state, dialog: { ...state.dialog, mode } };
    }
    case 'notice':
      return { ...state, notice: action.notice && { ...action.notice, at: state.now } };
    case 'cancel-requested':
      return { ...state, cancelRequested: true, dialog: undefined };
    case 'exit':
      return { ...state, exitRequested: true };
    case 'scroll-diff':
      return { ...state, diffScroll: clampScroll(state, state.diffScroll + action.delta, action.viewport) };
    case 'jump-file':
      return { ...state, diffScroll: jumpFile(state, action.delta, action.viewport) };
    case 'toggle-compare-pane':
      return { ...state, comparePane: state.comparePane === 'vote' || !state.run.vote ? 'diff' : 'vote', voteScroll: 0 };
    case 'scroll-vote':
      return { ...state, voteScroll: Math.max(0, Math.min(state.voteScroll + action.delta, action.lines - Math.max(1, action.viewport))) };
    case 'diff-loading':
      return { ...state, diffs: { ...state.diffs, [action.candidate]: { status: 'loading' } } };
    case 'diff-loaded':
      return { ...state, diffs: { ...state.diffs, [action.candidate]: { status: 'ready', diff: parseDiff(action.text) } } };
    case 'diff-failed':
      return { ...state, diffs: { ...state.diffs, [action.candidate]: { status: 'error', message: action.message } } };
    case 'winner-pending':
      return { ...state, dialog: undefined, choice: { candidate: action.candidate, mode: action.mode } };
    case 'winner-result':
      return {
        ...state,
        choice: state.choice ? { ...state.choice, ok: action.ok, message: action.message } : undefined,
        // A merge result stays until the next key: it is what the user asked for.
        notice: { text: action.message, tone: action.ok ? 'ok' : 'error' },
      };
    default: {
      const unreachable: never = action;
      return unreachable;
    }
  }
}
