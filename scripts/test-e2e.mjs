#!/usr/bin/env node
/**
 * `npm run test:e2e`: installs the pinned agent CLIs into .cache/e2e-clis (only when missing;
 * this step needs the npm registry), builds bestof, then runs the end-to-end tests. As root
 * with `unshare` available, the tests run in a fresh network namespace that has only
 * loopback, so no CLI can reach anything but the fake model server on 127.0.0.1, whatever
 * its settings. Elsewhere they run in the normal network, with every CLI pointed at
 * 127.0.0.1 by its settings (docs/design/agent-clis.md section 9), and say so.
 *
 *   npm run test:e2e                 # all
 *   npm run test:e2e -- -t "401"     # extra arguments go to vitest
 *   BESTOF_E2E_NETNS=0 npm run test:e2e   # do not use a network namespace
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installPinnedCli, PINNED_CLIS } from './install-e2e-clis.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
for (const name of Object.keys(PINNED_CLIS)) {
  env[`BESTOF_E2E_${name.toUpperCase()}`] = installPinnedCli(name);
  console.log(`e2e: ${name} ${PINNED_CLIS[name].version} at ${env[`BESTOF_E2E_${name.toUpperCase()}`]}`);
}
execFileSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });

const vitest = [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--project', 'e2e', ...process.argv.slice(2)];
const canIsolate =
  process.env.BESTOF_E2E_NETNS !== '0' &&
  process.platform === 'linux' &&
  process.getuid?.() === 0 &&
  spawnSync('unshare', ['-n', 'true']).status === 0 &&
  spawnSync('unshare', ['-n', 'sh', '-c', 'ip link set lo up']).status === 0;

let result;
if (canIsolate) {
  console.log('e2e: running in a network namespace with only loopback (unshare -n)');
  env.BESTOF_E2E_NETNS = '1';
  const script = 'ip link set lo up && exec "$@"';
  result = spawnSync('unshare', ['-n', 'sh', '-c', script, 'sh', process.execPath, ...vitest], { cwd: root, env, stdio: 'inherit' });
} else {
  console.log('e2e: no network namespace (needs root, Linux and unshare): the CLIs are kept on 127.0.0.1 by their settings only');
  env.BESTOF_E2E_NETNS = '0';
  result = spawnSync(process.execPath, vitest, { cwd: root, env, stdio: 'inherit' });
}
process.exit(result.status ?? 1);
