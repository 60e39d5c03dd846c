#!/usr/bin/env node
/**
 * Installs the real agent CLIs at the versions the end-to-end tier is pinned to, each in its
 * own folder under `.cache/e2e-clis/` (gitignored), and only when that exact version is not
 * there yet. Prints one line per CLI: `<name> <version> <path of the binary>`.
 *
 *   node scripts/install-e2e-clis.mjs            # all three
 *   node scripts/install-e2e-clis.mjs codex      # only some
 *
 * The versions are pinned because each CLI's stream format, flags and offline settings
 * change between releases (see docs/design/agent-clis.md); bump them here on purpose,
 * with the fixtures recaptured.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PINNED_CLIS = {
  claude: { pkg: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { pkg: '@openai/codex', version: '0.171.0', bin: 'codex' },
  gemini: { pkg: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const CLI_CACHE = process.env.BESTOF_E2E_CLI_CACHE ?? join(root, '.cache', 'e2e-clis');

/** Installs one pinned CLI (if missing) and returns the absolute path of its binary. */
export function installPinnedCli(name) {
  const pin = PINNED_CLIS[name];
  if (!pin) throw new Error(`unknown CLI "${name}"; expected one of ${Object.keys(PINNED_CLIS).join(', ')}`);
  const dir = join(CLI_CACHE, `${name}-${pin.version}`);
  const bin = join(dir, 'node_modules', '.bin', pin.bin);
  const stamp = join(dir, 'installed.json');
  if (existsSync(bin) && existsSync(stamp)) return bin;
  mkdirSync(dir, { recursive: true });
  // A package.json of its own keeps npm from walking up into bestof's package.json.
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name: `e2e-${name}`, private: true })}\n`);
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', '--loglevel=error', `${pin.pkg}@${pin.version}`], {
    cwd: dir,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DISABLE_AUTOUPDATER: '1' },
  });
  const installed = JSON.parse(readFileSync(join(dir, 'node_modules', ...pin.pkg.split('/'), 'package.json'), 'utf8'));
  if (installed.version !== pin.version) {
    throw new Error(`${pin.pkg}: asked for ${pin.version}, npm installed ${installed.version}`);
  }
  if (!existsSync(bin)) throw new Error(`${pin.pkg}@${pin.version} installed but ${bin} is missing`);
  writeFileSync(stamp, `${JSON.stringify({ ...pin, installedAt: new Date().toISOString() })}\n`);
  return bin;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const names = process.argv.length > 2 ? process.argv.slice(2) : Object.keys(PINNED_CLIS);
  for (const name of names) {
    const bin = installPinnedCli(name);
    console.log(`${name} ${PINNED_CLIS[name].version} ${bin}`);
  }
}
