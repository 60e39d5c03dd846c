/**
 * Semantic colour tokens. Components ask for `theme.status.error`, never for "red", so that
 * NO_COLOR (https://no-color.org) and a future light theme are one switch here. Without
 * colour, emphasis that is not colour (bold, inverse) is kept, so selection stays visible.
 */
import type { Env } from '../env.js';
export interface TextStyle {
  readonly color?: string;
  readonly bold?: boolean;
  readonly dimColor?: boolean;
  readonly inverse?: boolean;
}

export interface Theme {
  readonly text: { readonly primary: TextStyle; readonly secondary: TextStyle; readonly heading: TextStyle; readonly accent: TextStyle };
  readonly status: { readonly ok: TextStyle; readonly warning: TextStyle; readonly error: TextStyle; readonly busy: TextStyle; readonly idle: TextStyle };
  readonly score: { readonly reached: TextStyle; readonly partial: TextStyle; readonly none: TextStyle; readonly track: TextStyle };
  readonly diff: { readonly added: TextStyle; readonly removed: TextStyle; readonly hunk: TextStyle; readonly file: TextStyle };
  readonly selection: TextStyle;
  readonly dialog: TextStyle;
}

const COLOUR: Theme = {
  text: { primary: {}, secondary: { dimColor: true }, heading: { bold: true }, accent: { color: 'cyan' } },
  status: { ok: { color: 'green' }, warning: { color: 'yellow' }, error: { color: 'red' }, busy: { color: 'cyan' }, idle: { dimColor: true } },
  score: { reached: { color: 'green' }, partial: { color: 'yellow' }, none: { color: 'red' }, track: { dimColor: true } },
  diff: { added: { color: 'green' }, removed: { color: 'red' }, hunk: { color: 'cyan' }, file: { bold: true } },
  selection: { bold: true, color: 'cyan' },
  dialog: { bold: true, color: 'yellow' },
};

const MONOCHROME: Theme = {
  text: { primary: {}, secondary: {}, heading: { bold: true }, accent: {} },
  status: { ok: {}, warning: {}, error: { bold: true }, busy: {}, idle: {} },
  score: { reached: {}, partial: {}, none: {}, track: {} },
  diff: { added: {}, removed: {}, hunk: {}, file: { bold: true } },
  selection: { bold: true },
  dialog: { bold: true },
};

/** NO_COLOR set to anything but the empty string turns colour off (https://no-color.org). */
export function themeFor(env: Env): Theme {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== '' ? MONOCHROME : COLOUR;
}

export const colourTheme = COLOUR;
export const monochromeTheme = MONOCHROME;
