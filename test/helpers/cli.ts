/**
 * Runs the real `bestof` binary (bin/bestof.js over the compiled dist/) as a child process,
 * the way a user does. `npm test` builds first.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { TestRunner } from 'vitest';
import { describeHang, processTree } from './hang-dump.js';

export const PROJECT_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BESTOF_BIN = join(PROJECT_ROOT, 'bin', 'bestof.js');

if (!existsSync(join(PROJECT_ROOT, 'dist', 'cli', 'main.js'))) {
  throw new Error('dist/ is missing: run `npm run build` (npm test does it) before the tests');
}

export interface CliResult {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  readonly cwd: string;
  readonly env?: Record<string, string | undefined>;
  /** Where worktrees go (BESTOF_WORKTREES_DIR), so tests never write to the user's cache. */
  readonly worktreesDir?: string;
  /**
   * Starts bestof as the leader of a process group of its own, as a shell does for a command, so
   * that a test can signal the whole group (`process.kill(-pid, ...)`) the way a terminal's Ctrl-C does.
   */
  readonly ownProcessGroup?: boolean;
  /** The script node starts; default bin/bestof.js (which starts the bundle, dist/bundle/). */
  readonly entry?: string;
}

export function startCli(args: readonly string[], options: CliOptions): { child: ChildProcess; done: Promise<CliResult> } {
  const child = spawn(process.execPath, [options.entry ?? BESTOF_BIN, ...args], {
    cwd: options.cwd,
    env: {
      ...process.env,
      NO_COLOR: '1',
      ...(options.worktreesDir ? { BESTOF_WORKTREES_DIR: options.worktreesDir } : {}),
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup === true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  let closed = false;
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      closed = true;
      resolve({ code, signal, stdout, stderr });
    });
  });
  // A bestof still running (or whose output something it started still holds open) just before its
  // test times out: say where it hangs, then end the whole tree. Before the timeout, not on failure:
  // the test's afterEach (which vitest runs before onTestFailed) kills processes and removes folders.
  const watchdog = hangWatchdog(() => {
    if (closed || child.pid === undefined) return;
    console.error(describeHang({ pid: child.pid, args, cwd: options.cwd, stdout, stderr }));
    for (const { pid } of processTree(child.pid).reverse()) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
  });
  void done.then(() => clearTimeout(watchdog));
  return { child, done };
}

/** Lead time before the test's timeout at which a hung bestof is described (ps and a file read). */
const HANG_DUMP_LEAD_MS = 4000;

/**
 * A timer that fires HANG_DUMP_LEAD_MS before the running test times out; none outside a test
 * (startCli is also called from hooks) or for a test without a timeout.
 */
function hangWatchdog(fire: () => void): NodeJS.Timeout | undefined {
  const test = TestRunner.getCurrentTest();
  const started = test?.result?.startTime;
  if (!test?.timeout || started === undefined) return undefined;
  const left = started + test.timeout - HANG_DUMP_LEAD_MS - Date.now();
  if (left <= 0) return undefined;
  const timer = setTimeout(fire, left);
  timer.unref();
  return timer;
}

export function runCli(args: readonly string[], options: CliOptions): Promise<CliResult> {
  return startCli(args, options).done;
}

/**
 * An entry script (CliOptions.entry) that runs bin/bestof.js and has it send itself `signal` in the
 * last instant before it exits: when its event loop has emptied (`beforeExit`), after the command
 * has ended and written its output. It first appends its pid to `marker`, so that a test knows the
 * signal was sent. A bestof that starts itself again (copy-on-write worktrees: the run goes on in a
 * mount namespace) starts this script, and that one signals itself too. Not NODE_OPTIONS: the
 * checks and agents would load the preload as well, and the sandbox hides its folder from them.
 */
export function signalAtExitEntry(dir: string, signal: NodeJS.Signals, marker: string): string {
  return bestofEntry(
    join(dir, `signal-at-exit-${signal}.mjs`),
    `import { appendFileSync } from 'node:fs';
process.once('beforeExit', () => {
  appendFileSync(${JSON.stringify(marker)}, process.pid + '\\n');
  process.kill(process.pid, ${JSON.stringify(signal)});
});`,
  );
}

/**
 * An entry script (CliOptions.entry) that runs bin/bestof.js and has it SIGKILL itself right after
 * it has written an event of type `eventType` to a run's event log (its writeSync of that line), as
 * a kill -9 in that very instant would.
 */
export function killAfterLoggedEntry(dir: string, eventType: string): string {
  return bestofEntry(
    join(dir, `kill-after-${eventType}.mjs`),
    `import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
const write = fs.writeSync;
fs.writeSync = function (fd, data, ...rest) {
  const written = write.call(this, fd, data, ...rest);
  if (typeof data === 'string' && data.includes(${JSON.stringify(`"type":"${eventType}"`)})) process.kill(process.pid, 'SIGKILL');
  return written;
};
syncBuiltinESMExports();`,
  );
}

/** Writes an ES module at `path` that runs `preamble`, then bin/bestof.js as its entry would be; returns `path`. */
function bestofEntry(path: string, preamble: string): string {
  writeFileSync(path, `${preamble}\nawait import(${JSON.stringify(pathToFileURL(BESTOF_BIN).href)});\n`);
  return path;
}
