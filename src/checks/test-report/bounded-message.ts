/**
 * A test's failure message as the reports and the retry prompt show it: its first lines, bounded,
 * so that one runner's 5000-line stack trace cannot fill a report or a prompt.
 */

/** At most this many lines of a message. */
export const MESSAGE_MAX_LINES = 12;
/** At most this many characters of a message, its cut mark included. */
export const MESSAGE_MAX_CHARS = 2000;

const CUT_MARK = '…';

/**
 * The text without its blank lines at either end, cut at MESSAGE_MAX_LINES lines and
 * MESSAGE_MAX_CHARS characters (a cut is marked with an ellipsis); undefined when nothing is left.
 */
export function boundedMessage(text: string | undefined): string | undefined {
  if (text === undefined) return undefined;
  // Only the head is ever kept: look at no more of a huge text than the bound needs.
  const head = text.slice(0, MESSAGE_MAX_CHARS * 2 + 1);
  const lines = head
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd());
  while (lines.length > 0 && lines[0] === '') lines.shift();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return undefined;
  let cut = head.length < text.length || lines.length > MESSAGE_MAX_LINES;
  let message = lines.slice(0, MESSAGE_MAX_LINES).join('\n');
  if (message.length > MESSAGE_MAX_CHARS - CUT_MARK.length) {
    message = message.slice(0, MESSAGE_MAX_CHARS - CUT_MARK.length);
    cut = true;
  }
  return cut ? `${message}${CUT_MARK}` : message;
}

/** Two parts of a message (a one-line summary and the detail), the detail left out when it only repeats the summary. */
export function joinedMessage(summary: string | undefined, detail: string | undefined): string | undefined {
  const first = summary?.trim() ?? '';
  const second = detail?.trim() ?? '';
  if (first === '') return boundedMessage(second);
  if (second === '' || second.startsWith(first)) return boundedMessage(second === '' ? first : second);
  return boundedMessage(`${first}\n${second}`);
}
