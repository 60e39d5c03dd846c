/** How one candidate's state reads in a cell: status glyphs, score tone and bar, check glyphs, times. */
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { CandidateState, IterationState, RunState } from '../../engine/record/run-state.js';
import { isBusy, isFinished, type UiState } from '../state/ui-state.js';
import type { TextStyle, Theme } from '../theme.js';
import { cleanLines, oneLine } from './text.js';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/** The store's clock ticks every 200 ms while a candidate is busy: one spinner frame a tick. */
const SPINNER_FRAME_MS = 200;

type Status = CandidateState['status'];

export function statusGlyph(status: Status, now: number): string {
  switch (status) {
    case 'setup':
    case 'running':
    case 'checking':
    case 'reviewing':
      return SPINNER[Math.floor(now / SPINNER_FRAME_MS) % SPINNER.length] ?? '⠋';
    case 'queued':
      return '·';
    case 'done':
      return '✓';
    case 'failed':
      return '✗';
    case 'stopped':
      return '■';
    case 'cancelled':
      return '○';
    default: {
      const unreachable: never = status;
      return unreachable;
    }
  }
}

export function statusStyle(status: Status, theme: Theme): TextStyle {
  if (isBusy(status)) return theme.status.busy;
  switch (status) {
    case 'done':
      return theme.status.ok;
    case 'failed':
      return theme.status.error;
    case 'stopped':
    case 'cancelled':
      return theme.status.warning;
    default:
      return theme.status.idle;
  }
}

export function scoreStyle(score: number | undefined, threshold: number, theme: Theme): TextStyle {
  if (score === undefined) return theme.status.idle;
  if (score >= threshold && score > 0) return theme.score.reached;
  return score > 0 ? theme.score.partial : theme.score.none;
}

export function formatScore(c: CandidateState): string {
  return c.score === undefined ? '—' : `${c.score}/${c.maxScore}`;
}

/** Cells of a score bar: how many are filled, and where the threshold mark sits (if inside the bar). */
export function scoreBar(score: number | undefined, max: number, threshold: number, width: number): { filled: string; track: string } {
  const filled = max > 0 && score !== undefined ? Math.round((Math.min(score, max) / max) * width) : 0;
  const mark = max > 0 && threshold > 0 && threshold < max ? Math.min(width - 1, Math.ceil((threshold / max) * width) - 1) : undefined;
  let track = '';
  for (let i = filled; i < width; i++) track += i === mark ? '┊' : '░';
  return { filled: '█'.repeat(filled), track };
}

/** The checks of the candidate's latest iteration that ran any, in the spec's order. */
export function latestChecks(c: CandidateState): readonly CheckOutcome[] {
  for (let i = c.iterations.length - 1; i >= 0; i--) {
    const it = c.iterations[i];
    if (it && it.checks.length > 0) return it.checks;
  }
  return [];
}

export type CheckMark = 'passed' | 'failed' | 'pending';

export function checkMarks(checks: RunState['checks'], c: CandidateState): readonly { readonly name: string; readonly mark: CheckMark }[] {
  const latest = latestChecks(c);
  return checks.map(({ name }) => {
    const outcome = latest.find((k) => k.name === name);
    return { name, mark: outcome === undefined ? 'pending' : outcome.passed ? 'passed' : 'failed' };
  });
}

export const CHECK_GLYPH: Record<CheckMark, string> = { passed: '✓', failed: '✗', pending: '·' };

export function checkStyle(mark: CheckMark, theme: Theme): TextStyle {
  return mark === 'passed' ? theme.status.ok : mark === 'failed' ? theme.status.error : theme.status.idle;
}

/** Time the candidate has worked: its final duration once finished, else since it left the queue. */
export function candidateElapsed(c: CandidateState, now: number, activeSince: number | undefined): number | undefined {
  if (isFinished(c.status)) return c.durationMs > 0 ? c.durationMs : undefined;
  if (activeSince === undefined) return undefined;
  return Math.max(0, now - activeSince);
}

export function runElapsed(state: UiState): number {
  const run = state.run;
  if (run.status !== 'running' || state.mode === 'review') return run.durationMs;
  const started = Date.parse(run.startedAt);
  return Number.isNaN(started) ? 0 : Math.max(0, state.now - started);
}

/** The row's last column: why it ended for a candidate that failed or stopped, else its last activity. */
export function activitySummary(c: CandidateState): { readonly text: string; readonly tone: 'normal' | 'warning' | 'error' | 'idle' } {
  const tamper = c.tampered.length > 0 ? `TAMPERED ${c.tampered.map((p) => p.path).join(', ')} · ` : '';
  if (c.status === 'failed') return { text: `${tamper}${c.reason ?? 'failed'}: ${oneLine(c.message ?? c.lastActivity)}`, tone: 'error' };
  if (c.status === 'stopped' || c.status === 'cancelled') return { text: `${tamper}${oneLine(c.message ?? c.reason ?? c.status)}`, tone: 'warning' };
  if (tamper) return { text: `${tamper}${oneLine(c.lastActivity)}`, tone: 'warning' };
  if (c.status === 'queued') return { text: 'waiting for a free slot', tone: 'idle' };
  return { text: `${c.phase ? `[${c.phase}] ` : ''}${oneLine(c.lastActivity)}`, tone: 'normal' };
}

/** A review verdict in a few words. */
export function reviewText(review: NonNullable<IterationState['review']>): string {
  if (review.verdict === 'lgtm') return `LGTM (+${review.points})`;
  if (review.verdict === 'refuse') return `REFUSE${review.reason ? `: ${review.reason}` : ''}`;
  return `no verdict${review.reason ? ` (${review.reason})` : ''}`;
}

/**
 * The first `maxLines` non-blank lines of a failed check's failing part (its excerpt starts at the
 * line the test runner marked as the failure: src/checks/failure-excerpt.ts), and how many lines
 * of it come after them.
 */
export function excerptHead(excerpt: string, maxLines: number): { readonly lines: readonly string[]; readonly hidden: number } {
  const lines = cleanLines(excerpt).filter((line) => line.trim() !== '');
  const shown = Math.max(0, Math.min(lines.length, maxLines));
  return { lines: lines.slice(0, shown), hidden: lines.length - shown };
}
