/**
 * The config folder of a shannon session (CLAUDE_CONFIG_DIR), seeded so that no first-run
 * screen stops it (docs/design/agent-clis.md section 10): onboarding done, the API key's last
 * 20 characters approved (else "Detected a custom API key" waits for an answer), the worktree
 * trusted, the bypass-permissions warning skipped. The user's login (`.credentials.json`) is
 * copied in when there is one, and the `apiKeyHelper` and `env` of their settings, so a
 * subscription login works; nothing is ever written back to the user's folder.
 *
 * The folder lives in the run folder (`<run>/candidates/<id>/shannon-config`) and is kept
 * across the candidate's iterations: the session's transcript is there.
 */
import type { Env } from '../../env.js';
import { existsSync, realpathSync } from 'node:fs';
import { chmod, copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { isObject } from '../stream-lines.js';

export interface SeedOptions {
  /** The session's cwd (the worktree). */
  readonly cwd: string;
  /** The agent's environment (the API key, the user's config folder). */
  readonly env: Env;
}

/** Creates and seeds `dir`; idempotent (a second call only adds the cwd's trust). */
export async function seedConfigDir(dir: string, options: SeedOptions): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const userDir = options.env.CLAUDE_CONFIG_DIR || join(options.env.HOME || homedir(), '.claude');
  await copyIfMissing(join(userDir, '.credentials.json'), join(dir, '.credentials.json'));

  const statePath = join(dir, '.claude.json');
  const state = (await readJson(statePath)) ?? {};
  state.hasCompletedOnboarding = true;
  const key = options.env.ANTHROPIC_API_KEY;
  if (key) {
    const responses = isObject(state.customApiKeyResponses) ? { ...state.customApiKeyResponses } : {};
    const approved = Array.isArray(responses.approved) ? [...(responses.approved as unknown[])] : [];
    const tail = key.slice(-20);
    if (!approved.includes(tail)) approved.push(tail);
    state.customApiKeyResponses = { ...responses, approved, rejected: Array.isArray(responses.rejected) ? responses.rejected : [] };
  }
  const projects = isObject(state.projects) ? { ...state.projects } : {};
  for (const path of new Set([options.cwd, realOrSame(options.cwd)])) {
    const entry = isObject(projects[path]) ? projects[path] : {};
    projects[path] = { ...entry, hasTrustDialogAccepted: true };
  }
  state.projects = projects;
  await writeFile(statePath, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });

  const settingsPath = join(dir, 'settings.json');
  if (!existsSync(settingsPath)) {
    const user = (await readJson(join(userDir, 'settings.json'))) ?? {};
    const settings: Record<string, unknown> = { skipDangerousModePermissionPrompt: true };
    // What a login may need from the user's settings; never their hooks (this session's are bestof's).
    if (typeof user.apiKeyHelper === 'string') settings.apiKeyHelper = user.apiKeyHelper;
    if (isObject(user.env)) settings.env = user.env;
    await writeFile(settingsPath, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  }
}

async function readJson(path: string): Promise<Record<string, unknown> | undefined> {
  try {
    const value: unknown = JSON.parse(await readFile(path, 'utf8'));
    return isObject(value) ? { ...value } : undefined;
  } catch {
    return undefined;
  }
}

async function copyIfMissing(source: string, target: string): Promise<void> {
  if (existsSync(target) || !existsSync(source)) return;
  try {
    await copyFile(source, target);
    await chmod(target, 0o600);
  } catch {
    // An unreadable login is one Claude Code would not have had either: its own screen says so.
  }
}

function realOrSame(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
