/**
 * The warning for an oracle folder the trials' agents could read (src/bench/oracle.ts
 * oracleExposure): the trial's run no longer lists the oracle as a hidden check, so its sandbox
 * hides the folder only inside the user's HOME or /tmp.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { oracleExposure } from '../../src/bench/oracle.js';
import { loadSpec, type LoadedSpec } from '../../src/spec/load.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function taskWithOracle(sandbox: string): Promise<{ dir: string; loaded: LoadedSpec }> {
  const dir = makeTempDir('bestof-exposure-');
  dirs.push(dir);
  mkdirSync(join(dir, 'oracle'));
  writeFileSync(join(dir, 'oracle', 'o.js'), '');
  writeFileSync(
    join(dir, 't.toml'),
    `[prompt]\ntext = "x"\n[sandbox]\nmode = "${sandbox}"\n[[checks.items]]\nname = "c"\ncommand = "true"\n[[checks.items]]\nname = "judge"\ncommand = "node test/oracle/o.js"\nkind = "oracle"\nhidden = "oracle"\ninto = "test/oracle"\n`,
  );
  const loaded = await loadSpec(join(dir, 't.toml'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return { dir, loaded: loaded.value };
}

describe('oracle folders the agents could read', () => {
  it('inside HOME or /tmp: no warning; elsewhere: the task, the check, the folder and where to move it', async () => {
    const { dir, loaded } = await taskWithOracle('auto');
    const tasks = new Map([['t', loaded]]);
    expect(oracleExposure(tasks, { home: '/nowhere', tmp: dir })).toEqual([]);
    expect(oracleExposure(tasks, { home: dir, tmp: '/nowhere' })).toEqual([]);
    const [warning, ...more] = oracleExposure(tasks, { home: '/nowhere', tmp: '/elsewhere' });
    expect(more).toEqual([]);
    expect(warning).toContain(`task t: the oracle check judge's folder ${join(dir, 'oracle')} is outside your HOME and /tmp`);
    expect(warning).toMatch(/move the folder under your HOME/);
  });

  it('a task whose agents run without a sandbox: its run says so itself', async () => {
    const { loaded } = await taskWithOracle('off');
    expect(oracleExposure(new Map([['t', loaded]]), { home: '/nowhere', tmp: '/elsewhere' })).toEqual([]);
  });
});
