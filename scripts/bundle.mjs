#!/usr/bin/env node
/**
 * dist/bundle/: the CLI as bin/bestof.js starts it, made by rolldown from what tsc wrote to dist/
 * (`npm run build` runs tsc, then this).
 *
 * Why: Node loads an ES module file by file, and a start of bestof loaded 150 to 270 of them (95 of
 * zod alone) before it did anything: `bestof validate` took 3.5x `node -e 0`, of which loading
 * was most (scripts/bench-startup.mjs). The bundle is one file for what every start needs and one
 * chunk per dynamic import(), so what loads lazily still does (the providers a spec does not name,
 * the planner for a spec that does not load, ...).
 *
 * Left outside the bundle, loaded from node_modules as before: the Ink UI (ink, react: loaded only
 * for the terminal view, with yoga's WebAssembly) and diff2html (the HTML report reads its files
 * from its package folder).
 *
 * bin/bestof.js starts dist/cli/main.js instead when the bundle is missing or older than it (a
 * `tsc` alone since the last `npm run build`), so that a stale bundle never runs in place of new code.
 */
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'dist', 'bundle');
rmSync(out, { recursive: true, force: true });
await build({
  input: { main: join(root, 'dist', 'cli', 'main.js') },
  platform: 'node',
  external: [/^node:/, /^(ink|react|diff2html)(\/|$)/],
  logLevel: 'warn',
  output: { dir: out, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});
