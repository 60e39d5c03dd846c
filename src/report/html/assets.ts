/**
 * diff2html's browser bundle (its UI with highlight.js, the slim build: the common languages
 * only, 300 KB instead of 1 MB) and its stylesheet, read from node_modules when a report is
 * written, so that the page carries them and opens from disk with no network. Without them (a
 * broken install) the report still has every diff, as plain text.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export interface DiffAssets {
  readonly js: string;
  readonly css: string;
}

let cached: DiffAssets | null | undefined;

/** The bundle and stylesheet, or null when they cannot be read (the report falls back to plain diffs). */
export function loadDiffAssets(): DiffAssets | null {
  if (cached !== undefined) return cached;
  try {
    const root = dirname(createRequire(import.meta.url).resolve('diff2html/package.json'));
    cached = {
      js: readFileSync(join(root, 'bundles', 'js', 'diff2html-ui-slim.min.js'), 'utf8'),
      css: readFileSync(join(root, 'bundles', 'css', 'diff2html.min.css'), 'utf8'),
    };
  } catch {
    cached = null;
  }
  return cached;
}
