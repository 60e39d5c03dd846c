#!/usr/bin/env node
// Thin launcher. The CLI is built by `npm install` (through `prepare`) or `npm run build`: tsc
// writes dist/, then scripts/bundle.mjs bundles it into dist/bundle/ (CommonJS files for the core,
// ES modules for the Ink front ends), which starts faster (one file for what every start needs
// instead of 150 to 270 modules). dist/cli/main.js runs when the bundle is missing or older than
// it: a `tsc` alone since the last build must not leave a stale bundle running in place of the new
// code.
import { statSync } from 'node:fs';
import module, { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cacheCompiledCode, userCacheFolder } from './compile-cache.js';

const changed = (path) => {
  try {
    return statSync(new URL(path, import.meta.url)).mtimeMs;
  } catch {
    return undefined;
  }
};
const bundled = changed('../dist/bundle/main.cjs');
const compiled = changed('../dist/cli/main.js');

// Node 22.1 and later keep what V8 compiled of the modules loaded from here on in a cache folder,
// so that the next start parses and compiles less, as TypeScript's own tsc does: NODE_COMPILE_CACHE,
// else this user's own folder (Node's default is one in the shared /tmp, which another user could
// make first). It never throws (a folder it cannot write only turns the cache off);
// NODE_DISABLE_COMPILE_CACHE (set at all) turns it off. On an older Node, ./compile-cache.js does the same for
// the bundle's CommonJS files.
const enableNodeCompileCache = () => module.enableCompileCache?.(process.env.NODE_COMPILE_CACHE ? undefined : userCacheFolder());

if (bundled !== undefined && (compiled === undefined || bundled >= compiled)) {
  if (module.enableCompileCache) enableNodeCompileCache();
  else cacheCompiledCode(fileURLToPath(new URL('../dist/bundle', import.meta.url)));
  createRequire(import.meta.url)('../dist/bundle/main.cjs');
} else {
  enableNodeCompileCache();
  import('../dist/cli/main.js').catch((error) => {
    if (error && error.code === 'ERR_MODULE_NOT_FOUND' && String(error.message).includes('dist/cli/main.js')) {
      console.error('bestof: the build is missing (dist/). Run `npm install` (or `npm run build`) in the bestof folder.');
      process.exit(2);
    }
    throw error;
  });
}
