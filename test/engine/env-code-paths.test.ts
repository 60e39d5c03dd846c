/**
 * The paths in the user's HOME that the environment tells programs to load code from, which the
 * sandbox binds back read-only (src/engine/sandbox/env-code-paths.ts); keys and logins never.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { envCodePaths } from '../../src/engine/sandbox/env-code-paths.js';

let home = '';
afterEach(() => rmSync(home, { recursive: true, force: true }));

function makeHome(paths: string[]): string {
  home = realpathSync(mkdtempSync(join(tmpdir(), 'bestof-home-')));
  for (const path of paths) {
    mkdirSync(join(home, path, '..'), { recursive: true });
    if (path.endsWith('/')) mkdirSync(join(home, path), { recursive: true });
    else writeFileSync(join(home, path), 'x\n');
  }
  return home;
}

describe('envCodePaths', () => {
  it('names the code folders and preloads of the HOME that the variables list, each once', () => {
    const h = makeHome(['lib/', 'src/shared/', '.config/node/preload.cjs', '.config/node/hooks.mjs', '.sdkman/candidates/java/current/', '.gem/ruby/3.1/']);
    const env = {
      PYTHONPATH: `${h}/lib:/usr/lib/python3/dist-packages:${h}/src/shared:${h}/lib`,
      NODE_OPTIONS: `--max-old-space-size=4096 --require ${h}/.config/node/preload.cjs --import=${pathToFileURL(join(h, '.config/node/hooks.mjs')).href}`,
      JAVA_HOME: `${h}/.sdkman/candidates/java/current`,
      GEM_HOME: `${h}/.gem/ruby/3.1`,
    };
    expect(envCodePaths(env, h).sort()).toEqual(
      [
        `${h}/lib`,
        `${h}/src/shared`,
        `${h}/.config/node/preload.cjs`,
        `${h}/.config/node/hooks.mjs`,
        `${h}/.sdkman/candidates/java/current`,
        `${h}/.gem/ruby/3.1`,
      ].sort(),
    );
  });

  it('never names the HOME, keys and logins, a folder that holds them, a path that does not exist, or a variable that is not about code', () => {
    const h = makeHome([
      '.ssh/id_ed25519',
      '.aws/credentials',
      '.config/gcloud/creds.json',
      '.kube/config',
      '.local/share/keyrings/login.keyring',
      '.local/lib/',
      'keys/sa.json',
      'lib/',
    ]);
    const env = {
      PYTHONPATH: `${h}:${h}/.ssh:${h}/.config:${h}/.local:${h}/missing:relative/lib`,
      NODE_PATH: `${h}/.aws`,
      NODE_OPTIONS: '--require ./local.cjs',
      KUBECONFIG: `${h}/.kube/config`,
      GOOGLE_APPLICATION_CREDENTIALS: `${h}/keys/sa.json`,
      HOME: h,
    };
    expect(envCodePaths(env, h)).toEqual([]);
    expect(envCodePaths({ PYTHONPATH: '/lib' }, '/')).toEqual([]);
  });
});
