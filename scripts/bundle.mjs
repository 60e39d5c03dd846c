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
 * Two builds:
 *
 * - The core, dist/bundle/*.cjs, in CommonJS: Node 20 keeps no compiled code between starts, and
 *   what V8 compiles can be kept and given back only for a script (vm.Script's cachedData), not for
 *   an ES module, so bin/compile-cache.js keeps it for these files (on Node 22.1 and later, Node's
 *   own compile cache does, for both kinds). With it `bestof validate` went from 142 ms to 124 ms
 *   on Node 20 (scripts/bench-startup.mjs, docs/benchmarks.md).
 * - The Ink front ends, dist/bundle/ui/*.js, in ES modules: Ink and React are ES modules (Ink's
 *   layout engine, yoga, awaits its WebAssembly at the top level), which CommonJS cannot
 *   require(). The core loads them with the two import()s of ui/load-ink-ui.ts, only for a
 *   terminal. They share no state with the core: what both use (the fold of the event log, words)
 *   is pure functions, present in both.
 *
 * Left outside both, loaded from node_modules: ink, react (with yoga's WebAssembly) and diff2html
 * (the HTML report reads its files from its package folder).
 *
 * bin/bestof.js starts dist/cli/main.js instead when the bundle is missing or older than it (a
 * `tsc` alone since the last `npm run build`), so that a stale bundle never runs in place of new code.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'bundle');
const uiOut = join(out, 'ui');
/** The modules that reach Ink and React: the core imports them with import(), from the ES build. */
const FRONT_ENDS = {
  'start-ui': join(dist, 'ui', 'start-ui.js'),
  'start-bench-ui': join(dist, 'ui', 'bench', 'start-bench-ui.js'),
};
const outside = [/^node:/, /^(ink|react|diff2html)(\/|$)/];

rmSync(out, { recursive: true, force: true });

await build({
  input: FRONT_ENDS,
  platform: 'node',
  external: outside,
  logLevel: 'warn',
  output: { dir: uiOut, format: 'esm', entryFileNames: '[name].js', chunkFileNames: '[name]-[hash].js' },
});

const frontEndFiles = new Map(Object.entries(FRONT_ENDS).map(([name, file]) => [file, join(uiOut, `${name}.js`)]));
await build({
  input: { main: join(dist, 'cli', 'main.js') },
  platform: 'node',
  external: outside,
  logLevel: 'warn',
  plugins: [
    {
      name: 'front-ends-from-the-es-build',
      // An absolute external id is written relative to the chunk that imports it (./ui/start-ui.js).
      async resolveId(source, importer, options) {
        if (importer === undefined || !source.startsWith('.')) return null;
        const resolved = await this.resolve(source, importer, { ...options, skipSelf: true });
        const frontEnd = resolved && frontEndFiles.get(resolved.id);
        return frontEnd ? { id: frontEnd, external: true } : null;
      },
    },
  ],
  output: {
    dir: out,
    format: 'cjs',
    entryFileNames: '[name].cjs',
    chunkFileNames: '[name]-[hash].cjs',
    // The file of the front ends' import()s alone, as bin/compile-cache.js wants (it leaves a file
    // that holds an import() to Node, which compiles it without a cache).
    codeSplitting: { groups: [{ name: 'load-ink-ui', test: /[\\/]dist[\\/]ui[\\/]load-ink-ui\.js$/ }] },
    // Without comments (but licences), so that "import(" in a file means the expression, and V8
    // has less to read.
    comments: { legal: true, annotation: false, jsdoc: false },
  },
});

// The core must not reach Ink or React but through those import()s: require() of an ES module
// that awaits at its top level fails, and only when the UI starts.
// And only the chunk of ui/load-ink-ui.js may hold an import(): bin/compile-cache.js compiles the
// others in a way that has no import() (a vm.Script), and leaves to Node every file that holds one.
for (const file of readdirSync(out).filter((name) => name.endsWith('.cjs'))) {
  const text = readFileSync(join(out, file), 'utf8');
  const reached = /require\("(ink|react)(\/[^"]*)?"\)/.exec(text);
  if (reached)
    throw new Error(
      `scripts/bundle.mjs: ${file} require()s ${reached[1]}: the CommonJS core may load the Ink front ends only through import() (see FRONT_ENDS)`,
    );
  if (text.includes('import(') && !file.startsWith('load-ink-ui-')) {
    throw new Error(`scripts/bundle.mjs: ${file} holds "import(": only ui/load-ink-ui.ts may import() in the core (its chunk is left to Node's own loader)`);
  }
}
