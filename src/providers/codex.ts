/**
 * `codex`: OpenAI Codex CLI, non-interactive.
 *
 *   codex exec --json --skip-git-repo-check (--sandbox MODE | --dangerously-bypass-approvals-and-sandbox)
 *              [-m M] [-c key=value ...] [...args] -- <prompt>          (stdin closed)
 *
 * Inside bestof's sandbox `sandbox` defaults to "bypass" (`--dangerously-bypass-approvals-and-
 * sandbox`): bestof's sandbox is the boundary, and Codex's own one fails every file write once
 * bubblewrap is installed (docs/design/agent-clis.md section 11: the file_change item `failed`, the
 * turn still "completed"; classify-codex.ts reports such a turn as crashed). Without bestof's
 * sandbox the default stays "workspace-write": commands the agent runs may write inside the
 * worktree only, without network. "read-only" and "danger-full-access" are passed as they
 * are. A `sandbox` in the spec always wins. `config` entries become `-c` overrides (values written as TOML).
 * Codex reports tokens but no cost: the cost is estimated from configs/prices.toml. Codex has
 * no turn limit, so `max_turns` does not apply to it.
 */
import type { Env } from '../env.js';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { ProviderSettings } from '../spec/schema.js';
import { classifyCodex, codexEarlyStop, codexUsage } from './classify-codex.js';
import { defineCliProvider } from './cli-definition.js';
import { createCliProvider, MAX_PROMPT_ARG_BYTES, type CliAdapter, type CliOptions } from './cli-provider.js';
import { CodexStreamParser, type CodexStreamState } from './codex-stream.js';
import { fileMentions, hasVariable, homeOf } from './credentials.js';
import { estimateCost, missingPriceNote, pricesFor } from './prices.js';
import type { Provider, ProviderRequest } from './types.js';

export const CODEX_DEFAULT_SANDBOX = 'workspace-write';
export const CODEX_SANDBOXED_SANDBOX = 'bypass';

/** CODEX_API_KEY, not OPENAI_API_KEY: `codex exec` does not read the latter (see codexCredentials). */
const INSTALL_HINT = 'install the Codex CLI with `npm install -g @openai/codex`, then `codex login` (or set CODEX_API_KEY)';

/** A `-c` value as TOML: strings quoted, numbers and booleans bare. */
export function tomlValue(value: string | number | boolean): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

export function sandboxArgs(sandbox: string | undefined, sandboxed = false): string[] {
  const mode = sandbox ?? (sandboxed ? CODEX_SANDBOXED_SANDBOX : CODEX_DEFAULT_SANDBOX);
  return mode === 'bypass' ? ['--dangerously-bypass-approvals-and-sandbox'] : ['--sandbox', mode];
}

/** The model Codex will use: the spec's, a `-c model=` override, or the one in CODEX_HOME/config.toml. */
export function codexModel(settings: ProviderSettings, requestModel: string | undefined, env: Env): string | undefined {
  if (requestModel) return requestModel;
  const override = settings.config?.model;
  if (typeof override === 'string') return override;
  const home = env.CODEX_HOME ?? join(env.HOME ?? homedir(), '.codex');
  try {
    const text = readFileSync(join(home, 'config.toml'), 'utf8');
    // Only a top-level `model = "..."`, before the first [table].
    const top = text.split(/^\s*\[/m)[0] ?? '';
    return /^\s*model\s*=\s*"([^"]+)"/m.exec(top)?.[1];
  } catch {
    return undefined;
  }
}

