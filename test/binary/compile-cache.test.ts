/**
 * bin/compile-cache.js: what V8 compiled of the bundle's CommonJS files is kept between starts on a
 * Node without a compile cache of its own (Node 20), and never serves a file other code than its own.
 *
 * Each case is a child node that calls cacheCompiledCode on a folder of .cjs files made here (a
 * stand-in for dist/bundle/) and then require()s its main.cjs; NODE_COMPILE_CACHE points the cache
 * at a temp folder. The function is called directly, so the cases hold on every Node version (the
 * launcher calls it only where Node has no module.enableCompileCache: launcher.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BESTOF_BIN, PROJECT_ROOT } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const COMPILE_CACHE = pathToFileURL(join(PROJECT_ROOT, 'bin', 'compile-cache.js')).href;

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) {
    chmodSync(dir, 0o755);
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Install {
  readonly root: string;
  readonly bundle: string;
  readonly cache: string;
}

/** A bundle folder whose main.cjs says `word` and requires a chunk that says its own. */
function install(word = 'one'): Install {
  const root = makeTempDir('bestof-compile-cache-');
  made.push(root);
  const bundle = join(root, 'bundle');
  mkdirSync(bundle);
  writeMain(bundle, word);
  writeFileSync(join(bundle, 'chunk-a1.cjs'), "'use strict';\nexports.chunkWord = () => 'chunk';\n");
  return { root, bundle, cache: join(root, 'cache') };
}

function writeMain(bundle: string, word: string): void {
  writeFileSync(
    join(bundle, 'main.cjs'),
    `'use strict';\nconst { chunkWord } = require('./chunk-a1.cjs');\nconsole.log(${JSON.stringify(word)} + ' ' + chunkWord());\n`,
  );
}

/** What a child node runs: main.cjs of the install, behind cacheCompiledCode. */
function startScript(at: Install): string {
  return `import { createRequire } from 'node:module';
import { cacheCompiledCode } from ${JSON.stringify(COMPILE_CACHE)};
cacheCompiledCode(${JSON.stringify(at.bundle)});
createRequire(import.meta.url)(${JSON.stringify(join(at.bundle, 'main.cjs'))});`;
}

/** Runs main.cjs of the install behind cacheCompiledCode; its stdout. */
function start(at: Install, env: Record<string, string> = {}): string {
  const script = startScript(at);
  const { NODE_DISABLE_COMPILE_CACHE: _ignored, ...rest } = process.env;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], {
    encoding: 'utf8',
    env: { ...rest, NODE_COMPILE_CACHE: at.cache, ...env },
  }).trim();
}

/**
 * The cache folder of the install (one per Node version and install), and what it holds. On Node
 * 22.1 and later NODE_COMPILE_CACHE also turns Node's own cache on, in folders of its own there.
 */
function kept(at: Install): { folder: string; files: string[] } {
  const folders = existsSync(at.cache) ? readdirSync(at.cache).filter((name) => name.startsWith('bestof-')) : [];
  expect(folders.length).toBeLessThanOrEqual(1);
  if (folders.length === 0) return { folder: '', files: [] };
  const folder = join(at.cache, folders[0]!);
  return { folder, files: readdirSync(folder).sort() };
}

