import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { killRunProcessesNow, readRunKey, stopRunLeftovers, writeRunKey } from '../../src/engine/sandbox/leftovers.js';
import { processesWithEnv, StartedGroups } from '../helpers/processes.js';
import { processIsGone, waitUntil } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'bestof-leftovers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const started = new StartedGroups();
const keys: string[] = [];
afterEach(() => {
  // What a failing test left: the groups it started, and the daemons (found by their keys).
  started.killAll();
  for (const pid of keys.splice(0).flatMap((key) => processesWithEnv('BESTOF_RUN_KEY', key))) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** A fresh key per test, so that nothing a failed run of it left can match. */
function newKey(): string {
  const key = randomBytes(8).toString('hex');
  keys.push(key);
  return key;
}

/** `bash -c script` in a process group of its own, carrying `BESTOF_RUN_KEY=key`. */
function startWithKey(key: string, script: string): ChildProcess {
  const child = spawn('bash', ['-c', script], { env: { ...process.env, BESTOF_RUN_KEY: key }, detached: true, stdio: 'ignore' });
  started.add(child.pid);
  return child;
}

/**
 * A process of another run: it notes every SIGTERM it gets in `file`, and lives on. It answers
 * a probe file with "ack" in the same file: bash runs a pending trap before its next command, so
 * once the ack is there, every SIGTERM sent before the probe has been noted.
 */
function bystander(key: string, file: string): ChildProcess {
  return startWithKey(
    key,
    `trap 'echo TERM >> "${file}"' TERM; echo ready > "${file}.ready"; ` +
      `while true; do if [ -f "${file}.probe" ]; then rm -f "${file}.probe"; echo ack >> "${file}"; fi; sleep 0.05; done`,
  );
}

/** How many SIGTERMs the bystander writing `file` has received so far. */
async function termsSeenBy(file: string): Promise<number> {
  const acks = (): number =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter((l) => l === 'ack').length
      : 0;
  const before = acks();
  writeFileSync(`${file}.probe`, '');
  await waitUntil(() => acks() > before, `the process writing ${file} to answer`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l === 'TERM').length;
}

describe.runIf(process.platform === 'linux')('stopRunLeftovers', () => {
  it('returns 0 and signals nothing when no process carries the key', async () => {
    const noted = join(tmp, 'other-run-a.txt');
    const other = bystander(newKey(), noted);
    await waitUntil(() => existsSync(`${noted}.ready`), "the other run's process to start");
    expect(await stopRunLeftovers(newKey(), { graceMs: 100 })).toBe(0);
    expect(await termsSeenBy(noted)).toBe(0);
    expect(processIsGone(other.pid as number)).toBe(false);
    // The probe does see a SIGTERM.
    process.kill(other.pid as number, 'SIGTERM');
    expect(await termsSeenBy(noted)).toBe(1);
  });

  it('stops every process of the run (one that ignores SIGTERM, a setsid daemon), and none of another run, even one whose key starts alike', async () => {
    const key = newKey();
    // `exec sleep` keeps the counts exact: an ignored signal stays ignored across exec.
    const stubborn = startWithKey(key, "trap '' TERM; exec sleep 300");
    // setsid forks (its caller leads a group) and the parent exits: only the daemon stays.
    startWithKey(key, `exec setsid bash -c 'echo $$ > "${tmp}/daemon.pid"; exec sleep 300' </dev/null >/dev/null 2>&1`);
    const noted = join(tmp, 'other-run-b.txt');
    const other = bystander(`${key}0`, noted);
    keys.push(`${key}0`);
    await waitUntil(() => existsSync(join(tmp, 'daemon.pid')) && existsSync(`${noted}.ready`), 'the processes to start');
    await waitUntil(() => processesWithEnv('BESTOF_RUN_KEY', key).length === 2, 'exactly the stubborn process and the daemon to carry the key');
    const daemon = Number(readFileSync(join(tmp, 'daemon.pid'), 'utf8'));

    expect(await stopRunLeftovers(key, { graceMs: 300 })).toBe(2);
    for (const pid of [stubborn.pid as number, daemon]) await waitUntil(() => processIsGone(pid), `process ${pid} to end`);
    expect(processesWithEnv('BESTOF_RUN_KEY', key)).toEqual([]);
    expect(processIsGone(other.pid as number)).toBe(false);
    expect(await termsSeenBy(noted)).toBe(0);
  });
});

describe.runIf(process.platform === 'linux')('killRunProcessesNow', () => {
  it('SIGKILLs every process that carries the key, synchronously, and no other', async () => {
    const key = newKey();
    const mine = startWithKey(key, "trap '' TERM; exec sleep 300");
    const noted = join(tmp, 'other-run-c.txt');
    const other = bystander(newKey(), noted);
    await waitUntil(() => processesWithEnv('BESTOF_RUN_KEY', key).length === 1 && existsSync(`${noted}.ready`), 'the processes to start');
    expect(killRunProcessesNow(key)).toBe(1);
    await waitUntil(() => processIsGone(mine.pid as number), "the run's process to end");
    expect(processIsGone(other.pid as number)).toBe(false);
    expect(await termsSeenBy(noted)).toBe(0);
  });
});

describe('readRunKey', () => {
  it('reads back the key written in a run folder', () => {
    const runDir = mkdtempSync(join(tmp, 'run-'));
    writeRunKey(runDir, '0f1e2d3c4b5a6978');
    expect(readRunKey(runDir)).toBe('0f1e2d3c4b5a6978');
  });

  it('is undefined for a run folder without a key (a run made before keys existed) or with something else in its place', () => {
    const runDir = mkdtempSync(join(tmp, 'run-'));
    expect(readRunKey(runDir)).toBeUndefined();
    writeFileSync(join(runDir, 'run-key'), '\n');
    expect(readRunKey(runDir)).toBeUndefined();
    writeFileSync(join(runDir, 'run-key'), 'x=1 rm -rf\n');
    expect(readRunKey(runDir)).toBeUndefined();
  });
});
