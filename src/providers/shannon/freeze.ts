/**
 * Freezing a shannon session between turns (see freeze() below for why and what).
 */
import { processCommandLine, processesWithEnv, signalProcessesWithEnv } from '../../process/tagged-processes.js';
import { SESSION_ENV, type LiveSession } from './session.js';

/** What freezing needs of a session's state: its id, and whether it is frozen. */
export interface Freezable {
  readonly live: LiveSession;
  frozen: boolean;
}

/**
 * While bestof commits and scores a turn, the session waits in its held Stop hook, but what its
 * agent left running (a watcher, a `setsid` daemon: the sandbox's PID namespace ends them only
 * when Claude Code itself ends) would run on and could rewrite the files being scored. So those
 * processes are stopped (SIGSTOP) until the next call. They are the session's (they carry
 * SESSION_ENV; one that cleared its environment escapes, as everywhere) minus Claude Code itself
 * and its sandbox wrapper (their argv holds the session id) and the hook command (`bestof.js
 * hook`): those must stay awake, so that a hook whose bestof died still fails open and the turn
 * ends. Linux only (the argv is read from /proc); elsewhere nothing is frozen.
 */
export function freeze(state: Freezable): void {
  if (state.frozen) return;
  state.frozen = true;
  for (const pid of processesWithEnv(SESSION_ENV, [state.live.sessionId])) {
    const argv = processCommandLine(pid);
    if (argv === undefined || argv.includes(state.live.sessionId) || /bestof\.js\W+hook\b/.test(argv)) continue;
    try {
      process.kill(pid, 'SIGSTOP');
    } catch {
      // gone meanwhile
    }
  }
}

/** Continues what freeze() stopped: before the next turn, and before the session is ended (a stopped process takes no SIGTERM). */
export function thaw(state: Freezable): void {
  if (!state.frozen) return;
  state.frozen = false;
  signalProcessesWithEnv(SESSION_ENV, [state.live.sessionId], 'SIGCONT');
}
