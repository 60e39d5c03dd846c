/**
 * A tmux driver: programs in detached tmux sessions that a person can watch or take over, and
 * that bestof reads (the screen) and types into (keys, bracketed paste). It knows nothing of
 * what runs in the pane.
 *
 * Every call is `tmux -S <socket> ...` through runProcess, so a run's sessions live on a tmux
 * server of its own and never touch the user's (nor read the user's ~/.tmux.conf: `-f
 * /dev/null`). Targets are written `=name` so that session "c1" never matches "c10".
 *
 * The program's environment. tmux gives a pane's program the server's global environment (the
 * environment of whichever client started the server, plus anything `set-environment -g` put
 * there later), never the environment of the client that asked for the session. So the program
 * is not started by tmux directly: tmux starts a small Node launcher (./tmux-launcher.ts) that
 * reads a JSON file holding the program, its argv, its cwd and its WHOLE environment, deletes
 * the file, and spawns the program with exactly that environment. The file is 0600 in a fresh
 * 0700 folder next to the socket, and startSession returns only once the launcher has deleted
 * it, then removes the folder: the secrets in the environment (API keys) never appear in any
 * argv (`ps`) nor in tmux's environment, and are on disk only for the launcher's start-up. The
 * argv goes through the file too: tmux would read an argument that ends in `;` as a command
 * separator. The launcher stays as the program's parent to write its exit status to
 * `exitFile` (a pane's own `pane_dead_status` is unreliable: tmux may leave the program a
 * zombie with an empty status).
 *
 * The server is started by the first session's `new-session` under `env -i` with nothing but
 * BESTOF_RUN_KEY and BESTOF_PROCESS_TAG (when the session's env has them): bestof finds a killed
 * run's leftovers by those variables (./tagged-processes.ts), and the server, the launchers and
 * the programs all carry them. (runProcess gives each tmux client a tag of its own and kills
 * whatever carries it once the client exits; `env -i` keeps that tag away from the server, which
 * outlives the client on purpose.)
 *
 * Killing: `kill-session` closes the pane's terminal, which hangs up its programs (SIGHUP); what
 * ignores that is SIGKILLed with its process group (the pane's program leads one) after a grace.
 */
import { randomBytes } from 'node:crypto';
import { err, ok, type Result } from '../result.js';
import { describeFailure, paneTarget, runTmux, sessionAlive, sleep, target, type TmuxSession } from './tmux-command.js';

// The driver's parts: commands (./tmux-command.ts), start (./tmux-start.ts), kills (./tmux-kill.ts).
export { probeTmux, sessionAlive, type TmuxSession } from './tmux-command.js';
export { killServer, killSession } from './tmux-kill.js';
export { readExitStatus, startSession, type StartOptions } from './tmux-start.js';

/** The visible screen as text (capture-pane -p), or "" when the session is gone. */
export async function capturePane(session: TmuxSession): Promise<string> {
  const result = await runTmux(session.socket, ['capture-pane', '-p', '-t', paneTarget(session)]);
  return result?.ok ? result.stdout : '';
}

/** Bracketed paste (load-buffer from stdin + paste-buffer -p -d), so several lines arrive as one prompt. Does not press Enter. */
export async function pasteText(session: TmuxSession, text: string): Promise<Result<void>> {
  const buffer = `bestof-paste-${randomBytes(6).toString('hex')}`;
  const loaded = await runTmux(session.socket, ['load-buffer', '-b', buffer, '-'], { input: text });
  if (!loaded?.ok) return err(`cannot paste into tmux session ${session.name}: ${describeFailure(loaded)}`);
  // -p: the program gets the text between ESC[200~ and ESC[201~ when it asked for bracketed
  // paste (and plain otherwise); newlines arrive as carriage returns, as from a terminal.
  const pasted = await runTmux(session.socket, ['paste-buffer', '-p', '-d', '-b', buffer, '-t', paneTarget(session)]);
  if (!pasted?.ok) {
    await runTmux(session.socket, ['delete-buffer', '-b', buffer]);
    return err(`cannot paste into tmux session ${session.name}: ${describeFailure(pasted)}`);
  }
  return ok();
}

/** send-keys of key names ("Enter", "C-c", "Escape", "Down"). */
export async function sendKeys(session: TmuxSession, ...keys: string[]): Promise<Result<void>> {
  if (keys.length === 0) return ok();
  const sent = await runTmux(session.socket, ['send-keys', '-t', paneTarget(session), ...keys.map(notASeparator)]);
  return sent?.ok ? ok() : err(`cannot send ${keys.join(' ')} to tmux session ${session.name}: ${describeFailure(sent)}`);
}

/** Types `text` literally, as keystrokes (send-keys -l). The text is in tmux's argv for a moment: no secrets. */
export async function typeText(session: TmuxSession, text: string): Promise<Result<void>> {
  if (text === '') return ok();
  const sent = await runTmux(session.socket, ['send-keys', '-l', '-t', paneTarget(session), '--', notASeparator(text)]);
  return sent?.ok ? ok() : err(`cannot type into tmux session ${session.name}: ${describeFailure(sent)}`);
}

/**
 * tmux reads an argument that ends in `;` as the end of a command (and drops the `;`), even
 * after `--`; one that ends in `\;` stands for a literal `;`.
 */
function notASeparator(arg: string): string {
  return arg.endsWith(';') ? `${arg.slice(0, -1)}\\;` : arg;
}

/**
 * Polls the screen until `ready(screen)` is true; on timeout or abort: err with the last
 * screen's text (trimmed), so the caller can show where it is stuck. `gone`: the session ended.
 */
export async function waitForScreen(
  session: TmuxSession,
  ready: (screen: string) => boolean,
  options: { timeoutMs: number; intervalMs?: number; signal?: AbortSignal },
): Promise<Result<string, { screen: string; reason: 'timeout' | 'aborted' | 'gone' }>> {
  const deadline = Date.now() + options.timeoutMs;
  let screen = '';
  for (;;) {
    if (options.signal?.aborted) return err({ screen: screen.trim(), reason: 'aborted' });
    const captured = await runTmux(session.socket, ['capture-pane', '-p', '-t', paneTarget(session)], {
      ...(options.signal !== undefined ? { signal: options.signal } : {}),
    });
    if (captured?.ok) {
      screen = captured.stdout;
      if (ready(screen)) return ok(screen);
    } else if (options.signal?.aborted) {
      return err({ screen: screen.trim(), reason: 'aborted' });
    } else if (captured === undefined || (!captured.timedOut && !(await sessionAlive(session)))) {
      // A capture that failed because the machine is slow is retried; a session that is gone is not.
      return err({ screen: screen.trim(), reason: 'gone' });
    }
    if (Date.now() >= deadline) return err({ screen: screen.trim(), reason: 'timeout' });
    await sleep(Math.min(options.intervalMs ?? 100, Math.max(0, deadline - Date.now())), options.signal);
  }
}

/** The argv a person runs to watch (readOnly: `attach -r`) or take over the session. */
export function attachArgs(session: TmuxSession, options: { readOnly: boolean }): string[] {
  return ['tmux', '-S', session.socket, 'attach-session', ...(options.readOnly ? ['-r'] : []), '-t', target(session)];
}
