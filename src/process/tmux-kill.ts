/**
 * Ending tmux sessions and servers: `kill-session` closes the pane's terminal, which hangs up its
 * programs (SIGHUP); what ignores that is SIGKILLed with its process group (the pane's program
 * leads one) after a grace.
 */
import { rm } from 'node:fs/promises';
import { killGroup } from './kill-tree.js';
import { runTmux, sleep, target, type TmuxSession } from './tmux-command.js';

/** After kill-session, how long the pane's programs get to end on their SIGHUP before SIGKILL. */
const KILL_GRACE_MS = 1_000;

/** Kills the session and its programs (SIGKILL after a grace to what ignores the hangup). Idempotent, never rejects. */
export async function killSession(session: TmuxSession): Promise<void> {
  try {
    const panes = await panePids(session.socket, ['-s', '-t', target(session)]);
    await runTmux(session.socket, ['kill-session', '-t', target(session)]);
    await endGroups(panes);
  } catch {
    // never rejects: there is nothing a caller could do about it
  }
}

/** Kills the server, every session on it and their programs, and removes the socket file. Idempotent, never rejects. */
export async function killServer(socket: string): Promise<void> {
  try {
    const panes = await panePids(socket, ['-a']);
    await runTmux(socket, ['kill-server']);
    await endGroups(panes);
  } catch {
    // as above
  }
  await rm(socket, { force: true }).catch(() => undefined);
}

/** The pane programs' pids (each leads a process group: tmux starts it in a session of its own). */
async function panePids(socket: string, scope: readonly string[]): Promise<number[]> {
  const listed = await runTmux(socket, ['list-panes', ...scope, '-F', '#{pane_pid}']);
  if (!listed?.ok) return [];
  return listed.stdout
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number)
    .filter((pid) => pid > 1);
}

/** Waits up to the grace for each group to empty, then SIGKILLs what is left. */
async function endGroups(groups: readonly number[]): Promise<void> {
  const deadline = Date.now() + KILL_GRACE_MS;
  let left = groups.filter(groupAlive);
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(25);
    left = left.filter(groupAlive);
  }
  for (const pgid of left) killGroup(pgid, 'SIGKILL');
}

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
