/**
 * A value of a TAP test point's YAML diagnostic block (`error: 'x'`, `failureType: 'testCodeFailure'`,
 * `error: |-` and its indented lines), read without a YAML library: only a top-level key's scalar
 * is ever needed, in the forms TAP producers write it (plain, single- or double-quoted, a literal
 * or folded block). Anything else of YAML is left unread.
 */

/** The string value of a top-level key of the block (its lines as printed, indentation kept), or undefined. */
export function yamlValue(lines: readonly string[], key: string): string | undefined {
  const indents = lines.filter((line) => line.trim() !== '').map(indentOf);
  if (indents.length === 0) return undefined;
  const base = Math.min(...indents);
  const at = lines.findIndex((line) => indentOf(line) === base && line.slice(base).startsWith(`${key}:`));
  if (at === -1) return undefined;
  const value = lines[at]!.slice(base + key.length + 1).trim();
  const following = lines.slice(at + 1);
  if (value.startsWith('|') || value.startsWith('>')) return blockScalar(following, base, value.startsWith('>'));
  if (value.startsWith("'")) return singleQuoted(value, following);
  if (value.startsWith('"')) return doubleQuoted(value);
  return value;
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** The lines indented under the key, their common indentation removed; a folded block's lines joined by spaces. */
function blockScalar(following: readonly string[], base: number, folded: boolean): string {
  const end = following.findIndex((line) => line.trim() !== '' && indentOf(line) <= base);
  const body = end === -1 ? following : following.slice(0, end);
  const indents = body.filter((line) => line.trim() !== '').map(indentOf);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  const text = body.map((line) => line.slice(cut).trimEnd());
  return (folded ? text.join(' ') : text.join('\n')).trim();
}

/** `'it''s'`, on one line or folded over several until the closing quote. */
function singleQuoted(first: string, following: readonly string[]): string {
  const parts = [first.slice(1)];
  for (const line of following) {
    if (closesSingleQuote(parts[parts.length - 1]!)) break;
    parts.push(line.trim());
  }
  const joined = parts.join(' ');
  const body = closesSingleQuote(joined) ? joined.slice(0, joined.trimEnd().length - 1) : joined;
  return body.replace(/''/g, "'");
}

/** Whether a single-quoted scalar's text (opening quote removed) ends with its closing quote, not an escaped `''`. */
function closesSingleQuote(text: string): boolean {
  const trailing = /'+$/.exec(text.trimEnd());
  return trailing !== null && trailing[0].length % 2 === 1;
}

/** `"..."` with JSON's escapes (YAML's are a superset; one JSON cannot read is kept as written). */
function doubleQuoted(value: string): string {
  try {
    const parsed: unknown = JSON.parse(value);
    if (typeof parsed === 'string') return parsed;
  } catch {
    // Not JSON: fall through to the quotes removed.
  }
  return value.replace(/^"|"$/g, '');
}
