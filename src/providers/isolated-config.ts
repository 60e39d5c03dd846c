/**
 * `isolate_config = true`: a fresh config folder for the agent CLI, so a run (in CI, say)
 * does not read or write the user's own login, settings, sessions or history. It lives in
 * the candidate's folder of the run folder and is kept across that candidate's iterations;
 * inside bestof's sandbox, which hides the run folder, that one folder is bound in read-write.
 * bestof writes only the minimal settings the CLI then needs, which each CLI's file says (its
 * adapter's `isolateConfig`: claude.ts, codex.ts, gemini.ts); the user's own folders (~/.claude,
 * ~/.codex, ~/.gemini) are never read or written, with or without isolation.
 */
import type { Env } from '../env.js';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { ProviderKind } from '../spec/schema.js';

export interface IsolatedConfig {
  /** The folder given to the CLI. */
  readonly dir: string;
  /** Variables to set in the child's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** One line for the activity stream: what bestof did. */
  readonly note: string;
}

/** How one CLI is pointed at an isolated config folder, `dir`, which exists: its variables and note. */
export type IsolateConfig = (dir: string, options: IsolationOptions) => Promise<Omit<IsolatedConfig, 'dir'>>;

/**
 * The candidate's isolated config folder: `<run folder>/candidates/<id>/<kind>-config`.
 * `artifactsDir` is `<run folder>/candidates/<id>/iteration-<n>`.
 */
export function isolatedConfigDir(kind: ProviderKind, artifactsDir: string): string {
  return join(dirname(artifactsDir), `${kind}-config`);
}

export interface IsolationOptions {
  readonly artifactsDir: string;
  /** The child's environment, to see which key is set. */
  readonly env: Env;
  /** gemini: `model.maxSessionTurns`, which Gemini CLI has no flag for. */
  readonly maxTurns?: number | undefined;
}

/** Makes `kind`'s isolated config folder (kept across iterations) and points the CLI at it. */
export async function prepareIsolatedConfig(kind: ProviderKind, isolate: IsolateConfig, options: IsolationOptions): Promise<IsolatedConfig> {
  const dir = isolatedConfigDir(kind, options.artifactsDir);
  await mkdir(dir, { recursive: true });
  return { dir, ...(await isolate(dir, options)) };
}
