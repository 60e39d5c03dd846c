#!/usr/bin/env node
/**
 * `npm run test:as-user`: the trust tier (test/trust/: the adversarial agents) run by a user without
 * root, as every user of bestof runs it.
 *
 * Why a tier of its own: CI and these machines run the tests as root, and as root nothing a
 * permission bit says stops bestof or an agent (root reads and deletes anything; bwrap takes a
 * root's capabilities for its own). Run as another user, bestof met folders it could not read or
 * delete, a sandbox that would not start inside its copy-on-write namespace, and this tier a race of
 * its own (an adversary that kills every bestof it can see killed the resume); none of it showed as
 * root.
 *
 * As root (CI): the checkout's files (tracked and untracked, not ignored: what the working tree
 * holds) are copied to a temp folder with the build (`dist/`), `node_modules` is linked there (read
 * only is enough), and the folder is given to the user `bestof-ci` (made with `useradd` when it does
 * not exist; `BESTOF_TEST_USER` names another), whose HOME the tests use. vitest runs there as that
 * user (`setpriv`), with vite's `--configLoader runner` (the default loader writes into
 * node_modules). As any other user: the trust tier here, as it is.
 *
 *   npm run test:as-user                  (needs the build: npm run build)
 *   npm run test:as-user -- -t 'index bits'    # extra arguments go to vitest
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const vitestArgs = ['vitest', 'run', '--project', 'trust', '--configLoader', 'runner', ...process.argv.slice(2)];

if (process.getuid?.() !== 0) {
  console.log(`test:as-user: running as uid ${process.getuid?.()} already`);
  const run = spawnSync('npx', vitestArgs, { cwd: root, stdio: 'inherit' });
  process.exit(run.status ?? 1);
}

const user = process.env.BESTOF_TEST_USER ?? 'bestof-ci';
const sh = (command, args) => execFileSync(command, args, { encoding: 'utf8' }).trim();
try {
  sh('id', ['-u', user]);
} catch {
  sh('useradd', ['--create-home', '--shell', '/bin/sh', user]);
}
const uid = Number(sh('id', ['-u', user]));
const gid = Number(sh('id', ['-g', user]));
const home = sh('getent', ['passwd', user]).split(':')[5];
if (!home) throw new Error(`test:as-user: ${user} has no HOME`);

const work = mkdtempSync(join(tmpdir(), 'bestof-as-user-'));
chmodSync(work, 0o755);
const copy = join(work, 'bestof');
let status = 1;
try {
  const files = sh('git', ['-C', root, 'ls-files', '--cached', '--others', '--exclude-standard', '-z'])
    .split('\0')
    .filter((f) => f !== '');
  for (const file of files) {
    mkdirSync(dirname(join(copy, file)), { recursive: true });
    try {
      cpSync(join(root, file), join(copy, file), { verbatimSymlinks: true, preserveTimestamps: true });
    } catch (error) {
      if (error.code !== 'ENOENT') throw error; // a tracked file deleted in the working tree
    }
  }
  cpSync(join(root, 'dist'), join(copy, 'dist'), { recursive: true, verbatimSymlinks: true });
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  sh('chown', ['-R', '-h', `${uid}:${gid}`, work]);
  console.log(`test:as-user: the trust tier as ${user} (uid ${uid}) in ${copy}`);
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: process.env.LANG ?? 'C.UTF-8', ...(process.env.CI ? { CI: process.env.CI } : {}) };
  const run = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${gid}`, '--init-groups', '--', 'npx', ...vitestArgs], { cwd: copy, env, stdio: 'inherit' });
  status = run.status ?? 1;
} finally {
  rmSync(work, { recursive: true, force: true });
}
process.exit(status);
