/**
 * Whether a command shows the Ink UI or prints plain text. On its own, without the UI side of
 * ./interactive-ui.ts (the engine's merge code, git diffs), so that `bestof show` piped to a file
 * decides without loading them (scripts/bench-startup.mjs, test/binary/startup-imports.test.ts).
 */
import type { Env } from '../env.js';

/** CI=true (and CI=1…) but not CI=false or CI=0, the same test as Ink's own (is-in-ci). */
function inCi(env: Env): boolean {
  return ['CI', 'CONTINUOUS_INTEGRATION'].some((key) => env[key] !== undefined && env[key] !== '0' && env[key] !== 'false');
}

/**
 * The Ink UI only on an interactive terminal: stdout and stdin are TTYs, no `--json` or
 * `--no-tui`, TERM is not "dumb", and not in CI (where Ink would print only its last frame).
 */
export function wantsInteractiveUi(flags: { readonly json?: boolean; readonly noTui?: boolean }, env: Env = process.env): boolean {
  if (flags.json || flags.noTui) return false;
  if (!process.stdout.isTTY || !process.stdin.isTTY) return false;
  return env.TERM !== 'dumb' && !inCi(env);
}
