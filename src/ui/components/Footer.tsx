import { plural } from '../../engine/words.js';
import { cut, displayWidth, wrapText } from '../format/text.js';
import { candidateName } from '../layout/columns.js';
import { fitSegments, type Part } from '../layout/fit-parts.js';
import type { Capabilities } from '../state/keys.js';
import type { Dialog, UiState } from '../state/ui-state.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './Line.js';

function nameOf(state: UiState, id: string): string {
  const c = state.run.candidates[id];
  return c ? candidateName(c) : id;
}

/**
 * What the candidate a user is about to make the winner scored, and whether it changed frozen
 * paths: the choice overrides the checks, so the question says what they found.
 */
function whatItScored(state: UiState, id: string): string {
  const c = state.run.candidates[id];
  if (!c) return '';
  const score = `It scored ${c.score ?? '–'}/${c.maxScore}`;
  if (c.tampered.length === 0) return `${score}.`;
  return `${score} and TAMPERED: it changed ${plural(c.tampered.length, 'frozen path')} (${c.tampered[0]?.path}${c.tampered.length > 1 ? ', …' : ''}), which the checks did not count.`;
}

/** `text` over at most `max` lines; the last one cut with "…" when there is more. */
function wrapAtMost(text: string, width: number, max: number): string[] {
  const lines = wrapText(text, width);
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max - 1), cut(lines.slice(max - 1).join(' '), width)];
}

/** Keys of a dialog: the answers always stay; what the arrows do is shortened first. */
function answerParts(dialog: Dialog): Part<never>[] {
  const gap = '    ';
  switch (dialog.kind) {
    case 'help':
      return [{ text: 'esc or any key: close this list' }];
    case 'confirm-cancel':
      return [{ text: 'y / enter: cancel the run' }, { text: 'n / esc: keep running', sep: gap }];
    case 'confirm-stop':
      return [{ text: 'y / enter: stop it' }, { text: 'n / esc: keep it running', sep: gap }];
    case 'confirm-winner':
      return [
        { text: 'y / enter: do it' },
        { text: '←/→: merge mode (merge, squash, ff, branch, pr)', short: '←/→: merge mode', sep: gap, drop: 1 },
        { text: 'n / esc: back', sep: gap },
      ];
    case 'message':
      return [];
    default: {
      const unreachable: never = dialog;
      return unreachable;
    }
  }
}

/** The question a dialog asks (wrapped: it says what will happen), then its answer keys or the message typed. */
function dialogLines(state: UiState, dialog: Dialog, theme: Theme, width: number): Segment[][] {
  const ask = (text: string): Segment[][] => wrapAtMost(text, width, 3).map((line) => [{ text: line, style: theme.dialog }]);
  const keys = (): Segment[] => fitSegments(answerParts(dialog), width).map((s) => ({ text: s.text, style: theme.text.secondary }));
  switch (dialog.kind) {
    case 'help':
      return [[], keys()];
    case 'confirm-cancel':
      return [...ask("Cancel the run? Every agent is stopped; each candidate's work is committed and kept."), keys()];
    case 'confirm-stop':
      return [...ask(`Stop ${nameOf(state, dialog.candidate)} before its next iteration? Its work is kept; the others go on.`), keys()];
    case 'message': {
      // The end of a long draft, where the typing is.
      const room = width - 3;
      const draft = displayWidth(dialog.draft) <= room ? dialog.draft : `…${tail(dialog.draft, room - 1)}`;
      return [
        ...ask(`Message to ${nameOf(state, dialog.candidate)} (added to its next prompt):`),
        [{ text: '> ' }, { text: draft }, { text: '▌', style: theme.text.accent }],
      ];
    }
    case 'confirm-winner': {
      const merged =
        state.run.merge?.ok && state.run.merge.commit ? ` (${state.run.merge.candidate} is already merged as ${state.run.merge.commit.slice(0, 10)})` : '';
      return [
        ...ask(`Make ${nameOf(state, dialog.candidate)} the winner with merge = "${dialog.mode}"? ${whatItScored(state, dialog.candidate)}${merged}`),
        keys(),
      ];
    }
    default: {
      const unreachable: never = dialog;
      return unreachable;
    }
  }
}

/** The last characters of `text` that fit in `width` columns. */
function tail(text: string, width: number): string {
  const chars = [...text];
  let out = '';
  for (let i = chars.length - 1; i >= 0; i--) {
    const next = (chars[i] ?? '') + out;
    if (displayWidth(next) > width) break;
    out = next;
  }
  return out;
}

/**
 * The keys of the screen, most useful first to stay: on a narrow terminal the others are
 * shortened or left out (`?` lists them all), and the quit and help keys always stay.
 */
function hintParts(state: UiState, capabilities: Capabilities): Part<never>[] {
  const live = state.run.status === 'running' && state.mode === 'live';
  const gap = '  ';
  const key = (text: string, drop?: number, short?: string): Part<never> => ({
    text,
    sep: gap,
    ...(drop === undefined ? {} : { drop }),
    ...(short === undefined ? {} : { short }),
  });
  const steer = live ? [...(capabilities.stop ? [key('s stop', 2)] : []), ...(capabilities.message ? [key('m message', 5)] : [])] : [];
  const quit = [key(live ? 'q cancel run' : 'q quit'), key('? keys')];
  switch (state.view) {
    case 'dashboard':
      return [key('↑↓ select', 3), key('⏎ details', 4), ...steer, ...quit];
    case 'detail':
      return [key('esc back', 1), key('↑↓ candidate', 4), ...steer, ...quit];
    case 'compare':
      return [
        key('↑↓ candidate', 3),
        key('j/k/space/b scroll', 5, 'j/k scroll'),
        key('n/p file', 6),
        ...(state.run.vote ? [key('v vote', 2)] : []),
        key('⏎ details', 4),
        ...(capabilities.chooseWinner ? [key('w choose winner', 1, 'w winner')] : []),
        ...quit,
      ];
    default: {
      const unreachable: never = state.view;
      return unreachable;
    }
  }
}

/**
 * The lines at the bottom: a notice or the latest warning (wrapped: a merge's result names the
 * command to run), then the keys; or an open dialog's question and answers. App gives the
 * screen's other lines to the view above.
 */
export function footerLines(state: UiState, capabilities: Capabilities, width: number, theme: Theme): Segment[][] {
  if (state.dialog) return dialogLines(state, state.dialog, theme, width);
  const warning = state.run.warnings[state.run.warnings.length - 1];
  const toneStyle = { info: theme.text.accent, ok: theme.status.ok, warning: theme.status.warning, error: theme.status.error };
  const status: Segment[][] = state.notice
    ? wrapAtMost(state.notice.text, width, 3).map((line) => [{ text: line, style: toneStyle[state.notice?.tone ?? 'info'] }])
    : state.cancelRequested && state.run.status === 'running'
      ? wrapAtMost('cancelling: stopping every agent and committing what each wrote… (Ctrl-C again quits at once)', width, 2).map((line) => [
          { text: line, style: theme.status.warning },
        ])
      : warning
        ? wrapAtMost(`warning: ${warning}`, width, 2).map((line) => [{ text: line, style: theme.status.warning }])
        : [[]];
  const keys = fitSegments(hintParts(state, capabilities), width).map((s) => ({ text: s.text, style: theme.text.secondary }));
  return [...status, keys];
}

export function Footer({ lines, width }: { readonly lines: readonly Segment[][]; readonly width: number }) {
  return (
    <>
      {lines.map((segments, i) => (
        <Line key={i} segments={segments} width={width} />
      ))}
    </>
  );
}