/** Can this machine mount a tmpfs in a user and mount namespace (Linux 5.11+, user namespaces allowed)? */
function canMountTmpfs(): boolean {
  try {
    execFileSync('unshare', ['-rm', 'sh', '-c', 'mount -t tmpfs -o size=16k tmpfs /mnt'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const entryOf = (file: string): string => {
  const { size, ctimeMs } = statSync(file);
  return `${file.split('/').pop()}.${size}.${Math.trunc(ctimeMs)}`;
};

describe('bin/compile-cache.js', () => {
  it('keeps the compiled code of each file, named by the file, its size and time, and reads it back instead of writing it again', () => {
    const at = install();
    expect(start(at)).toBe('one chunk');
    const first = kept(at);
    expect(first.folder).toContain(`bestof-${process.version}-${process.arch}-`);
    expect(first.files).toEqual(['bundle-folder', entryOf(join(at.bundle, 'chunk-a1.cjs')), entryOf(join(at.bundle, 'main.cjs'))].sort());
    expect(readFileSync(join(first.folder, 'bundle-folder'), 'utf8')).toBe(at.bundle);
    // Accepted code is not written again: files dated in the past stay so (a rejected or unread one would be rewritten).
    const past = Date.now() / 1000 - 3600;
    for (const file of first.files) utimesSync(join(first.folder, file), past, past);
    expect(start(at)).toBe('one chunk');
    for (const file of first.files) expect(Math.trunc(statSync(join(first.folder, file)).mtimeMs / 1000)).toBe(Math.trunc(past));
  });

  it('never gives a rebuilt or upgraded file the code of the old one, even of the same length and time (V8 checks only the length), and forgets the old code', () => {
    const at = install('one');
    // npm installs every file with the same time (1985-10-26): an upgrade keeps name, size and mtime.
    const npmTime = new Date('1985-10-26T08:15:00Z');
    utimesSync(join(at.bundle, 'main.cjs'), npmTime, npmTime);
    expect(start(at)).toBe('one chunk');
    const before = entryOf(join(at.bundle, 'main.cjs'));
    writeMain(at.bundle, 'two');
    utimesSync(join(at.bundle, 'main.cjs'), npmTime, npmTime);
    expect(start(at)).toBe('two chunk');
    const { files } = kept(at);
    expect(files).toContain(entryOf(join(at.bundle, 'main.cjs')));
    expect(files).not.toContain(before);
  });

  it('compiles anew, and keeps the new code, when a kept file is not V8 code', () => {
    const at = install();
    start(at);
    const { folder } = kept(at);
    const main = join(folder, entryOf(join(at.bundle, 'main.cjs')));
    writeFileSync(main, 'not code at all');
    expect(start(at)).toBe('one chunk');
    expect(readFileSync(main, 'utf8')).not.toBe('not code at all');
  });

  it("leaves a file that holds an import() to Node, whose import() then works (a vm.Script's would not)", () => {
    const at = install();
    writeFileSync(join(at.bundle, 'front.mjs'), "export const word = 'front';\n");
    writeFileSync(
      join(at.bundle, 'main.cjs'),
      "'use strict';\nimport('./front.mjs').then((m) => console.log(m.word), (e) => console.log('failed: ' + e.code));\n",
    );
    expect(start(at)).toBe('front');
    expect(kept(at).files.filter((file) => file.startsWith('main.cjs'))).toEqual([]);
  });

  it("leaves another bestof's file being written, and deletes one that a killed bestof left a while ago", () => {
    const at = install('one');
    start(at);
    const { folder } = kept(at);
    const writing = join(folder, 'main.cjs.1.2.4242.tmp');
    const left = join(folder, 'main.cjs.1.2.4343.tmp');
    writeFileSync(writing, 'half');
    writeFileSync(left, 'half');
    const longAgo = Date.now() / 1000 - 600;
    utimesSync(left, longAgo, longAgo);
    writeMain(at.bundle, 'two');
    expect(start(at)).toBe('two chunk');
    expect(existsSync(writing)).toBe(true);
    expect(existsSync(left)).toBe(false);
  });

  it('deletes the folder of an install that is gone when it writes for another', () => {
    const gone = install();
    const other = install();
    const shared = join(other.root, 'shared-cache');
    start({ ...gone, cache: shared });
    rmSync(gone.bundle, { recursive: true });
    start({ ...other, cache: shared });
    const folders = readdirSync(shared).filter((name) => name.startsWith('bestof-'));
    expect(folders).toHaveLength(1);
    expect(readFileSync(join(shared, folders[0]!, 'bundle-folder'), 'utf8')).toBe(other.bundle);
  });

  it('starts as before where the cache cannot be written, and writes nothing with NODE_DISABLE_COMPILE_CACHE', () => {
    const at = install();
    expect(start(at, { NODE_DISABLE_COMPILE_CACHE: '1' })).toBe('one chunk');
    expect(existsSync(at.cache) ? readdirSync(at.cache) : []).toEqual([]);
    // Set but empty: off too, as Node's own cache reads it on Node 22 and later (by presence).
    expect(start(at, { NODE_DISABLE_COMPILE_CACHE: '' })).toBe('one chunk');
    expect(existsSync(at.cache) ? readdirSync(at.cache) : []).toEqual([]);
    writeFileSync(at.cache, 'a file where the folder would be');
    expect(start(at)).toBe('one chunk');
  });

  it.runIf(canMountTmpfs())('leaves no half-written file on a full disk', () => {
    const at = install();
    // A main.cjs whose code is larger than the 16 KB the cache may take.
    const functions = Array.from({ length: 400 }, (_, i) => `function f${i}(x) { return x * ${i} + String(x).length; }`).join('\n');
    const calls = Array.from({ length: 400 }, (_, i) => `f${i}(${i})`).join(' + ');
    writeFileSync(join(at.bundle, 'main.cjs'), `'use strict';\n${functions}\nconst sum = ${calls};\nconsole.log(sum > 0 ? 'big' : 'no');\n`);
    const script = startScript(at);
    mkdirSync(at.cache);
    // In a mount namespace of its own: a 16 KB tmpfs as the cache, listed before the namespace (and the mount) ends.
    const shell = `mount -t tmpfs -o size=16k tmpfs "$1" && NODE_COMPILE_CACHE="$1" "$2" --input-type=module -e "$3" && echo --- && find "$1" -type f -printf '%f\\n'`;
    const out = execFileSync('unshare', ['-rm', 'sh', '-c', shell, 'sh', at.cache, process.execPath, script], { encoding: 'utf8' });
    const [printed, listed] = out.split('---\n');
    expect(printed?.trim()).toBe('big');
    expect(listed?.split('\n').filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('serves the real bundle: bestof starts from kept code as it does without it', () => {
    const cache = makeTempDir('bestof-compile-cache-');
    made.push(cache);
    const { NODE_DISABLE_COMPILE_CACHE: _ignored, ...env } = process.env;
    const run = () => execFileSync(process.execPath, [BESTOF_BIN, '--version'], { encoding: 'utf8', env: { ...env, NODE_COMPILE_CACHE: cache } }).trim();
    const version = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }).version;
    expect(run()).toBe(version);
    // Kept by this file on Node 20, by Node itself on 22.1 and later: in both the folder is no longer empty.
    expect(readdirSync(cache).length).toBeGreaterThan(0);
    expect(run()).toBe(version);
  });
});
