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
