/**
 * The toolchain homes a process keeps when it gets a HOME of its own (the agents', the checks'):
 * by the variable that names each, the folder in the user's HOME the tool takes when it is unset.
 * Used for the environments (../plan/candidate-env.ts) and for what the checks' sandbox shows read-only
 * (./agent-sandbox.ts).
 */
import type { Env } from '../../env.js';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

const TOOLCHAIN_HOMES = { RUSTUP_HOME: '.rustup', CARGO_HOME: '.cargo', GOPATH: 'go' } as const;

export type ToolchainVar = keyof typeof TOOLCHAIN_HOMES;

/**
 * The named toolchain variables that `env` does not set, pointed at the user's own folders where
 * those exist: what the tools would take from the user's HOME, kept when a process gets a HOME of its own.
 */
export function toolchainHomes(names: readonly ToolchainVar[], env: Env = process.env): Record<string, string> {
  const userHome = env.HOME || homedir();
  const homes: Record<string, string> = {};
  for (const name of names) {
    const dir = join(userHome, TOOLCHAIN_HOMES[name]);
    if (env[name] === undefined && existsSync(dir)) homes[name] = dir;
  }
  return homes;
}
