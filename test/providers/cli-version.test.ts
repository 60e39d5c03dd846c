/**
 * `<cli> --version` for the report (src/providers/cli-provider.ts cliVersion): with
 * `isolate_config`, the question never writes into the user's own HOME or config folders (Codex
 * and Gemini CLI write there even for `--version`); an answer that did not come is asked again.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cliVersion } from '../../src/providers/cli-provider.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A CLI that, like Codex, writes into its config folder when asked its version; `fails`: exit 1 until the file `ok` exists. */
function fakeCli(): { bin: string; home: string; dir: string } {
  const dir = makeTempDir('bestof-version-');
  dirs.push(dir);
  const home = join(dir, 'home');
  mkdirSync(home);
  const bin = join(dir, 'fake-cli');
  writeFileSync(
    bin,
    `#!/bin/sh\n[ -f "${dir}/fail" ] && exit 1\nmkdir -p "\${CODEX_HOME:-$HOME/.codex}/tmp" && touch "\${CODEX_HOME:-$HOME/.codex}/tmp/arg0"\nmkdir -p "$HOME/.gemini" && touch "$HOME/.gemini/projects.json.tmp"\necho "fake-cli 1.2.3"\n`,
  );
  chmodSync(bin, 0o755);
  return { bin, home, dir };
}

describe('cliVersion', () => {
  it("with isolate_config, asks with a throwaway HOME: the user's folders stay untouched, and the throwaway one is removed", async () => {
    const { bin, home } = fakeCli();
    const env = { PATH: process.env.PATH, HOME: home };
    expect(await cliVersion(bin, env, { isolate: true })).toBe('fake-cli 1.2.3');
    expect(readdirSync(home)).toEqual([]);
    // Without isolation the CLI runs as the user's own (as the agent then does).
    expect(await cliVersion(bin, env)).toBe('fake-cli 1.2.3');
    expect(existsSync(join(home, '.codex', 'tmp', 'arg0'))).toBe(true);
  });

  it('asks again when a first try got no answer', async () => {
    const { bin, home, dir } = fakeCli();
    writeFileSync(join(dir, 'fail'), '');
    const env = { PATH: process.env.PATH, HOME: home };
    expect(await cliVersion(bin, env)).toBeUndefined();
    rmSync(join(dir, 'fail'));
    expect(await cliVersion(bin, env)).toBe('fake-cli 1.2.3');
  });
});
