/**
 * The sandbox probe starts its bwrap at once. bestof starts the probe early (src/cli/early-probes.ts)
 * so that bwrap runs while the main thread loads the planner's modules and runs the plan's first
 * git call; a probe that first waited on the event loop (an asynchronous PATH look-up) started bwrap
 * only after all of that, and `bestof validate` waited for it.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { probeSandbox } from '../../src/process/sandbox.js';

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** Blocks this thread (no event loop turn) until `path` exists or `ms` have passed. */
function blockUntilExists(path: string, ms: number): boolean {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + ms;
  while (!existsSync(path) && Date.now() < deadline) Atomics.wait(cell, 0, 0, 10);
  return existsSync(path);
}

it('has bwrap running before the caller gives the event loop a turn', async () => {
  dir = mkdtempSync(join(tmpdir(), 'bestof-probe-'));
  const started = join(dir, 'started');
  // A bwrap of its own, first on a PATH no earlier probe of this process looked at (probes are cached per PATH).
  writeFileSync(join(dir, 'bwrap'), `#!/bin/sh\n: > '${started}'\nexit 0\n`, { mode: 0o755 });
  const probing = probeSandbox({ PATH: `${dir}:${process.env.PATH ?? ''}` });
  // The main thread stays busy, as bestof's does while it loads modules: only a bwrap already
  // started can make the file meanwhile.
  expect(blockUntilExists(started, 10_000)).toBe(true);
  expect(await probing).toEqual({ ok: true, bwrap: join(dir, 'bwrap') });
});
