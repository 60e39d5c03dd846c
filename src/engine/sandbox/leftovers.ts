/**
 * The processes a dead bestof left running. Agents, checks and setup commands run in process
 * groups of their own (and daemons in sessions of their own), so a bestof killed with
 * SIGKILL takes none of them along, and no record of their pids would survive it either.
 * What they all keep is the run's key in their environment (BESTOF_RUN_KEY, set by
 * ../plan/candidate-env.ts, inherited by everything they start), so that `bestof resume` stops them
 * before it starts the same candidates again in the same worktrees, and `bestof clean` before
 * it removes those worktrees.
 *
 * A sandboxed agent needs none of this (bubblewrap's PID namespace dies with bestof); this is
 * what holds without the sandbox, and for checks and setup commands, which are never sandboxed.
 * A process that clears its own environment is not found (../../process/tagged-processes.ts).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processIsGone, signalProcessesWithEnv } from '../../process/tagged-processes.js';
import { RUN_KEY_FILE } from '../record/run-folder.js';

/** The variable every process of a run carries, with the run's key as its value. */
export const RUN_KEY_VAR = 'BESTOF_RUN_KEY';

/** Time the leftovers get to end on SIGTERM before the SIGKILL. @default 2000 */
const DEFAULT_GRACE_MS = 2000;
const POLL_MS = 50;

/** SIGTERM then SIGKILL (after a short grace) every process that carries the run's key: the agents, checks and daemons of a bestof that was killed. Returns how many were stopped. */
export async function stopRunLeftovers(runKey: string, opts: { readonly graceMs?: number } = {}): Promise<number> {
  const stopped = new Set(signalProcessesWithEnv(RUN_KEY_VAR, [runKey], 'SIGTERM'));
  if (stopped.size === 0) return 0;
  const deadline = Date.now() + (opts.graceMs ?? DEFAULT_GRACE_MS);
  while (Date.now() < deadline && ![...stopped].every(processIsGone)) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  // Found again by the key, not by the pids of the first pass: a pid that ended may be another process by now.
  for (const pid of signalProcessesWithEnv(RUN_KEY_VAR, [runKey], 'SIGKILL')) stopped.add(pid);
  return stopped.size;
}

/** SIGKILLs at once, synchronously, every process that carries the run's key (a bestof about to exit). Returns how many. */
export function killRunProcessesNow(runKey: string): number {
  return signalProcessesWithEnv(RUN_KEY_VAR, [runKey], 'SIGKILL').length;
}

/** The key recorded in a run folder, if any (runs made before this change have none). */
export function readRunKey(runDir: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(join(runDir, RUN_KEY_FILE), 'utf8');
  } catch {
    return undefined;
  }
  const key = text.trim();
  // A key is matched against whole environment entries; anything else is not one of ours.
  return /^[0-9a-f]{8,64}$/.test(key) ? key : undefined;
}

/** Records the run's key in its folder, before the run starts any process. */
export function writeRunKey(runDir: string, runKey: string): void {
  writeFileSync(join(runDir, RUN_KEY_FILE), `${runKey}\n`);
}