export function codexAdapter(options: CliOptions): CliAdapter<CodexStreamState> {
  const prices = pricesFor('codex', options.prices);
  return {
    kind: 'codex',
    cli: 'Codex',
    installHint: INSTALL_HINT,
    // The login (ChatGPT or an API key) and the user's config (model, providers).
    homeSeed: ['.codex/auth.json', '.codex/config.toml'],
    configRoot: { variable: 'CODEX_HOME', relative: '.codex' },
    async isolateConfig(dir, { env }) {
      // CODEX_HOME must exist. `codex exec` reads its API key from CODEX_API_KEY; with only
      // OPENAI_API_KEY set the built-in provider sends no key, so bestof passes it on.
      const isolated: Record<string, string> = { CODEX_HOME: dir };
      const key = env.CODEX_API_KEY || env.OPENAI_API_KEY;
      if (key) isolated.CODEX_API_KEY = key;
      return { env: isolated, note: `isolated config: CODEX_HOME=${dir}` };
    },
    buildCall(settings, input) {
      const args = ['exec', '--json', '--skip-git-repo-check', ...sandboxArgs(settings.sandbox, input.sandboxed)];
      if (input.model) args.push('-m', input.model);
      for (const [key, value] of Object.entries(settings.config ?? {})) args.push('-c', `${key}=${tomlValue(value)}`);
      args.push(...settings.args);
      // Codex reads the prompt from stdin when it is "-"; otherwise stdin stays closed.
      if (Buffer.byteLength(input.prompt) > MAX_PROMPT_ARG_BYTES) return { args: [...args, '-'], input: input.prompt };
      return { args: [...args, '--', input.prompt], promptIndex: args.length + 1 };
    },
    createParser: (onActivity) => new CodexStreamParser(onActivity),
    earlyStop: codexEarlyStop,
    classify(state, process, ctx, request: ProviderRequest, note) {
      const model = codexModel(options.settings, request.model, request.env) ?? 'unknown';
      const { costUsd, missing } = estimateCost(prices, [{ model, usage: codexUsage(state) }]);
      if (missing.length > 0) note(missingPriceNote('codex', missing));
      return classifyCodex(state, process, ctx, { costUsd, costEstimated: true });
    },
  };
}

export function createCodexProvider(options: CliOptions): Provider {
  return createCliProvider(codexAdapter(options), options);
}

export const codexDefinition = defineCliProvider({
  kind: 'codex',
  installHint: INSTALL_HINT,
  missingCredentials: codexCredentials,
  createProvider: createCodexProvider,
});

function codexCredentials(settings: ProviderSettings, env: Env): string | undefined {
  const codexHome = env.CODEX_HOME;
  if (codexHome && !settings.isolate_config && !existsSync(codexHome)) {
    return `CODEX_HOME points to ${codexHome}, which does not exist (Codex refuses to start); create it or unset CODEX_HOME`;
  }
  // A custom model provider (`-c model_provider=...`) brings its own key variable (env_key).
  const custom = settings.config?.model_provider;
  if (typeof custom === 'string' && custom !== 'openai') {
    const envKey = settings.config?.[`model_providers.${custom}.env_key`];
    if (typeof envKey === 'string' && !hasVariable(env, envKey)) {
      return `the Codex model provider "${custom}" reads its key from ${envKey}, which is not set; set it in the environment or in the spec's env`;
    }
    return undefined;
  }
  if (hasVariable(env, 'CODEX_API_KEY')) return undefined;
  if (settings.isolate_config) {
    if (hasVariable(env, 'OPENAI_API_KEY')) return undefined; // passed on as CODEX_API_KEY
    return "isolate_config = true gives Codex a fresh CODEX_HOME without your login: set CODEX_API_KEY (or OPENAI_API_KEY) in the environment or in the spec's env";
  }
  const dir = codexHome || join(homeOf(env), '.codex');
  if (existsSync(join(dir, 'auth.json'))) return undefined;
  if (fileMentions(join(dir, 'config.toml'), 'model_provider')) return undefined;
  const hint = hasVariable(env, 'OPENAI_API_KEY')
    ? ' (OPENAI_API_KEY alone is not sent by `codex exec`: use CODEX_API_KEY, `codex login --with-api-key`, or isolate_config = true)'
    : '';
  return `Codex has no login: CODEX_API_KEY is not set and there is no ${join(dir, 'auth.json')}; run \`codex login\` or set CODEX_API_KEY${hint}`;
}
