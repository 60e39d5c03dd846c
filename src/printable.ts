/**
 * Text that is safe to print: what an agent wrote (its output lines, its messages, the names of
 * the files it made) reaches the plain output, report.md, `bestof show` and bench's Markdown,
 * and a terminal obeys the control sequences in it. An agent that prints ESC [ 1 A ESC [ 2 K
 * erases the line above (its own TAMPERED line), ESC ] 0 ; … BEL sets the window's title,
 * ESC ] 52 ; … writes the clipboard, and U+202E turns the rest of a line around (Trojan Source).
 *
 * - `printable`: one line. Every control character is escaped (newline too: a file name with a
 *   newline in it would print a line of its own, such as a forged "c2 score 20/20").
 * - `printableLines`: a block of lines (a check's output). Newlines are kept; CR LF and a lone CR
 *   become a newline, as the dashboard reads them (both parts are shown, neither over the other).
 * - `printableJson`: JSON text (`--json`, report.json). JSON escapes C0 itself, but neither C1 nor
 *   the bidi controls; they are escaped the JSON way, which JSON.parse reads back unchanged.
 *
 * Escaped, not removed, so that the reader sees that something was there: each character as
 * JSON writes it (`\u001b`, `\n`, `\u202e`), so that a name reads the same in report.md, in the
 * plain output and in report.json. Not caret notation (`^[`): it cannot show C1 or bidi, and `^[`
 * is common in plain text (a regular expression). Escaping the control characters one by one is
 * enough to make every sequence inert: `\u001b[2K` and `\u001b]0;title\u0007` are plain text,
 * and the sequence stays readable after its escaped ESC, so no parser of sequences is needed.
 * Backslashes are left as they are: a literal `\u001b` an agent printed is text that looks like
 * an attempt, never one, and so printable(printable(x)) === printable(x).
 *
 * One exception: a colour (SGR, ESC [ … m) is removed. Test runners and build tools print them in
 * ordinary output, the plain output has never had colours, and without it no text can be hidden
 * by one (ESC [ 8 m conceals, black on black hides). Only the 7-bit form; the 8-bit CSI (U+009B)
 * that nothing ordinary prints is escaped like any other control character.
 *
 * Tab is kept: it moves the cursor right to a tab stop, over nothing, and indents real output.
 * The bidi marks (U+200E, U+200F, U+061C) are kept too: ordinary in Arabic and Hebrew text, they
 * cannot reorder a span as the embeddings, overrides and isolates escaped here do.
 */

/** A colour or text style (SGR) in its 7-bit form: removed (see above). */
const COLOUR = '\\u001b\\[[0-9;:]*m';
/** C0 but tab and newline, DEL, C1, and the bidi embeddings, overrides and isolates. */
const CONTROLS = '\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f\\u202a-\\u202e\\u2066-\\u2069';

const IN_A_LINE = new RegExp(`${COLOUR}|[\\n${CONTROLS}]`, 'g');
const IN_A_BLOCK = new RegExp(`${COLOUR}|[${CONTROLS}]`, 'g');
/** What JSON.stringify leaves raw of the above (it escapes every character below U+0020 itself). */
const RAW_IN_JSON = /[\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

const SHORT: Readonly<Record<string, string>> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r' };

/** One character as JSON writes it in a string: `\n`, else `\u` and four hex digits. */
function escaped(ch: string): string {
  return SHORT[ch] ?? `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

/** A match of IN_A_LINE or IN_A_BLOCK: a colour goes, a control character is shown escaped. */
function replace(match: string): string {
  return match.length > 1 ? '' : escaped(match);
}

/** One line of text, safe to print: no control character, newline included, reaches the terminal. */
export function printable(text: string): string {
  return text.replace(IN_A_LINE, replace);
}

/** A block of lines, safe to print: newlines kept (CR LF and CR as newlines), every other control escaped. */
export function printableLines(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(IN_A_BLOCK, replace);
}

/** JSON text (from JSON.stringify) with C1, DEL and bidi controls escaped too; it parses to the same value. */
export function printableJson(json: string): string {
  return json.replace(RAW_IN_JSON, escaped);
}
