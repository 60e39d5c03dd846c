/**
 * Reading Claude Code's screen (tmux capture-pane text). The hooks say when a turn starts and
 * ends; the screen is for what no hook sees: the ready prompt, a modal dialog (a login, the
 * model picker, the folder trust, a permission question) that would wait for a person forever.
 */

const RULE = /^\s*─{8,}/;

/** The input prompt: a line starting with `❯` between two rules, and no turn running. */
export function isReady(screen: string): boolean {
  if (isBusy(screen)) return false;
  const lines = screen.split('\n');
  return lines.some((line, i) => /^\s*❯/.test(line) && RULE.test(lines[i - 1] ?? '') && RULE.test(lines[i + 1] ?? ''));
}

/** A turn is running: the footer offers to interrupt it. */
export function isBusy(screen: string): boolean {
  return /esc to interrupt/i.test(screen);
}

const DIALOGS: readonly { readonly pattern: RegExp; readonly what: string; readonly fix: string }[] = [
  {
    pattern: /Do you trust the files in this folder|Is this a project you (created|trust)/i,
    what: 'the folder trust dialog',
    fix: "bestof marks the worktree trusted in the session's config; report this if it still asks",
  },
  { pattern: /Select login method/i, what: 'a login screen', fix: 'set ANTHROPIC_API_KEY, or log in once with `claude`' },
  { pattern: /Select model|Choose a model/i, what: 'the model picker', fix: 'set `model` in the spec to a model your account can use' },
  { pattern: /Detected a custom API key/i, what: 'the custom API key dialog', fix: "report this: bestof approves the key in the session's config" },
  {
    pattern: /WARNING: Claude Code running in Bypass Permissions mode/i,
    what: 'the bypass-permissions warning',
    fix: "report this: bestof skips it in the session's settings",
  },
  {
    pattern: /Choose the text style|Let's get started/i,
    what: 'the first-run setup',
    fix: "report this: bestof marks onboarding done in the session's config",
  },
  {
    pattern: /Do you want to [^\n]*\?[\s\S]*❯\s*1\./i,
    what: 'a permission question',
    fix: 'set `permission_mode = "bypassPermissions"` (with the sandbox on) so the agent runs its tools unattended',
  },
];

/** A modal dialog on the screen, or undefined. */
export function dialogOn(screen: string): { readonly what: string; readonly fix: string } | undefined {
  const found = DIALOGS.find((dialog) => dialog.pattern.test(screen));
  return found ? { what: found.what, fix: found.fix } : undefined;
}

/** The screen's last non-empty lines, joined with " | ", for a one-line message. */
export function screenTail(screen: string, count = 8): string {
  const lines = screen
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !RULE.test(line));
  return lines.slice(-count).join(' | ') || '(empty screen)';
}
