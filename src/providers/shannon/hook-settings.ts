/**
 * The `--settings` JSON a shannon session starts with: the hooks that reach bestof, and the
 * key that skips the bypass-permissions warning (a project's own settings cannot skip it).
 * Nothing is written into the worktree's `.claude/`: the hooks are this process's alone.
 *
 * Every hook runs `"<node>" "<bestof>/bin/bestof.js" hook <Event>` with absolute paths (the
 * node that runs this bestof, and this package's launcher), so it works whatever the agent's
 * PATH is, and inside the sandbox, where bestof's own files are bound in read-only.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../../package-root.js';

export const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'SessionEnd'] as const;
export type HookEventName = (typeof HOOK_EVENTS)[number];

/** Seconds Claude Code gives the events bestof answers at once. */
const QUICK_HOOK_TIMEOUT_S = 10;
/** The hook command gives up this long before Claude Code would cancel it, and allows. */
export const HOOK_MARGIN_MS = 5000;

/** bin/bestof.js of this package. */
export function bestofBin(): string {
  return join(packageRoot(), 'bin', 'bestof.js');
}

/** The shell command of one hook. */
export function hookCommand(event: HookEventName, node: string = process.execPath, bin: string = bestofBin()): string {
  return `${shellQuote(node)} ${shellQuote(bin)} hook ${event}`;
}

export interface HookSettingsOptions {
  /** How long Claude Code lets the Stop hook run (bestof holds it that long at most). */
  readonly stopTimeoutMs: number;
}

export function hookSettings(options: HookSettingsOptions): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const event of HOOK_EVENTS) {
    const timeout = event === 'Stop' ? Math.ceil(options.stopTimeoutMs / 1000) : QUICK_HOOK_TIMEOUT_S;
    hooks[event] = [{ hooks: [{ type: 'command', command: hookCommand(event), timeout }] }];
  }
  return { skipDangerousModePermissionPrompt: true, hooks };
}

/** BESTOF_HOOK_WAIT_MS: how long the Stop hook command waits for bestof before it allows. */
export function hookWaitMs(stopTimeoutMs: number): number {
  return Math.max(1000, stopTimeoutMs - HOOK_MARGIN_MS);
}

/** The built CLI is there (bin/bestof.js needs dist/): without it every hook would fail open. */
export function hookCommandUsable(): boolean {
  return existsSync(join(packageRoot(), 'dist', 'cli', 'main.js'));
}

export function shellQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
