/** Reading what git printed: one-line messages for people, NUL- and newline-separated lists. */

/**
 * What git said, on one line, for a user-facing message: `fatal:`/`error:` prefixes and `hint:`
 * lines dropped, the rest joined (so a list of files git names stays in; one message from the next
 * by "; "), capped at 400 characters.
 */
export function gitMessage(text: string): string {
  let joined = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line.length === 0 || line.startsWith('hint:')) continue;
    const body = line.replace(/^(fatal|error|warning):\s*/, '');
    // Each `error:` / `fatal:` line is a message of its own ("gpg failed to sign the data", then
    // "failed to write commit object"); other lines continue the one before (a wrapped paragraph).
    joined = joined === '' ? body : `${joined}${body === line ? ' ' : '; '}${body}`;
  }
  return joined.length > 400 ? `${joined.slice(0, 399)}…` : joined;
}

/** Splits NUL-separated output (`-z`), dropping the trailing empty element. */
export function splitNul(text: string): string[] {
  const parts = text.split('\0');
  if (parts.length > 0 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** Splits newline-separated output, dropping empty lines. */
export function splitLines(text: string): string[] {
  return text.split('\n').filter((l) => l.length > 0);
}
