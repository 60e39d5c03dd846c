/**
 * Counts in words: "1 file", "3 files", never "1 files". It lives in the engine, the lowest
 * layer that every layer printing counts may import (the UI, the report, the bench and the CLI
 * all import the engine; the engine imports none of them: test/architecture.test.ts), and it
 * imports nothing, so any of them can use it.
 */

/** `count` and its noun, in the singular for exactly 1: `plural(1, 'check')` is "1 check". */
export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 ? singular : pluralForm}`;
}

/** The first `max` items and how many more: `listFew(['a', 'b', 'c', 'd'], 2)` is "a, b and 2 more". */
export function listFew(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}

/**
 * The files a candidate's commit made binary (text in base, binary in its commit: a stray NUL
 * byte), said where its diff size is: a diff shows them only as "Binary files differ". Empty when none.
 */
export function madeBinaryWords(diff: { readonly madeBinary?: readonly string[] }): string {
  const paths = diff.madeBinary ?? [];
  return paths.length > 0 ? `made binary: ${listFew(paths, 5)}` : '';
}
