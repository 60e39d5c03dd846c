/**
 * `kill -9` of bestof leaves no agent process alive when sandboxed: the agent and a `setsid`
 * grandchild of it (which has left the agent's process group, so no group kill reaches it) must
 * both end with bubblewrap's PID namespace when bestof dies without a chance to clean up.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { processIsGone, waitUntil } from '../helpers/wait.js';
import { adversary, makeTrustProject, runDirs, trustSpec, type TrustProject } from './harness.js';
import { killLeftovers, leftoverProcesses } from './processes.js';

let project: TrustProject | undefined;
afterEach(() => {
  killLeftovers(['trust-outlive-']);
  project?.cleanup();
  project = undefined;
});

describe('kill -9 of bestof', () => {
  it('leaves no agent process alive when sandboxed (the agent and its setsid grandchild, for every candidate)', async () => {
    project = makeTrustProject();
    const p = project;
    const spec = p.writeOutside(
      'spec.toml',
      trustSpec(p, { cheater: adversary('outlive-bestof'), partner: adversary('outlive-bestof'), sandbox: 'required', merge: 'none' }),
    );
    const { child, done } = startCli(['run', spec], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code} ${r.signal ?? ''}\n${r.stdout}\n${r.stderr}`));

    let runId = '';
    await waitUntil(
      () => {
        const [runDir] = runDirs(p);
        if (!runDir) return false;
        runId = runDir.split('/').pop() as string;
        return ['c1', 'c2'].every((id) => existsSync(join(p.worktreesDir, runId, id, 'pids.txt')));
      },
      'both agents to start and record their pids',
      { ended: () => ended },
    );
    const token = `trust-outlive-${runId}`;
    // Two per candidate: the agent and its setsid grandchild, found on the host by their argv.
    await waitUntil(() => leftoverProcesses([token]).length === 4, 'the agents and their grandchildren to show up', { ended: () => ended, attempts: 100 });
    const pids = leftoverProcesses([token]).map((line) => Number(line.split(' ')[0]));
    const recorded = ['c1', 'c2'].map((id) => readFileSync(join(p.worktreesDir, runId, id, 'pids.txt'), 'utf8').trim());
    expect(recorded.every((line) => /^\d+ \d+$/.test(line))).toBe(true);

    child.kill('SIGKILL');
    const result = await done;
    expect(result.signal).toBe('SIGKILL');
    await waitUntil(() => pids.every(processIsGone), `the agent processes ${pids.join(', ')} to end after bestof was killed`, { attempts: 100 });
    expect(leftoverProcesses([token])).toEqual([]);
  });
});
