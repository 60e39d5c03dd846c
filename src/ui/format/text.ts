/**
 * Text for a terminal cell grid: agent output is untrusted (colours, cursor moves, tabs,
 * carriage returns), so everything the UI shows goes through `oneLine` or `cleanLines`, and
 * every cell is cut to its width so that a row never wraps.
 */

// CSI (ESC [ ... final), OSC (ESC ] ... BEL or ESC \), other two-byte ESC sequences, and the
// 8-bit CSI. Enough for what agent CLIs print; anything left over is removed as a control char.
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]|\u009b[0-?]*[ -/]*[@-~]/g;
// C0 and C1 control characters except tab and newline.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '').replace(CONTROL, '');
}

/** One display line: ANSI-stripped, whitespace (newlines and tabs too) collapsed. */
export function oneLine(text: string): string {
  return stripAnsi(text).replace(/\s+/g, ' ').trim();
}

/** Lines of a block of output, ANSI-stripped, tabs expanded, trailing blank lines dropped. */
export function cleanLines(text: string): string[] {
  const lines = stripAnsi(text.replace(/\r\n?/g, '\n')).replace(/\t/g, '  ').split('\n');
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  return lines;
}

/** Columns a code point takes: 0 for combining marks, 2 for wide East Asian and emoji, else 1. */
function codePointWidth(cp: number): number {
  if ((cp >= 0x300 && cp <= 0x36f) || (cp >= 0x200b && cp <= 0x200f) || (cp >= 0xfe00 && cp <= 0xfe0f)) return 0;
  if (
    (cp >= 0x1100 && cp <= 0x115f) ||
    (cp >= 0x2e80 && cp <= 0xa4cf) ||
    (cp >= 0xac00 && cp <= 0xd7a3) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0xfe30 && cp <= 0xfe4f) ||
    (cp >= 0xff00 && cp <= 0xff60) ||
    (cp >= 0xffe0 && cp <= 0xffe6) ||
    (cp >= 0x1f300 && cp <= 0x1faff) ||
    (cp >= 0x20000 && cp <= 0x3fffd)
  ) {
    return 2;
  }
  return 1;
}

export function displayWidth(text: string): number {
  let width = 0;
  for (const ch of text) width += codePointWidth(ch.codePointAt(0) ?? 0);
  return width;
}

/** Cuts `text` to at most `width` columns, ending with "…" when something was cut. */
export function cut(text: string, width: number): string {
  if (width <= 0) return '';
  if (displayWidth(text) <= width) return text;
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0) ?? 0);
    if (used + w > width - 1) break;
    out += ch;
    used += w;
  }
  return `${out}…`;
}

/** Exactly `width` columns: cut, then padded on the right (or on the left with `align: 'right'`). */
export function fit(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const cutText = cut(text, width);
  const pad = ' '.repeat(Math.max(0, width - displayWidth(cutText)));
  return align === 'left' ? cutText + pad : pad + cutText;
}

/**
 * Words for wrapping: a run of text with a backquoted command in it (`git merge bestof/r1/c1`
 * with its spaces, and the punctuation stuck to it) is one word, so that a command to copy is
 * never split between two lines when it fits on one.
 */
const WORD = /(?:[^\s`]*`[^`]*`)+[^\s`]*|\S+/g;

/** The longest start of `text` at most `width` columns wide. */
function take(text: string, width: number): string {
  let out = '';
  let used = 0;
  for (const ch of text) {
    const w = codePointWidth(ch.codePointAt(0) ?? 0);
    if (used + w > width) break;
    out += ch;
    used += w;
  }
  return out;
}

/**
 * Cuts a word wider than `width` into pieces that fit: after a space inside a command, else
 * after a "/" of a path, else anywhere.
 */
function breakWord(word: string, width: number): string[] {
  const pieces: string[] = [];
  let rest = word;
  while (displayWidth(rest) > width) {
    const head = take(rest, width);
    const at = Math.max(head.lastIndexOf(' '), head.lastIndexOf('/'));
    // At least one character per piece, even one wider than the width.
    const end = at > 0 ? at + 1 : Math.max(head.length, [...rest][0]?.length ?? 1);
    pieces.push(rest.slice(0, end).trimEnd());
    rest = rest.slice(end).trimStart();
  }
  if (rest !== '') pieces.push(rest);
  return pieces;
}

export interface WrapOptions {
  /**
   * A word wider than the width: cut into pieces ('break', for a screen, where a line is cut at
   * its width) or kept whole on a line of its own ('keep', for text printed to a terminal, which
   * wraps it itself and copies it back as one line).
   * @default 'break'
   */
  readonly long?: 'break' | 'keep';
  /** The first line's width, when it differs (text that starts after something else on its line). */
  readonly first?: number;
}

/**
 * `text` (one line, see `oneLine`) in lines of at most `width` columns, broken between words;
 * a backquoted command stays whole on one line whenever it fits in `width`.
 */
export function wrapText(text: string, width: number, options: WrapOptions = {}): string[] {
  const lines: string[] = [];
  let line = '';
  for (const match of text.matchAll(WORD)) {
    const word = match[0];
    const size = Math.max(1, lines.length === 0 && options.first !== undefined ? options.first : width);
    const joined = line === '' ? word : `${line} ${word}`;
    if (displayWidth(joined) <= size) {
      line = joined;
      continue;
    }
    // Nothing fits on a shorter first line: it stays empty.
    if (line !== '' || (lines.length === 0 && options.first !== undefined && options.first < width)) lines.push(line);
    line = '';
    const next = Math.max(1, width);
    if (displayWidth(word) <= next || options.long === 'keep') {
      line = word;
      continue;
    }
    const pieces = breakWord(word, next);
    lines.push(...pieces.slice(0, -1));
    line = pieces[pieces.length - 1] ?? '';
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines;
}
