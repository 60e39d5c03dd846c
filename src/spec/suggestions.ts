/**
 * Did-you-mean for unknown keys. A typo is the most common spec mistake, and "unknown key"
 * alone sends the user to the docs; the closest known key (from the schema, through
 * schema-walk.ts) or the list of keys that fit there usually makes the fix obvious.
 */
import { formatKeyPath, type PathSegment } from './key-path.js';
import { knownKeysAt } from './schema-walk.js';

export function unknownKeyMessage(tablePath: readonly PathSegment[], key: string): string {
  const where = tablePath.length === 0 ? 'at the top level' : `in [${formatKeyPath(tablePath)}]`;
  let message = `unknown key "${key}" ${where}`;
  // Early versions reserved a [bench] table here; a bench now has a spec file of its own.
  if (tablePath.length === 0 && key === 'bench')
    return `${message}: a bench has a spec file of its own, whose tasks are run specs like this one (see docs/bench.md); remove the [bench] table`;
  const known = knownKeysAt(tablePath);
  const suggestion = closestKey(key, known);
  if (suggestion !== undefined) return `${message} — did you mean "${suggestion}"?`;
  if (tablePath.length > 0 && knownKeysAt([]).includes(key)) {
    return `${message} — "${key}" is a top-level key: keys after a [table] header belong to that table, so put it above the first header`;
  }
  if (known.length > 0) message += ` (known keys: ${known.join(', ')})`;
  return message;
}

/** The known key a typo most likely meant, when one is close enough to be a fair guess. */
export function closestKey(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(typed.length, candidate.length) / 3));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edit distance where swapping two neighbouring letters counts as one edit ("tmieout"). */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = distance;
    }
  }
  return at(a.length, b.length);
}
