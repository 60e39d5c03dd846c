/** Reading what git printed: one-line messages for people, NUL- and newline-separated lists. */

/**
 * What git said, on one line, for a user-facing message: `fatal:`/`error:` prefixes and `hint:`
 * lines dropped, the rest joined (so a list of files git names stays in), capped at 400 characters.
 */
export function gitMessage(text: string): string {
  const joined = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l.length > 0 && !l.startsWith('hint:'))
    .map((l) => l.replace(/^(fatal|error|warning):\s*/, ''))
    .join(' ');
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
