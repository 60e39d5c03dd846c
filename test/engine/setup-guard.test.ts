import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ok } from '../../src/result.js';
import { createSetupGuard, fingerprint } from '../../src/engine/workspace/setup-guard.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A worktree-like folder whose setup made node_modules/ (two files) and .env. */
function setUp(): string {
  const dir = makeTempDir('bestof-setup-guard-');
  dirs.push(dir);
  mkdirSync(join(dir, 'node_modules', 'dep'), { recursive: true });
  writeFileSync(join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
  writeFileSync(join(dir, '.env'), 'A=1\n');
  writeFileSync(join(dir, 'src.js'), "the agent's own file\n");
  return dir;
}

const SETUP_PATHS = ['node_modules/', '.env'];

describe('setup guard', () => {
  it('sees nothing when nothing changed, and nothing outside the setup paths', async () => {
    const dir = setUp();
    const guard = createSetupGuard({ worktree: dir, setupPaths: SETUP_PATHS, redo: async () => ok() });
    await guard.seal();
    writeFileSync(join(dir, 'src.js'), "changed by the agent: its work, not setup's\n");
    expect(await guard.changed()).toEqual([]);
  });

  it('sees a file added inside a setup folder (a node_modules/.bin shim)', async () => {
    const dir = setUp();
    const guard = createSetupGuard({ worktree: dir, setupPaths: SETUP_PATHS, redo: async () => ok() });
    await guard.seal();
    mkdirSync(join(dir, 'node_modules', '.bin'));
    writeFileSync(join(dir, 'node_modules', '.bin', 'node'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    expect(await guard.changed()).toEqual(['node_modules/.bin', 'node_modules/.bin/node']);
  });

  it('sees an in-place edit of the same size whose mtime was put back (ctime cannot be)', async () => {
    const dir = setUp();
    const file = join(dir, 'node_modules', 'dep', 'index.js');
    const guard = createSetupGuard({ worktree: dir, setupPaths: SETUP_PATHS, redo: async () => ok() });
    await guard.seal();
    const before = statSync(file, { bigint: true });
    const reference = join(dir, 'reference');
    execFileSync('cp', ['--preserve=timestamps', file, reference]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    writeFileSync(file, readFileSync(file, 'utf8').replace('1', '2'));
    // What a careful cheater does: the old mtime back, to the nanosecond.
    execFileSync('touch', ['-r', reference, file]);
    expect(statSync(file, { bigint: true }).mtimeNs).toBe(before.mtimeNs);
    expect(statSync(file, { bigint: true }).size).toBe(before.size);
    expect(await guard.changed()).toEqual(['node_modules/dep/index.js']);
  });

  it('sees a removed setup file, and a replaced one', async () => {
    const dir = setUp();
    const guard = createSetupGuard({ worktree: dir, setupPaths: SETUP_PATHS, redo: async () => ok() });
    await guard.seal();
    rmSync(join(dir, '.env'));
    writeFileSync(join(dir, 'node_modules', 'dep', 'other.js'), 'x');
    rmSync(join(dir, 'node_modules', 'dep', 'index.js'));
    writeFileSync(join(dir, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    expect(await guard.changed()).toEqual(['.env', 'node_modules/dep/index.js', 'node_modules/dep/other.js']);
  });

  it("compares with the last seal: what the checks wrote before it is not the agent's", async () => {
    const dir = setUp();
    const guard = createSetupGuard({ worktree: dir, setupPaths: SETUP_PATHS, redo: async () => ok() });
    await guard.seal();
    writeFileSync(join(dir, 'node_modules', '.cache'), 'written by a check');
    await guard.seal();
    expect(await guard.changed()).toEqual([]);
  });

  it('has nothing to compare before its first seal, or without setup paths', async () => {
    const dir = setUp();
    const unsealed = createSetupGuard({ worktree: dir, setupPaths: SETUP_PATHS, redo: async () => ok() });
    writeFileSync(join(dir, '.env'), 'B=2\n');
    expect(await unsealed.changed()).toEqual([]);
    const none = createSetupGuard({ worktree: dir, setupPaths: [], redo: async () => ok() });
    await none.seal();
    expect(await none.changed()).toEqual([]);
  });

  it('walks every entry of a deep, wide tree', async () => {
    const dir = setUp();
    for (let i = 0; i < 30; i++) {
      mkdirSync(join(dir, 'node_modules', `p${i}`, 'lib', 'deep'), { recursive: true });
      for (let j = 0; j < 10; j++) writeFileSync(join(dir, 'node_modules', `p${i}`, 'lib', 'deep', `f${j}.js`), `${i}${j}`);
    }
    const entries = await fingerprint(dir, SETUP_PATHS);
    // node_modules, dep, dep/index.js, .env, and per package: p, lib, deep and 10 files.
    expect(entries.size).toBe(4 + 30 * 13);
  });
});
