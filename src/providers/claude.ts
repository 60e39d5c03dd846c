/**
 * `claude`: Claude Code in print mode.
 *
 *   claude -p --output-format stream-json --verbose --session-id <uuid>
 *          [--model M] [--max-turns N] --permission-mode <mode>
 *          [--append-system-prompt TEXT] [...args]          (the prompt on stdin)
 *
 * Permissions. Inside bestof's sandbox (src/process/sandbox.ts) `permission_mode` defaults to
 * "bypassPermissions": the agent runs its own tools (a shell, the tests) unattended, since the
 * sandbox, not Claude's prompt, is the boundary; bestof sets IS_SANDBOX=1 there, without which
 * Claude Code refuses bypassPermissions as root. Without the sandbox the default stays
 * "acceptEdits": edits inside the worktree run unattended, and anything that would need
 * approval (shell commands, edits outside the worktree, web fetches) is denied and reported
 * (the denials become activity lines). A `permission_mode` in the spec always wins.
 *
 * The session id is chosen by bestof (a uuid) so the transcript is easy to find:
 * ~/.claude/projects/<cwd with non-alphanumerics as "-">/<session id>.jsonl (or under the
 * isolated CLAUDE_CONFIG_DIR). CLAUDECODE and CLAUDE_CODE_CHILD_SESSION are removed from the
 * environment, so running bestof from inside a Claude Code session behaves like a terminal.
 */
import type { Env } from '../env.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ProviderSettings } from '../spec/schema.js';
import { classifyClaude, claudeEarlyStop } from './classify-claude.js';
import { ClaudeStreamParser, type ClaudeStreamState } from './claude-stream.js';
import { defineCliProvider } from './cli-definition.js';
import { createCliProvider, type CliAdapter, type CliOptions } from './cli-provider.js';
import { fileMentions, hasVariable, homeOf } from './credentials.js';
import type { Provider } from './types.js';

export const CLAUDE_DEFAULT_PERMISSION_MODE = 'acceptEdits';
export const CLAUDE_SANDBOXED_PERMISSION_MODE = 'bypassPermissions';

const INSTALL_HINT = 'install Claude Code with `npm install -g @anthropic-ai/claude-code`, then log in once with `claude` (or set ANTHROPIC_API_KEY)';

export const claudeAdapter: CliAdapter<ClaudeStreamState> = {
  kind: 'claude',
  cli: 'Claude Code',
  installHint: INSTALL_HINT,
  dropEnv: ['CLAUDECODE', 'CLAUDE_CODE_CHILD_SESSION'],
  // The OAuth login, the user's settings (apiKeyHelper, env) and the onboarding state.
  homeSeed: ['.claude/.credentials.json', '.claude/settings.json', '.claude.json'],
  configRoot: { variable: 'CLAUDE_CONFIG_DIR', relative: '.claude' },
  sandboxEnv: { IS_SANDBOX: '1' },
  // Settings, sessions and credentials all live under CLAUDE_CONFIG_DIR; with -p and
  // ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN) nothing else is needed.
  isolateConfig: async (dir) => ({ env: { CLAUDE_CONFIG_DIR: dir }, note: `isolated config: CLAUDE_CONFIG_DIR=${dir}` }),
  buildCall(settings, input) {
    const args = ['-p', '--output-format', 'stream-json', '--verbose', '--session-id', input.sessionId];
    if (input.model) args.push('--model', input.model);
    if (settings.max_turns !== undefined) args.push('--max-turns', String(settings.max_turns));
    args.push('--permission-mode', settings.permission_mode ?? (input.sandboxed ? CLAUDE_SANDBOXED_PERMISSION_MODE : CLAUDE_DEFAULT_PERMISSION_MODE));
    if (settings.append_system_prompt) args.push('--append-system-prompt', settings.append_system_prompt);
    args.push(...settings.args);
    return { args, input: input.prompt };
  },
  createParser: (onActivity) => new ClaudeStreamParser(onActivity),
  earlyStop: claudeEarlyStop,
  classify(state, process, ctx, _request, note) {
    const result = classifyClaude(state, process, ctx);
    const denials = state.result?.permissionDenials ?? [];
    if (denials.length > 0) {
      note(`${denials.length} tool call(s) denied by permission_mode: ${denials.slice(0, 3).join('; ')}${denials.length > 3 ? '; …' : ''}`);
    }
    return result;
  },
};

export function createClaudeProvider(options: CliOptions): Provider {
  return createCliProvider(claudeAdapter, options);
}

export const claudeDefinition = defineCliProvider({
  kind: 'claude',
  installHint: INSTALL_HINT,
  missingCredentials: claudeCredentials,
  unworkableSettings(settings, env, key, sandboxed) {
    // Inside the sandbox bestof sets IS_SANDBOX itself.
    if (settings.permission_mode === 'bypassPermissions' && !sandboxed && process.getuid?.() === 0 && !env.IS_SANDBOX) {
      return `${key}.permission_mode: Claude Code refuses bypassPermissions as root; run bestof as another user, use the default "acceptEdits", or set IS_SANDBOX = "1" in ${key}.env if this machine is a disposable sandbox`;
    }
    return undefined;
  },
  createProvider: createClaudeProvider,
});

function claudeCredentials(settings: ProviderSettings, env: Env): string | undefined {
  if (
    hasVariable(
      env,
      'ANTHROPIC_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'CLAUDE_CODE_OAUTH_TOKEN',
      'CLAUDE_CODE_USE_BEDROCK',
      'CLAUDE_CODE_USE_VERTEX',
      'CLAUDE_CODE_USE_FOUNDRY',
    )
  )
    return undefined;
  if (settings.isolate_config) {
    return "isolate_config = true gives Claude Code a fresh config folder without your login: set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN, made once with `claude setup-token`) in the environment or in the spec's env";
  }
  if (process.platform === 'darwin') return undefined; // the login may be in the keychain
  const dir = env.CLAUDE_CONFIG_DIR || join(homeOf(env), '.claude');
  if (existsSync(join(dir, '.credentials.json'))) return undefined;
  if (fileMentions(join(dir, 'settings.json'), 'apiKeyHelper')) return undefined;
  return `Claude Code has no login: no ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or CLAUDE_CODE_OAUTH_TOKEN is set and there is no ${join(dir, '.credentials.json')}; log in once with \`claude\`, or set ANTHROPIC_API_KEY`;
}
