/**
 * `isolate_config = true`: a fresh config folder for the agent CLI, so a run (in CI, say)
 * does not read or write the user's own login, settings, sessions or history. It lives in
 * the candidate's folder of the run folder and is kept across that candidate's iterations;
 * inside bestof's sandbox, which hides the run folder, that one folder is bound in read-write.
 * bestof writes only the minimal settings the CLI then needs; the user's own folders
 * (~/.claude, ~/.codex, ~/.gemini) are never read or written, with or without isolation.
 */
import type { Env } from '../process/env.js';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

export type RealProviderKind = 'claude' | 'codex' | 'gemini';

export interface IsolatedConfig {
  /** The folder given to the CLI. */
  readonly dir: string;
  /** Variables to set in the child's environment. */
  readonly env: Readonly<Record<string, string>>;
  /** One line for the activity stream: what bestof did. */
  readonly note: string;
}

/**
 * The candidate's isolated config folder: `<run folder>/candidates/<id>/<kind>-config`.
 * `artifactsDir` is `<run folder>/candidates/<id>/iteration-<n>`.
 */
export function isolatedConfigDir(kind: RealProviderKind, artifactsDir: string): string {
  return join(dirname(artifactsDir), `${kind}-config`);
}

export interface IsolationOptions {
  readonly artifactsDir: string;
  /** The child's environment, to see which key is set. */
  readonly env: Env;
  /** gemini: `model.maxSessionTurns`, which Gemini CLI has no flag for. */
  readonly maxTurns?: number | undefined;
}

export async function prepareIsolatedConfig(kind: RealProviderKind, options: IsolationOptions): Promise<IsolatedConfig> {
  const dir = isolatedConfigDir(kind, options.artifactsDir);
  await mkdir(dir, { recursive: true });
  switch (kind) {
    case 'claude':
      // Settings, sessions and credentials all live under CLAUDE_CONFIG_DIR; with -p and
      // ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) nothing else is needed.
      return { dir, env: { CLAUDE_CONFIG_DIR: dir }, note: `isolated config: CLAUDE_CONFIG_DIR=${dir}` };
    case 'codex': {
      // CODEX_HOME must exist. `codex exec` reads its API key from CODEX_API_KEY; with only
      // OPENAI_API_KEY set the built-in provider sends no key, so bestof passes it on.
      const env: Record<string, string> = { CODEX_HOME: dir };
      const key = options.env.CODEX_API_KEY || options.env.OPENAI_API_KEY;
      if (key) env.CODEX_API_KEY = key;
      return { dir, env, note: `isolated config: CODEX_HOME=${dir}` };
    }
    case 'gemini': {
      // Gemini CLI keeps its user settings in $GEMINI_CLI_HOME/.gemini. Headless runs need
      // the auth type chosen in settings (it cannot be asked), so bestof writes it from the key
      // that is set.
      const settings: Record<string, unknown> = { privacy: { usageStatisticsEnabled: false } };
      const authType = geminiAuthType(options.env);
      if (authType) settings.security = { auth: { selectedType: authType } };
      if (options.maxTurns !== undefined) settings.model = { maxSessionTurns: options.maxTurns };
      await mkdir(join(dir, '.gemini'), { recursive: true });
      await writeFile(join(dir, '.gemini', 'settings.json'), JSON.stringify(settings, null, 2) + '\n');
      return {
        dir,
        env: { GEMINI_CLI_HOME: dir },
        note: `isolated config: GEMINI_CLI_HOME=${dir} (settings.json: auth ${authType ?? 'not set'}${options.maxTurns !== undefined ? `, maxSessionTurns ${options.maxTurns}` : ''})`,
      };
    }
  }
}

/** The `security.auth.selectedType` that matches the environment, if any key is there. */
export function geminiAuthType(env: Env): string | undefined {
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true' && (env.GOOGLE_API_KEY || (env.GOOGLE_CLOUD_PROJECT && env.GOOGLE_CLOUD_LOCATION))) return 'vertex-ai';
  if (env.GEMINI_API_KEY) return 'gemini-api-key';
  return undefined;
}
