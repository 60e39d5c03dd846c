import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { parsePsEnvironment, processesWithEnv, signalProcessesWithEnv } from '../../src/process/tagged-processes.js';
import { StartedGroups } from '../helpers/processes.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { processIsGone, waitUntil } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'bestof-tagged-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const started = new StartedGroups();
afterEach(() => started.killAll());

/** `bash -c script` in a process group of its own, with `env` added to ours. */
function startBash(script: string, env: Record<string, string>): ChildProcess {
  const child = spawn('bash', ['-c', script], { env: { ...process.env, ...env }, detached: true, stdio: 'ignore' });
  started.add(child.pid);
  return child;
}

/** The pid a script wrote to `file`, once it has. */
async function pidIn(file: string): Promise<number> {
  await waitUntil(() => /^\d+\n$/.test(readFileSync(file, 'utf8')), `a pid in ${file}`);
  return Number(readFileSync(file, 'utf8'));
}

describe.runIf(process.platform === 'linux')('processesWithEnv (Linux /proc)', () => {
  it('finds a process by a whole NAME=value entry of its environment, not by a prefix, a suffix or another name', async () => {
    const exact = startBash('exec sleep 300', { BESTOF_TEST_KEY: 'abc123' });
    const longer = startBash('exec sleep 300', { BESTOF_TEST_KEY: 'abc1234' });
    const other = startBash('exec sleep 300', { XBESTOF_TEST_KEY: 'abc123' });
    await waitUntil(() => processesWithEnv('BESTOF_TEST_KEY', ['abc1234']).length === 1, 'the processes to start');
    await waitUntil(() => processesWithEnv('XBESTOF_TEST_KEY', ['abc123']).length === 1, 'the processes to start');
    expect(processesWithEnv('BESTOF_TEST_KEY', ['abc123'])).toEqual([exact.pid]);
    expect(processesWithEnv('BESTOF_TEST_KEY', ['abc1234'])).toEqual([longer.pid]);
    expect(processesWithEnv('BESTOF_TEST_KEY', ['abc12'])).toEqual([]);
    expect(processesWithEnv('BESTOF_TEST_KEY', ['abc123', 'abc1234']).sort()).toEqual([exact.pid, longer.pid].sort());
    expect(processesWithEnv('BESTOF_TEST_KEY', [])).toEqual([]);
    expect(processesWithEnv('XBESTOF_TEST_KEY', ['abc123'])).toEqual([other.pid]);
  });

  it('never finds the process that asks, nor its ancestors, even when they carry the entry', () => {
    const module = join(PROJECT_ROOT, 'dist', 'process', 'tagged-processes.js');
    expect(existsSync(module), 'dist/ is missing: run `npx tsc -p tsconfig.build.json`').toBe(true);
    // bash (an ancestor) starts a sibling sleep and then node (the asker): all three carry the entry.
    const script = `sleep 300 & echo "sibling $!"; echo "bash $$"; node --input-type=module -e "
      const { processesWithEnv } = await import('${module}');
      console.log('self', process.pid);
      console.log('found', processesWithEnv('BESTOF_TEST_ANCESTOR', ['k1']).join(','));
    "; kill $!`;
    const result = spawnSync('bash', ['-c', script], { env: { ...process.env, BESTOF_TEST_ANCESTOR: 'k1' }, encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    const value = (label: string): string => new RegExp(`^${label} (.*)$`, 'm').exec(result.stdout)?.[1] ?? '';
    expect(value('found')).toBe(value('sibling'));
    expect(value('found')).not.toBe('');
    expect([value('self'), value('bash')]).not.toContain(value('found'));
  });
});

describe.runIf(process.platform === 'linux')('signalProcessesWithEnv', () => {
  it('kills a setsid daemon, the group it leads, and nothing that carries another value', async () => {
    // The daemon's own child drops the entry (env -u) but stays in the daemon's group.
    const daemon = startBash(
      `setsid bash -c 'env -u BESTOF_TEST_TAG bash -c "echo \\$\\$ > ${tmp}/untagged.pid; exec sleep 300" & echo $$ > ${tmp}/daemon.pid; wait' & wait`,
      { BESTOF_TEST_TAG: 'tag-a' },
    );
    const bystander = startBash('exec sleep 300', { BESTOF_TEST_TAG: 'tag-b' });
    const daemonPid = await pidIn(join(tmp, 'daemon.pid'));
    const untaggedPid = await pidIn(join(tmp, 'untagged.pid'));
    expect(processesWithEnv('BESTOF_TEST_TAG', ['tag-a'])).not.toContain(untaggedPid);

    const signalled = signalProcessesWithEnv('BESTOF_TEST_TAG', ['tag-a'], 'SIGKILL');
    expect(signalled).toContain(daemonPid);
    expect(signalled).toContain(daemon.pid);
    expect(signalled).not.toContain(bystander.pid);
    for (const pid of [daemonPid, untaggedPid, daemon.pid as number]) await waitUntil(() => processIsGone(pid), `process ${pid} to end`);
    expect(processIsGone(bystander.pid as number)).toBe(false);
    expect(processesWithEnv('BESTOF_TEST_TAG', ['tag-a'])).toEqual([]);
  });
});

describe('parsePsEnvironment (macOS `ps -E`)', () => {
  it('finds the lines of our user whose environment words hold the entry', () => {
    const output = [
      '  101   501 /bin/sleep 300 TERM=xterm BESTOF_RUN_KEY=aaaa HOME=/Users/me',
      '  102   501 /bin/sleep 300 BESTOF_RUN_KEY=aaaab',
      '  103   502 /bin/sleep 300 BESTOF_RUN_KEY=aaaa',
      '    1     0 /sbin/launchd BESTOF_RUN_KEY=aaaa',
      'garbage',
      '  104   501 bash -c x XBESTOF_RUN_KEY=aaaa',
      '  105   501 node BESTOF_RUN_KEY=aaaa',
    ].join('\n');
    expect(parsePsEnvironment(output, ['BESTOF_RUN_KEY=aaaa'], 501)).toEqual([101, 105]);
  });
});
