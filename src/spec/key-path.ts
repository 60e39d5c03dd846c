/**
 * Dotted key paths, the way problems name a place in a spec (`checks.items[1].timeout`).
 * Shared by the source locator, the messages, the file rules and the suggestions, so that
 * every one of them spells a key the same way.
 */

/** One step into parsed TOML: a table key or a list index. */
export type PathSegment = string | number;

/** `checks.items[1].timeout`; keys that are not bare TOML keys are quoted: `prices."gpt-4.1"`. */
export function formatKeyPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = /^[A-Za-z0-9_-]+$/.test(segment) ? segment : JSON.stringify(segment);
      out += out === '' ? key : `.${key}`;
    }
  }
  return out;
}

export function valueAtPath(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}
