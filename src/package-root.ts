/**
 * The folder of this bestof package: package.json, bin/, dist/, configs/. Found upwards from this
 * module's own file, which is in src/ (tests), dist/ (tsc's build) or dist/bundle/ (the bundle
 * bin/bestof.js starts: scripts/bundle.mjs), so no fixed count of `..` fits them all.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let found: string | undefined;

export function packageRoot(): string {
  if (found !== undefined) return found;
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; ) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'bestof.js'))) return (found = dir);
    const up = dirname(dir);
    if (up === dir) throw new Error(`bug: no bestof package folder (package.json and bin/bestof.js) above ${here}`);
    dir = up;
  }
}
