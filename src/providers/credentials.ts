/**
 * Before a run: can this CLI authenticate? Each real CLI's definition (claude.ts, codex.ts,
 * gemini.ts) has its own check, built from the helpers here; a missing key or login is
 * reported by prepareAgent with which variable or login is missing and how to fix it, before
 * anything is created. The checks only look (environment variables, whether a login file
 * exists); they never read a secret's value or change anything. When bestof cannot tell (a
 * login kept in the macOS keychain, a custom model provider), it lets the run go on and the
 * CLI's own error is classified as auth_error.
 */
import type { Env } from '../env.js';
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import type { ProviderSettings } from '../spec/schema.js';

/**
 * undefined when the CLI can (as far as bestof can tell) authenticate; else what is missing
 * and how to fix it. `env` is the agent's environment: bestof's own plus the spec's `env`.
 */
export type CredentialsCheck = (settings: ProviderSettings, env: Env) => string | undefined;

/** true when any of the variables is set to something other than "". */
export const hasVariable = (env: Env, ...names: string[]) => names.some((name) => (env[name] ?? '') !== '');

/** The agent's HOME: the one in its environment, else bestof's. */
export function homeOf(env: Env): string {
  return env.HOME || homedir();
}

/** true when the file exists and contains `text`; never throws. */
export function fileMentions(path: string, text: string): boolean {
  try {
    return readFileSync(path, 'utf8').includes(text);
  } catch {
    return false;
  }
}
