/**
 * bin/bestof.js starts the bundle (dist/bundle/main.cjs, scripts/bundle.mjs) when it is there and
 * not older than tsc's dist/cli/main.js, and dist/cli/main.js otherwise: a `tsc` alone since the
 * last `npm run build` must never leave a stale bundle running in place of the new code.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { BESTOF_BIN, PROJECT_ROOT } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A package folder with the real launcher and two entries that say which one ran; `null`: left out. */
function fakePackage(ages: { bundle: number | null; compiled: number | null }): string {
  const dir = makeTempDir('bestof-launcher-');
  made.push(dir);
  mkdirSync(join(dir, 'bin'));
  copyFileSync(BESTOF_BIN, join(dir, 'bin', 'bestof.js'));
  copyFileSync(join(PROJECT_ROOT, 'bin', 'compile-cache.js'), join(dir, 'bin', 'compile-cache.js'));
  const now = Date.now() / 1000;
  for (const [name, folder, age] of [
    ['bundle', 'bundle', ages.bundle],
    ['compiled', 'cli', ages.compiled],
  ] as const) {
    if (age === null) continue;
    mkdirSync(join(dir, 'dist', folder), { recursive: true });
    const file = join(dir, 'dist', folder, name === 'bundle' ? 'main.cjs' : 'main.js');
    writeFileSync(file, `console.log(${JSON.stringify(name)});\n`);
    utimesSync(file, now - age, now - age);
  }
  return dir;
}

/** The compile caches (Node's or bin/compile-cache.js's) of a fake package stay in its folder. */
const envOf = (dir: string) => ({ ...process.env, NODE_COMPILE_CACHE: join(dir, 'compile-cache') });
const launch = (dir: string): string => execFileSync(process.execPath, [join(dir, 'bin', 'bestof.js')], { encoding: 'utf8', env: envOf(dir) }).trim();

describe('bin/bestof.js', () => {
  it('starts the bundle when it is as new as the compiled CLI or newer, and the compiled CLI when the bundle is older or missing', () => {
    expect(launch(fakePackage({ bundle: 10, compiled: 60 }))).toBe('bundle');
    expect(launch(fakePackage({ bundle: 60, compiled: 60 }))).toBe('bundle');
    expect(launch(fakePackage({ bundle: 60, compiled: 10 }))).toBe('compiled');
    expect(launch(fakePackage({ bundle: null, compiled: 10 }))).toBe('compiled');
    expect(launch(fakePackage({ bundle: 10, compiled: null }))).toBe('bundle');
  });

  it("turns on Node's compile cache where Node has one (22.1 and later) before it loads the CLI, in this user's cache folder, and starts with this Node's own or none", () => {
    const dir = fakePackage({ bundle: 10, compiled: 60 });
    // Node 20 has no module.enableCompileCache: a stand-in, put there before the launcher runs, says whether, when and where it was called.
    const standIn = `data:text/javascript,${encodeURIComponent("import m from 'node:module'; m.enableCompileCache = (dir) => console.log(`compile cache on, in ${dir}`);")}`;
    const withStandIn = (env: NodeJS.ProcessEnv): string[] =>
      execFileSync(process.execPath, ['--import', standIn, join(dir, 'bin', 'bestof.js')], { encoding: 'utf8', env })
        .trim()
        .split('\n');
    // NODE_COMPILE_CACHE set: Node's own reading of it (no folder given).
    expect(withStandIn(envOf(dir))).toEqual(['compile cache on, in undefined', 'bundle']);
    // Else the user's cache folder, never Node's default in the shared /tmp.
    const { NODE_COMPILE_CACHE: _unset, ...env } = envOf(dir);
    const xdg = join(dir, 'xdg-cache');
    expect(withStandIn({ ...env, XDG_CACHE_HOME: xdg })).toEqual([`compile cache on, in ${xdg}/bestof/compile-cache`, 'bundle']);
    expect(withStandIn({ ...env, XDG_CACHE_HOME: '', HOME: join(dir, 'home') })).toEqual([
      `compile cache on, in ${join(dir, 'home')}/.cache/bestof/compile-cache`,
      'bundle',
    ]);
    // And with this Node's own (none on Node 20, the real cache on 22.1 and later).
    expect(launch(dir)).toBe('bundle');
  });

  it('says how to build when neither is there, and exits 2', () => {
    const dir = fakePackage({ bundle: null, compiled: null });
    let failure: { status: number; stderr: string } | undefined;
    try {
      launch(dir);
    } catch (error) {
      failure = error as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(2);
    expect(failure?.stderr).toContain('bestof: the build is missing (dist/). Run `npm install` (or `npm run build`) in the bestof folder.');
  });

  it('runs the bundle of this build (npm run build made it)', () => {
    const out = join(makeTempDir('bestof-launcher-'), 'modules.json');
    made.push(join(out, '..'));
    const listModules = pathToFileURL(join(PROJECT_ROOT, 'scripts', 'list-modules.mjs')).href;
    execFileSync(process.execPath, [BESTOF_BIN, '--version'], {
      env: { ...process.env, BESTOF_MODULE_LIST: out, NODE_OPTIONS: `--import=${listModules}` },
      encoding: 'utf8',
    });
    const { modules } = JSON.parse(readFileSync(out, 'utf8')) as { modules: string[] };
    const dist = pathToFileURL(join(PROJECT_ROOT, 'dist')).href;
    expect(
      modules,
      'bin/bestof.js did not start dist/bundle/main.cjs: is the bundle older than dist/cli/main.js (a `tsc` alone)? `npm run build` makes both',
    ).toContain(`${dist}/bundle/main.cjs`);
    expect(modules.filter((url) => url.startsWith(`${dist}/`) && !url.startsWith(`${dist}/bundle/`))).toEqual([]);
  });
});
