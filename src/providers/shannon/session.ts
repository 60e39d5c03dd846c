/**
 * One shannon session: interactive Claude Code in a detached tmux session on the run's own
 * tmux server, cwd = the worktree, inside bestof's sandbox when the request has one.
 *
 *   claude --session-id <uuid> --settings <file> [--model M]
 *          (--dangerously-skip-permissions | --permission-mode <mode>) [...args]
 *
 * Permissions as the headless provider's (../claude.ts): inside the sandbox every tool runs
 * unattended (IS_SANDBOX=1 makes Claude Code accept that as root); outside, `acceptEdits`; a
 * spec `permission_mode` wins. The environment is passed whole to tmux (which passes nothing
 * of its own): the request's, minus CLAUDECODE / CLAUDE_CODE_CHILD_SESSION (bestof run from a
 * Claude Code session behaves like a terminal), plus a config folder of its own, the hook
 * bridge's variables and the keys that keep it offline from the vendor's updater and plugin
 * marketplace. BESTOF_RUN_KEY rides along, so `bestof clean` finds what a killed bestof left.
 */
import type { Env } from '../../env.js';
import { randomUUID } from 'node:crypto';
import { existsSync, realpathSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { isInside, sandboxEnv, wrapInSandbox, type SandboxLayout } from '../../process/sandbox.js';
import { capturePane, killServer, killSession, sendKeys, sessionAlive, startSession, typeText, waitForScreen, type TmuxSession } from '../../process/tmux.js';
import { err, ok, type Result } from '../../result.js';
import type { ProviderSettings } from '../../spec/schema.js';
import type { HookBridge } from './hook-bridge.js';
import { hookSettings, hookWaitMs, HOOK_MARGIN_MS } from './hook-settings.js';
import { packageRoot } from '../../package-root.js';
import type { SessionPaths, SessionRecord } from './paths.js';
import { dialogOn, isReady, screenTail } from './screen.js';
import { seedConfigDir } from './session-config.js';

export const DROPPED_ENV = ['CLAUDECODE', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_ENTRYPOINT'];
const SANDBOXED_PERMISSION_FLAG = '--dangerously-skip-permissions';
const DEFAULT_PERMISSION_MODE = 'acceptEdits';

export interface SessionStartOptions {
  readonly binary: string;
  readonly settings: ProviderSettings;
  readonly paths: SessionPaths;
  readonly bridge: HookBridge;
  readonly cwd: string;
  readonly model: string | undefined;
  readonly env: Env;
  readonly sandbox: SandboxLayout | undefined;
  readonly startupTimeoutMs: number;
  /** How long bestof may hold a Stop hook. */
  readonly holdMs: number;
  readonly signal: AbortSignal;
}

/** The variable that marks every process of one shannon session (its value: the session id). */
export const SESSION_ENV = 'BESTOF_SHANNON_SESSION';

export interface LiveSession {
  readonly tmux: TmuxSession;
  readonly sessionId: string;
  readonly cwd: string;
  /** The model it was started with (`--model`), undefined for Claude Code's default. */
  readonly model: string | undefined;
  /** The argv run in the pane (bwrap's when sandboxed), for invocation.json. */
  readonly command: string;
  readonly args: readonly string[];
  /** The Claude Code argv alone (after the binary). */
  readonly claudeArgs: readonly string[];
}

/** Why a session could not start: the message, and the screen it was stuck on. */
export interface StartFailure {
  readonly message: string;
  readonly cancelled?: boolean;
}

/** The Claude Code argv after the binary. */
export function claudeArgs(
  settings: ProviderSettings,
  input: { sessionId: string; settingsFile: string; model: string | undefined; sandboxed: boolean },
): string[] {
  const args = ['--session-id', input.sessionId, '--settings', input.settingsFile];
  if (input.model) args.push('--model', input.model);
  if (settings.permission_mode) args.push('--permission-mode', settings.permission_mode);
  else if (input.sandboxed) args.push(SANDBOXED_PERMISSION_FLAG);
  else args.push('--permission-mode', DEFAULT_PERMISSION_MODE);
  args.push(...settings.args);
  return args;
}

export async function startClaudeSession(options: SessionStartOptions): Promise<Result<LiveSession, StartFailure>> {
  const { paths, settings, bridge } = options;
  await Promise.all([paths.candidateDir, paths.tmpDir, paths.promptsDir].map((dir) => mkdir(dir, { recursive: true, mode: 0o700 })));
  await rm(paths.exitFile, { force: true });
  await seedConfigDir(paths.configDir, { cwd: options.cwd, env: options.env });
  await writeFile(paths.settingsFile, `${JSON.stringify(hookSettings({ stopTimeoutMs: options.holdMs + HOOK_MARGIN_MS }), null, 2)}\n`);

  const sessionId = randomUUID();
  bridge.setSessionId(sessionId);
  const sandboxed = options.sandbox !== undefined;
  const args = claudeArgs(settings, { sessionId, settingsFile: paths.settingsFile, model: options.model, sandboxed });

  const env: Record<string, string | undefined> = { ...options.env };
  for (const name of DROPPED_ENV) delete env[name];
  Object.assign(env, {
    TERM: 'xterm-256color',
    CLAUDE_CONFIG_DIR: paths.configDir,
    CLAUDE_CODE_DISABLE_OFFICIAL_MARKETPLACE_AUTOINSTALL: '1',
    DISABLE_AUTOUPDATER: '1',
    TMPDIR: paths.tmpDir,
    BESTOF_HOOK_SOCKET: paths.bridgeSocket,
    BESTOF_HOOK_STATE: paths.stateFile,
    BESTOF_HOOK_WAIT_MS: String(hookWaitMs(options.holdMs + HOOK_MARGIN_MS)),
    // Every process of the session carries it (Claude Code, its tools, what they leave running):
    // the provider freezes them by it while bestof scores a turn (./provider.ts).
    [SESSION_ENV]: sessionId,
  });
  if (sandboxed) env.IS_SANDBOX = '1';

  let command = options.binary;
  let argv: string[] = args;
  let finalEnv: Record<string, string | undefined> = env;
  if (options.sandbox) {
    await mkdir(options.sandbox.home, { recursive: true, mode: 0o700 });
    const layout = sandboxLayout(options.sandbox, options.cwd, paths);
    const wrapped = wrapInSandbox(options.binary, args, layout);
    command = wrapped.command;
    argv = wrapped.args;
    finalEnv = sandboxEnv(env, layout);
  }

  const started = await startSession({
    socket: paths.tmuxSocket,
    name: paths.name,
    cwd: options.cwd,
    command,
    args: argv,
    env: finalEnv,
    exitFile: paths.exitFile,
    signal: options.signal,
  });
  if (!started.ok) return err({ message: `tmux could not start the Claude Code session: ${started.error}` });
  const tmux = started.value;
  trackSession(tmux);
  const record: SessionRecord = { socket: tmux.socket, session: tmux.name, sessionId, cwd: options.cwd, startedAt: new Date().toISOString() };
  await writeFile(paths.record, `${JSON.stringify(record, null, 2)}\n`).catch(() => undefined);

  const ready = await waitForScreen(tmux, (screen) => isReady(screen) || dialogOn(screen) !== undefined, {
    timeoutMs: options.startupTimeoutMs,
    signal: options.signal,
  });
  if (!ready.ok) {
    const { screen, reason } = ready.error;
    await killSession(tmux);
    await untrackSession(tmux);
    if (reason === 'aborted') return err({ message: 'cancelled', cancelled: true });
    if (reason === 'gone') return err({ message: `Claude Code exited before its prompt appeared${await exitNote(paths.exitFile)}: ${screenTail(screen)}` });
    return err({
      message: `Claude Code did not show its prompt within ${Math.round(options.startupTimeoutMs / 1000)}s (\`[shannon] startup_timeout\`); the screen ends with: ${screenTail(screen)}`,
    });
  }
  const dialog = dialogOn(ready.value);
  if (dialog) {
    await killSession(tmux);
    await untrackSession(tmux);
    return err({ message: `Claude Code stopped at ${dialog.what} before its prompt (${dialog.fix}); the screen: ${screenTail(ready.value)}` });
  }
  return ok({ tmux, sessionId, cwd: options.cwd, model: options.model, command, args: argv, claudeArgs: args });
}

/**
 * The request's sandbox, plus: the config folder (writable), the hook folder (read-only: the
 * agent reaches the bridge's socket and reads the state, and nothing else of bestof's), and the
 * node and bestof package the hook command runs, when they live in a hidden folder (a HOME).
 */
function sandboxLayout(base: SandboxLayout, cwd: string, paths: SessionPaths): SandboxLayout {
  const hidden = ['/tmp', ...base.hidden];
  const hiddenHere = (path: string) => hidden.some((dir) => isInside(path, dir));
  const node = real(process.execPath);
  const own = [node, packageRoot()].filter(hiddenHere);
  return {
    ...base,
    workdir: cwd,
    writable: [...base.writable, paths.configDir],
    // The hooks file lives in the hidden run folder: only it is bound in, read-only (the agent cannot drop its hooks).
    readOnly: [...base.readOnly, paths.hookDir, paths.settingsFile, ...own],
  };
}

/** Ends the session's program (`/exit`, then the tmux session), leaving the server to the others. */
export async function endSession(session: LiveSession, graceMs: number): Promise<void> {
  if (await sessionAlive(session.tmux)) {
    // A turn still running (a timeout, a hook just allowed) is interrupted first: /exit is typed into the prompt.
    const idle = await waitForScreen(session.tmux, isReady, { timeoutMs: Math.min(graceMs, 1000) });
    if (!idle.ok && idle.error.reason !== 'gone') await sendKeys(session.tmux, 'Escape');
    // Typed, not pasted: a command is a keystroke matter for the prompt box.
    const typed = await typeText(session.tmux, '/exit');
    if (typed.ok) {
      await sleep(200);
      await sendKeys(session.tmux, 'Enter');
    }
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && (await sessionAlive(session.tmux))) await sleep(100);
  }
  await killSession(session.tmux);
}

/** tmux sessions alive per server socket, so the server goes with its last session. */
const liveSessions = new Map<string, Set<string>>();

export function trackSession(tmux: TmuxSession): void {
  const names = liveSessions.get(tmux.socket) ?? new Set<string>();
  names.add(tmux.name);
  liveSessions.set(tmux.socket, names);
}

/** Forgets the session; when it was the server's last in this bestof, kills the server. */
export async function untrackSession(tmux: TmuxSession): Promise<void> {
  const names = liveSessions.get(tmux.socket);
  names?.delete(tmux.name);
  if (names && names.size > 0) return;
  liveSessions.delete(tmux.socket);
  await killServer(tmux.socket);
}

export async function exitNote(exitFile: string): Promise<string> {
  const status = await readFile(exitFile, 'utf8').then(
    (text) => text.trim(),
    () => '',
  );
  return status ? ` (exit status ${status})` : '';
}

/** The screen now, for messages. */
export async function screenNow(session: LiveSession): Promise<string> {
  return capturePane(session.tmux);
}

function real(path: string): string {
  try {
    return existsSync(path) ? realpathSync(path) : path;
  } catch {
    return path;
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
