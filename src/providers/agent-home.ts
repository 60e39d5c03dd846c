/**
 * The HOME of a sandboxed agent: a folder of its own (see src/engine/sandbox/agent-sandbox.ts), seeded
 * with copies of what its CLI needs to log in (each CLI's `homeSeed`, paths relative to HOME).
 * Only files that exist are copied, each once (a token the CLI refreshes inside stays there);
 * whatever the agent writes stays in its HOME and never reaches the user's.
 *
 * A CLI whose config folder the user moved with a variable (CODEX_HOME, CLAUDE_CONFIG_DIR,
 * GEMINI_CLI_HOME, usually pointing into the user's HOME, which the sandbox hides) is seeded
 * from there, and the variable is pointed at the copy.
 */
import type { Env } from '../env.js';
import { chmod, copyFile, mkdir, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** A variable that moves `<HOME>/<relative>` elsewhere (e.g. CODEX_HOME for `.codex`). */
export interface ConfigRoot {
  readonly variable: string;
  /** The folder under HOME it replaces; "" when it replaces HOME itself (GEMINI_CLI_HOME). */
  readonly relative: string;
}

export interface HomeSeed {
  /** Paths relative to HOME, e.g. `.codex/auth.json`. */
  readonly files: readonly string[];
  readonly configRoot?: ConfigRoot | undefined;
}

/**
 * Creates `home` (mode 0700) and copies the seed files into it; returns the variables to set
 * in the agent's environment (a moved config folder, pointed at the copy).
 */
export async function seedAgentHome(home: string, seed: HomeSeed, env: Env): Promise<Record<string, string>> {
  await mkdir(home, { recursive: true, mode: 0o700 });
  const userHome = env.HOME || homedir();
  const root = seed.configRoot;
  const moved = root ? env[root.variable] : undefined;
  for (const file of seed.files) {
    let source = join(userHome, file);
    if (root && moved && (root.relative === '' || file.startsWith(`${root.relative}/`))) {
      source = join(moved, root.relative === '' ? file : file.slice(root.relative.length + 1));
    }
    await copyOnce(source, join(home, file));
  }
  if (!root || !moved) return {};
  // Codex refuses a CODEX_HOME that does not exist, even an empty one.
  await mkdir(join(home, root.relative), { recursive: true, mode: 0o700 });
  return { [root.variable]: join(home, root.relative) };
}

async function copyOnce(source: string, target: string): Promise<void> {
  try {
    const found = await stat(source);
    if (!found.isFile()) return;
    if (
      await stat(target).then(
        () => true,
        () => false,
      )
    )
      return;
    await mkdir(dirname(target), { recursive: true, mode: 0o700 });
    await copyFile(source, target);
    await chmod(target, found.mode & 0o777);
  } catch {
    // A file that cannot be read is one the CLI would not have had either: its own error says so.
  }
}
