/**
 * `gemini`: Gemini CLI in headless mode.
 *
 *   gemini --output-format stream-json --skip-trust (--yolo | --approval-mode MODE) [-m M]
 *          [...args] -p <prompt>
 *
 * Inside bestof's sandbox `approval_mode` defaults to "yolo": every tool (a shell, the tests)
 * runs unattended, since the sandbox is the boundary. Without it the default stays
 * "auto_edit": edit tools run unattended, tools that would need approval (shell commands, web
 * fetches) are not offered to the model in headless mode. "default" and "plan" are passed as
 * they are. An `approval_mode` in the spec always wins. `--skip-trust` trusts the worktree bestof made for this session only:
 * in an untrusted folder Gemini CLI silently downgrades the approval mode. `max_turns` needs
 * `isolate_config = true` (Gemini CLI has no flag for it; bestof writes
 * model.maxSessionTurns into the isolated settings). Gemini CLI reports tokens but no cost:
 * the cost is estimated from configs/prices.toml, per model that served requests.
 */
import type { Env } from '../env.js';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ProviderSettings } from '../spec/schema.js';
import { classifyGemini } from './classify-gemini.js';
import { defineCliProvider } from './cli-definition.js';
import { createCliProvider, MAX_PROMPT_ARG_BYTES, type CliAdapter, type CliOptions } from './cli-provider.js';
import { fileMentions, hasVariable, homeOf } from './credentials.js';
import { GeminiStreamParser, type GeminiStreamState } from './gemini-stream.js';
import type { IsolationOptions } from './isolated-config.js';
import { estimateCost, missingPriceNote, pricesFor } from './prices.js';
import type { Provider } from './types.js';

export const GEMINI_DEFAULT_APPROVAL_MODE = 'auto_edit';
export const GEMINI_SANDBOXED_APPROVAL_MODE = 'yolo';

const INSTALL_HINT = 'install the Gemini CLI with `npm install -g @google/gemini-cli`, then log in once with `gemini` (or set GEMINI_API_KEY)';

export function approvalArgs(mode: string | undefined, sandboxed = false): string[] {
  const chosen = mode ?? (sandboxed ? GEMINI_SANDBOXED_APPROVAL_MODE : GEMINI_DEFAULT_APPROVAL_MODE);
  return chosen === 'yolo' ? ['--yolo'] : ['--approval-mode', chosen];
}

export function geminiAdapter(options: CliOptions): CliAdapter<GeminiStreamState> {
  const prices = pricesFor('gemini', options.prices);
  return {
    kind: 'gemini',
    cli: 'Gemini CLI',
    installHint: INSTALL_HINT,
    // The login (OAuth or a key in .env) and the user's settings (the auth type).
    homeSeed: ['.gemini/settings.json', '.gemini/oauth_creds.json', '.gemini/google_accounts.json', '.gemini/.env'],
    configRoot: { variable: 'GEMINI_CLI_HOME', relative: '' },
    isolateConfig: isolateGeminiConfig,
    buildCall(settings, input) {
      const args = ['--output-format', 'stream-json', '--skip-trust', ...approvalArgs(settings.approval_mode, input.sandboxed)];
      if (input.model) args.push('-m', input.model);
      args.push(...settings.args);
      // -p is appended to whatever comes on stdin: a long prompt goes there instead.
      if (Buffer.byteLength(input.prompt) > MAX_PROMPT_ARG_BYTES) return { args: [...args, '-p', ' '], input: input.prompt };
      return { args: [...args, '-p', input.prompt], promptIndex: args.length + 1 };
    },
    createParser: (onActivity) => new GeminiStreamParser(onActivity),
    classify(state, process, ctx, _request, note) {
      const { costUsd, missing } = estimateCost(prices, state.models);
      if (missing.length > 0) note(missingPriceNote('gemini', missing));
      return classifyGemini(state, process, ctx, { costUsd, costEstimated: true });
    },
  };
}

/**
 * Gemini CLI keeps its user settings in $GEMINI_CLI_HOME/.gemini. Headless runs need the auth
 * type chosen in settings (it cannot be asked), so bestof writes it from the key that is set.
 */
async function isolateGeminiConfig(dir: string, options: IsolationOptions): Promise<{ env: Record<string, string>; note: string }> {
  const settings: Record<string, unknown> = { privacy: { usageStatisticsEnabled: false } };
  const authType = geminiAuthType(options.env);
  if (authType) settings.security = { auth: { selectedType: authType } };
  if (options.maxTurns !== undefined) settings.model = { maxSessionTurns: options.maxTurns };
  await mkdir(join(dir, '.gemini'), { recursive: true });
  await writeFile(join(dir, '.gemini', 'settings.json'), `${JSON.stringify(settings, null, 2)}\n`);
  return {
    env: { GEMINI_CLI_HOME: dir },
    note: `isolated config: GEMINI_CLI_HOME=${dir} (settings.json: auth ${authType ?? 'not set'}${options.maxTurns !== undefined ? `, maxSessionTurns ${options.maxTurns}` : ''})`,
  };
}

/** The `security.auth.selectedType` that matches the environment, if any key is there. */
export function geminiAuthType(env: Env): string | undefined {
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true' && (env.GOOGLE_API_KEY || (env.GOOGLE_CLOUD_PROJECT && env.GOOGLE_CLOUD_LOCATION))) return 'vertex-ai';
  if (env.GEMINI_API_KEY) return 'gemini-api-key';
  return undefined;
}

export function createGeminiProvider(options: CliOptions): Provider {
  return createCliProvider(geminiAdapter(options), options);
}

export const geminiDefinition = defineCliProvider({
  kind: 'gemini',
  installHint: INSTALL_HINT,
  missingCredentials: geminiCredentials,
  unworkableSettings(settings, _env, key) {
    if (settings.max_turns !== undefined && !settings.isolate_config) {
      return `${key}.max_turns: Gemini CLI has no flag for a turn limit; bestof sets model.maxSessionTurns only in an isolated config folder: add isolate_config = true, or remove max_turns`;
    }
    return undefined;
  },
  createProvider: createGeminiProvider,
});

function geminiCredentials(settings: ProviderSettings, env: Env): string | undefined {
  if (hasVariable(env, 'GEMINI_API_KEY')) return undefined;
  if (env.GOOGLE_GENAI_USE_VERTEXAI === 'true' && hasVariable(env, 'GOOGLE_API_KEY', 'GOOGLE_CLOUD_PROJECT')) return undefined;
  if (settings.isolate_config) {
    return "isolate_config = true gives Gemini CLI a fresh config folder without your login: set GEMINI_API_KEY (or GOOGLE_API_KEY with GOOGLE_GENAI_USE_VERTEXAI=true) in the environment or in the spec's env";
  }
  if (env.GOOGLE_GENAI_USE_GCA === 'true') return undefined;
  const dir = join(env.GEMINI_CLI_HOME || homeOf(env), '.gemini');
  if (existsSync(join(dir, 'oauth_creds.json')) || existsSync(join(dir, '.env'))) return undefined;
  if (fileMentions(join(dir, 'settings.json'), 'selectedType')) return undefined;
  return `Gemini CLI has no login: GEMINI_API_KEY is not set and there is no ${join(dir, 'oauth_creds.json')}; log in once with \`gemini\`, or set GEMINI_API_KEY`;
}
