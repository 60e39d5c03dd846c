/**
 * Before a run: can this CLI authenticate? A missing key or login is reported by prepareAgent
 * with which variable or login is missing and how to fix it, before anything is created.
 * The checks only look (environment variables, whether a login file exists); they never read
 * a secret's value or change anything. When bestof cannot tell (a login kept in the macOS
 * keychain, a custom model provider), it lets the run go on and the CLI's own error is
 * classified as auth_error.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProviderSettings } from '../spec/schema.js';
import type { RealProviderKind } from './isolated-config.js';

type Env = Readonly<Record<string, string | undefined>>;

const has = (env: Env, ...names: string[]) => names.some((name) => (env[name] ?? '') !== '');

function home(env: Env): string {
  return env.HOME || homedir();
}

/** undefined when the CLI can (as far as bestof can tell) authenticate; else what is missing and how to fix it. */
export function missingCredentials(kind: RealProviderKind, settings: ProviderSettings, env: Env): string | undefined {
  switch (kind) {
    case 'claude':
      return claudeCredentials(settings, env);
    case 'codex':
      return codexCredentials(settings, env);
    case 'gemini':
      return geminiCredentials(settings, env);
  }
}

function claudeCredentials(settings: ProviderSettings, env: Env): string | undefined {
  if (has(env, 'ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY')) return undefined;
  if (settings.isolate_config) {
    return 'isolate_config = true gives Claude Code a fresh config folder without your login: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN, made once with `claude setup-token`) in the environment or in the spec\'s env';
  }
  if (process.platform === 'darwin') return undefined; // the login may be in the keychain
  const dir = env.CLAUDE_CONFIG_DIR || join(home(env), '.claude');
  if (existsSync(join(dir, '.credentials.json'))) return undefined;
  if (fileMentions(join(dir, 'settings.json'), 'apiKeyHelper')) return undefined;
  return `Claude Code has no login: no ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN is set and there is no ${join(dir, '.credentials.json')}; log in once with \`claude\`, or set ANTHROPIC_API_KEY`;
}

function codexCredentials(settings: ProviderSettings, env: Env): string | undefined {
  const codexHome = env.CODEX_HOME;
  if (codexHome && !settings.isolate_config && !existsSync(codexHome)) {
    return `CODEX_HOME points to ${codexHome}, which does not exist (Codex refuses to start); create it or unset CODEX_HOME`;
  }
  // A custom model provider (`-c model_provider=...`) brings its own key variable (env_key).
  const custom = settings.config?.model_provider;
  if (typeof custom === 'string' && custom !== 'openai') {
    const envKey = settings.config?.[`model_providers.${custom}.env_key`];
    if (typeof envKey === 'string' && !has(env, envKey)) {
      return `the Codex model provider "${custom}" reads its key from ${envKey}, which is not set; set it in the environment or in the spec's env`;
    }
    return undefined;
  }
  if (has(env, 'CODEX_API_KEY')) return undefined;
  if (settings.isolate_config) {
    if (has(env, 'OPENAI_API_KEY')) return undefined; // passed on as CODEX_API_KEY
    return 'isolate_config = true gives Codex a fresh CODEX_HOME without your login: set CODEX_API_KEY (or OPENAI_API_KEY) in the environment or in the spec\'s env';
  }
  const dir = codexHome || join(home(env), '.codex');
  if (existsSync(join(dir, 'auth.json'))) return undefined;
  if (fileMentions(join(dir, 'config.toml'), 'model_provider')) return undefined;
  const hint = has(env, 'OPENAI_API_KEY') ? ' (OPENAI_API_KEY alone is not sent by `codex exec`: use CODEX_API_KEY, `codex login --with-api-key`, or isolate_config = true)' : '';
  return `Codex has no login: CODEX_API_KEY is not set and there is no ${join(dir, 'auth.json')}; run \`codex login\` or set CODEX_API_KEY${hint}`;
}

function geminiCredentials(settings: ProviderSettings, env: Env): string | undefined {
  if (has(env, 'GEMINI_API_KEY')) return undefined;
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true' && (has(env, 'GOOGLE_API_KEY') || has(env, 'GOOGLE_CLOUD_PROJECT'))) return undefined;
  if (settings.isolate_config) {
    return 'isolate_config = true gives Gemini CLI a fresh config folder without your login: set GEMINI_API_KEY (or GOOGLE_API_KEY with GOOGLE_GENAI_USE_VERTEXAI=true) in the environment or in the spec\'s env';
  }
  if (env.GOOGLE_GENAI_USE_GCA === 'true') return undefined;
  const dir = join(env.GEMINI_CLI_HOME || home(env), '.gemini');
  if (existsSync(join(dir, 'oauth_creds.json')) || existsSync(join(dir, '.env'))) return undefined;
  if (fileMentions(join(dir, 'settings.json'), 'selectedType')) return undefined;
  return `Gemini CLI has no login: GEMINI_API_KEY is not set and there is no ${join(dir, 'oauth_creds.json')}; log in once with \`gemini\`, or set GEMINI_API_KEY`;
}

function fileMentions(path: string, text: string): boolean {
  try {
    return readFileSync(path, 'utf8').includes(text);
  } catch {
    return false;
  }
}
