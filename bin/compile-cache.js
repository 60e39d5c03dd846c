// What V8 compiled of the bundle's CommonJS files, kept between starts, for a Node that has no
// compile cache of its own (Node 22.1 and later have module.enableCompileCache, which
// bin/bestof.js turns on instead; Node 20 has none). With it V8 reads back what it compiled the
// last time, the functions that ran included, as Node 22 does for itself: `bestof validate` went
// from 142 ms to 124 ms on Node 20 (scripts/bench-startup.mjs, README).
//
// How: the bundle's files are CommonJS (scripts/bundle.mjs), and Node compiles each one in
// Module.prototype._compile. For the files of the bundle folder that function here compiles the
// same wrapper with a vm.Script given the kept code (cachedData), and at exit asks V8 for the code
// of every file it had to compile anew (createCachedData, after the run: the functions compiled
// lazily are in it). A file that holds an `import(` is left to Node: a vm.Script's import() needs
// an option Node 20 calls experimental (scripts/bundle.mjs keeps import() to one small file).
//
// Where: $NODE_COMPILE_CACHE (Node's own variable) or $XDG_CACHE_HOME/bestof/compile-cache or
// ~/.cache/bestof/compile-cache (userCacheFolder), a folder per Node version and bestof install. A kept file is named
// by its bundle file's name, size and change time, so a rebuilt or upgraded bundle never gets the
// code of the old one (V8 itself checks only the length of the source); files of a bundle that is gone are deleted when
// a new one is written. NODE_DISABLE_COMPILE_CACHE turns it off when it is set at all (even empty), as it
// does Node's own cache on Node 22 and later (checked there: an empty value disables it). Nothing here
// may make a start fail: a folder that cannot be read or written only means compiling as before.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { Script } from 'node:vm';

const BUNDLE_FILE = 'bundle-folder';

/** Caches what V8 compiles of the `.cjs` files of `bundleFolder` (an absolute path) from now on. */
export function cacheCompiledCode(bundleFolder) {
  if (process.env.NODE_DISABLE_COMPILE_CACHE !== undefined) return;
  const folder = cacheFolder(bundleFolder);
  if (folder === undefined) return;
  const compile = Module.prototype._compile;
  /** Files compiled without kept code: [vm.Script, where its code goes]. */
  const fresh = [];
  Module.prototype._compile = function compileWithCache(content, filename, ...rest) {
    if (dirname(filename) !== bundleFolder || !filename.endsWith('.cjs') || content.includes('import(')) {
      return compile.call(this, content, filename, ...rest);
    }
    let kept;
    try {
      kept = join(folder, keyOf(filename));
    } catch {
      return compile.call(this, content, filename, ...rest);
    }
    let cachedData;
    try {
      cachedData = readFileSync(kept);
    } catch {
      // Not kept yet.
    }
    const script = new Script(`(function (exports, require, module, __filename, __dirname) { ${content}\n});`, { filename, cachedData });
    if (cachedData === undefined || script.cachedDataRejected) fresh.push([script, kept]);
    const wrapper = script.runInThisContext({ displayErrors: true });
    return wrapper.call(this.exports, this.exports, createRequire(filename), this, filename, dirname(filename));
  };
  process.once('exit', () => {
    if (fresh.length > 0) keep(folder, bundleFolder, fresh);
  });
}

/**
 * `<file name>.<size>.<ctime in ms>`: a file written again (a rebuild, an upgrade, a reinstall) gets
 * another key. The change time, not the modification time: npm gives every file it installs the
 * same mtime (1985-10-26), so an upgrade whose main.cjs differs only in its version string would
 * keep name, size and mtime, and V8 would run the old version's code; no one can set a ctime.
 */
function keyOf(file) {
  const { size, ctimeMs } = statSync(file);
  return `${basename(file)}.${size}.${Math.trunc(ctimeMs)}`;
}

/**
 * This user's folder for compiled code: $XDG_CACHE_HOME/bestof/compile-cache, else
 * ~/.cache/bestof/compile-cache. bin/bestof.js gives it to Node's own cache on Node 22.1+ too,
 * whose default, a folder in the shared /tmp, another user of the machine could make first and fill.
 * Undefined when there is no HOME to find.
 */
export function userCacheFolder() {
  try {
    const xdg = process.env.XDG_CACHE_HOME;
    return join(xdg && isAbsolute(xdg) ? xdg : join(homedir(), '.cache'), 'bestof', 'compile-cache');
  } catch {
    return undefined;
  }
}

function cacheFolder(bundleFolder) {
  const root = process.env.NODE_COMPILE_CACHE || userCacheFolder();
  // Named apart from Node's own folders (`v22.12.0-x64-<hash>-<uid>`), which share the root on Node 22.1+.
  return root === undefined ? undefined : join(root, `bestof-${process.version}-${process.arch}-${hashOf(bundleFolder)}`);
}

/** FNV-1a of the install's path, in hex: a folder name (node:crypto would cost more to load than all of this). */
function hashOf(text) {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

function keep(folder, bundleFolder, fresh) {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    writeFileSync(join(folder, BUNDLE_FILE), bundleFolder);
    for (const [script, file] of fresh) {
      // Written aside and renamed: two bestofs starting at once must not read half a file.
      const aside = `${file}.${process.pid}.tmp`;
      try {
        writeFileSync(aside, script.createCachedData());
        renameSync(aside, file);
      } catch (error) {
        rmSync(aside, { force: true }); // half a file, on a full disk
        throw error;
      }
    }
    forgetStale(folder, bundleFolder);
  } catch {
    // A cache that cannot be written: the next start compiles, as this one did.
  }
}

function leftLongAgo(file) {
  try {
    return Date.now() - statSync(file).mtimeMs > 60_000;
  } catch {
    return false;
  }
}

/** Deletes the kept code of bundle files that changed or are gone, and the folders of installs that are gone. */
function forgetStale(folder, bundleFolder) {
  const current = new Set();
  for (const name of readdirSync(bundleFolder)) {
    if (name.endsWith('.cjs')) current.add(keyOf(join(bundleFolder, name)));
  }
  for (const name of readdirSync(folder)) {
    if (name === BUNDLE_FILE || current.has(name)) continue;
    // Another bestof's file being written stays (its rename would fail), unless it was left by one killed a while ago.
    if (name.endsWith('.tmp') && !leftLongAgo(join(folder, name))) continue;
    rmSync(join(folder, name), { force: true });
  }
  const parent = dirname(folder);
  for (const name of readdirSync(parent)) {
    const other = join(parent, name);
    if (other === folder) continue;
    let install;
    try {
      install = readFileSync(join(other, BUNDLE_FILE), 'utf8');
    } catch {
      continue;
    }
    try {
      statSync(install);
    } catch {
      rmSync(other, { recursive: true, force: true });
    }
  }
}
