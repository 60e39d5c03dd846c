/**
 * What a candidate's setup is doing, while it does it: the copy of a folder (and its size), the
 * links, the submodules, each setup command and how long it has been running. Setup can take
 * minutes (`npm ci`, a 264 MB copy); a silent "setup" looks like a hang.
 */
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { formatBytes } from '../../git/history/commit-filter.js';

export type SetupStep = 'checkout' | 'copy' | 'link' | 'submodules' | 'command';

export interface SetupProgress {
  readonly step: SetupStep;
  /** For a person: `copying node_modules (264 MB)`, `command 1/2 \`npm ci\` running for 20s`. */
  readonly text: string;
}

export type SetupProgressListener = (progress: SetupProgress) => void;

/** A running setup command is reported again this often, with how long it has been running. */
export const COMMAND_HEARTBEAT_MS = 10_000;

/** The size a copy will move, `264 MB`; walking stops at `maxEntries` (then `more than 264 MB`). */
export async function sizeOf(path: string, maxEntries = 200_000): Promise<string> {
  let bytes = 0;
  let entries = 0;
  const pending = [path];
  while (pending.length > 0 && entries < maxEntries) {
    const at = pending.pop() as string;
    const stat = await lstat(at).catch(() => undefined);
    entries += 1;
    if (stat === undefined) continue;
    if (stat.isDirectory()) for (const name of await readdir(at).catch(() => [] as string[])) pending.push(join(at, name));
    else bytes += stat.size;
  }
  return `${pending.length > 0 ? 'more than ' : ''}${formatBytes(bytes)}`;
}

export function commandText(index: number, total: number, command: string, elapsedMs?: number): string {
  const shown = command.length > 80 ? `${command.slice(0, 79)}…` : command;
  const running = elapsedMs === undefined ? 'running' : `running for ${Math.round(elapsedMs / 1000)}s`;
  return `command ${index}/${total} \`${shown}\` ${running}`;
}

/**
 * Calls `tick(elapsedMs)` every `everyMs` until `stop()` is called. The timer never keeps the
 * process alive on its own.
 */
export function heartbeat(everyMs: number, tick: (elapsedMs: number) => void): { stop(): void } {
  const started = Date.now();
  const timer = setInterval(() => tick(Date.now() - started), everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
