/**
 * Which provider kinds this version can run, how to check before a run that a candidate's
 * agent can start, and how to create its Provider. The engine asks only this module, so a
 * new provider is one file plus an entry here.
 */
import { access, constants } from 'node:fs/promises';
import { delimiter, join, resolve } from 'node:path';
import type { ProviderKind, ProviderSettings } from '../spec/schema.js';
import { createClaudeProvider } from './claude.js';
import { createCodexProvider } from './codex.js';
import { createCommandProvider } from './command.js';
import { missingCredentials } from './credentials.js';
import { createGeminiProvider } from './gemini.js';
import type { RealProviderKind } from './isolated-config.js';
import type { PriceTable } from './prices.js';
import { createScriptProvider } from './script.js';
import { loadScript, type Script } from './script-steps.js';
import type { Provider } from './types.js';

export const AVAILABLE_PROVIDERS: readonly ProviderKind[] = ['claude', 'codex', 'gemini', 'command', 'script'];

/** What the planner resolved for one candidate's agent, before anything runs. */
export interface PreparedAgent {
  readonly script?: Script;
  /** Absolute path of the program to run. */
  readonly command?: string;
}

export type PrepareResult = { ok: true; agent: PreparedAgent } | { ok: false; problem: string };

export async function findOnPath(program: string, pathVariable = process.env.PATH ?? ''): Promise<string | undefined> {
  for (const dir of pathVariable.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, program);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this folder
    }
  }
  return undefined;
}

const INSTALL_HINTS: Record<string, string> = {
  claude: 'install Claude Code with `npm install -g @anthropic-ai/claude-code`, then log in once with `claude`',
  codex: 'install the Codex CLI with `npm install -g @openai/codex`, then `codex login` (or set OPENAI_API_KEY)',
  gemini: 'install the Gemini CLI with `npm install -g @google/gemini-cli`, then log in once with `gemini` (or set GEMINI_API_KEY)',
};

export function installHint(program: string): string {
  return INSTALL_HINTS[program] ?? 'install it, or give its path (relative to the spec file)';
}

/**
 * Checks that a candidate's agent can start (the script parses, the CLI exists) and resolves
 * its paths. `key` is the dotted spec key for messages; `scripts` caches parsed script files.
 */
export async function prepareAgent(
  settings: ProviderSettings,
  options: { specDir: string; key: string; scripts: Map<string, Script> },
): Promise<PrepareResult> {
  const { key } = options;
  if (!AVAILABLE_PROVIDERS.includes(settings.kind)) {
    return {
      ok: false,
      problem: `${key}.kind: the "${settings.kind}" provider is not available in this version of bestof; use kind = "claude", "codex", "gemini", "command" (any CLI) or "script"`,
    };
  }
  if (settings.kind === 'claude' || settings.kind === 'codex' || settings.kind === 'gemini') {
    return prepareRealAgent(settings.kind, settings, options);
  }
  if (settings.kind === 'script') {
    const path = resolve(options.specDir, settings.script ?? '');
    const cached = options.scripts.get(path);
    if (cached) return { ok: true, agent: { script: cached } };
    const loaded = await loadScript(path);
    if (!loaded.ok) return { ok: false, problem: `${key}.script: ${loaded.message}` };
    options.scripts.set(path, loaded.script);
    return { ok: true, agent: { script: loaded.script } };
  }
  // kind = "command"
  const program = settings.command ?? '';
  if (program.includes('/')) {
    const command = resolve(options.specDir, program);
    try {
      await access(command, constants.X_OK);
    } catch {
      return { ok: false, problem: `${key}.command: ${command} does not exist or is not executable (paths are relative to the spec file; chmod +x it)` };
    }
    return { ok: true, agent: { command } };
  }
  const command = await findOnPath(program, settings.env.PATH ?? process.env.PATH);
  if (!command) return { ok: false, problem: `${key}.command: "${program}" was not found on PATH; ${installHint(program)}` };
  return { ok: true, agent: { command } };
}

/**
 * A real agent CLI: its binary (`command` in the spec, else the CLI's own name on PATH), a
 * login or key it can use, and settings that cannot work (told before anything is created).
 */
async function prepareRealAgent(
  kind: RealProviderKind,
  settings: ProviderSettings,
  options: { specDir: string; key: string },
): Promise<PrepareResult> {
  const { key } = options;
  const env = { ...process.env, ...settings.env };
  let command: string | undefined;
  if (settings.command?.includes('/')) {
    command = resolve(options.specDir, settings.command);
    try {
      await access(command, constants.X_OK);
    } catch {
      return { ok: false, problem: `${key}.command: ${command} does not exist or is not executable; ${installHint(kind)}` };
    }
  } else {
    const program = settings.command ?? kind;
    command = await findOnPath(program, env.PATH);
    if (!command) return { ok: false, problem: `${key}: the ${kind} CLI ("${program}") was not found on PATH; ${installHint(kind)}` };
  }
  const missing = missingCredentials(kind, settings, env);
  if (missing) return { ok: false, problem: `${key}: ${missing}` };
  if (kind === 'claude' && settings.permission_mode === 'bypassPermissions' && process.getuid?.() === 0 && !env.IS_SANDBOX) {
    return {
      ok: false,
      problem: `${key}.permission_mode: Claude Code refuses bypassPermissions as root; run bestof as another user, use the default "acceptEdits", or set IS_SANDBOX = "1" in ${key}.env if this machine is a disposable sandbox`,
    };
  }
  if (kind === 'gemini' && settings.max_turns !== undefined && !settings.isolate_config) {
    return {
      ok: false,
      problem: `${key}.max_turns: Gemini CLI has no flag for a turn limit; bestof sets model.maxSessionTurns only in an isolated config folder: add isolate_config = true, or remove max_turns`,
    };
  }
  return { ok: true, agent: { command } };
}

/** Options that come from the spec outside the candidate's own settings. */
export interface CreateProviderOptions {
  /** `[providers.<kind>] prices` of the spec, over configs/prices.toml (codex, gemini). */
  readonly prices?: PriceTable | undefined;
}

export function createProvider(settings: ProviderSettings, agent: PreparedAgent, options: CreateProviderOptions = {}): Provider {
  switch (settings.kind) {
    case 'claude':
    case 'codex':
    case 'gemini': {
      if (!agent.command) throw new Error(`bug: a ${settings.kind} candidate without its binary`);
      const cli = { binary: agent.command, settings, prices: options.prices };
      if (settings.kind === 'claude') return createClaudeProvider(cli);
      return settings.kind === 'codex' ? createCodexProvider(cli) : createGeminiProvider(cli);
    }
    case 'script':
      if (!agent.script) throw new Error('bug: a script candidate without its script');
      return createScriptProvider(agent.script);
    case 'command':
      if (!agent.command) throw new Error('bug: a command candidate without its command');
      return createCommandProvider({ command: agent.command, args: settings.args });
    default:
      // prepareAgent refuses kinds this version cannot run, so reaching this is a bug.
      throw new Error(`bug: provider "${settings.kind}" is not available`);
  }
}
