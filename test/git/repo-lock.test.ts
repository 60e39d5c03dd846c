import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withRepoLock } from '../../src/git/running/repo-lock.js';
import { distModule, runNodeScript } from '../helpers/lock-holder.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { processIsGone, waitUntil } from '../helpers/wait.js';

const { tempDir, onCleanup } = tempRepos();

/** A child that takes the lock `rounds` times and logs each entry and exit; it reads its arguments from argv. */
const HOLDER = `
import { appendFileSync } from 'node:fs';
import { withRepoLock } from ${distModule('running/repo-lock.js')};
const [dir, log, rounds] = process.argv.slice(1);
for (let i = 0; i < Number(rounds); i++) {
  await withRepoLock(dir, 'test', async () => {
    appendFileSync(log, 'enter ' + process.pid + '\\n');
    await new Promise((resolve) => setTimeout(resolve, 1));
    appendFileSync(log, 'exit ' + process.pid + '\\n');
  });
}
`;

/** Every "enter p" is followed by "exit p" before anyone else enters. */
function expectNoOverlap(log: string, entries: number): void {
  const lines = log.trim().split('\n');
  expect(lines).toHaveLength(entries * 2);
  for (let i = 0; i < lines.length; i += 2) {
    const pid = lines[i]?.split(' ')[1];
    expect([lines[i], lines[i + 1]]).toEqual([`enter ${pid}`, `exit ${pid}`]);
  }
}

async function deadPid(): Promise<number> {
  const child = runNodeScript('');
  await child.done;
  return child.pid;
}

function liveProcess(): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore' });
  onCleanup(() => child.kill('SIGKILL'));
  return child.pid as number;
}

function startTicks(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

function writeLock(dir: string, owner: Record<string, unknown>): string {
  const path = join(dir, 'bestof-test.lock');
  writeFileSync(path, `${JSON.stringify({ hostname: hostname(), acquiredAt: Date.now(), nonce: 'someone', ...owner })}\n`);
  return path;
}

describe('withRepoLock', () => {
  it('lets one holder in at a time inside one process, in the order they asked', async () => {
    const dir = tempDir();
    let inside = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withRepoLock(dir, 'test', async () => {
          inside += 1;
          most = Math.max(most, inside);
          order.push(i);
          await new Promise((resolve) => setTimeout(resolve, 1));
          inside -= 1;
        }),
      ),
    );
    expect(most).toBe(1);
    expect(order).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(readdirSync(dir)).toEqual([]);
  });

  it('holds the lock file with its pid while fn runs, and removes it when fn settles, also when it throws', async () => {
    const dir = tempDir();
    const lock = join(dir, 'bestof-test.lock');
    const seen = await withRepoLock(dir, 'test', async () => JSON.parse(readFileSync(lock, 'utf8')) as { pid: number; hostname: string });
    expect(seen).toMatchObject({ pid: process.pid, hostname: hostname() });
    expect(existsSync(lock)).toBe(false);
    await expect(withRepoLock(dir, 'test', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(existsSync(lock)).toBe(false);
    expect(await withRepoLock(dir, 'test', async () => 'next')).toBe('next');
  });

  it('lets one holder in at a time across processes', async () => {
    const dir = tempDir();
    const log = join(dir, 'log');
    const children = [1, 2, 3].map(() => runNodeScript(HOLDER, [dir, log, '25']));
    const results = await Promise.all(children.map((c) => c.done));
    for (const r of results) expect(r).toMatchObject({ code: 0, stderr: '' });
    expectNoOverlap(readFileSync(log, 'utf8'), 75);
    expect(readdirSync(dir).filter((f) => f !== 'log')).toEqual([]);
  });

  it('takes over the lock of a dead process, and lets only one of several waiters take it', async () => {
    const dir = tempDir();
    writeLock(dir, { pid: await deadPid() });
    expect(await withRepoLock(dir, 'test', async () => 'mine')).toBe('mine');

    writeLock(dir, { pid: await deadPid() });
    const log = join(dir, 'log');
    const children = [1, 2, 3, 4].map(() => runNodeScript(HOLDER, [dir, log, '5']));
    for (const r of await Promise.all(children.map((c) => c.done))) expect(r).toMatchObject({ code: 0, stderr: '' });
    expectNoOverlap(readFileSync(log, 'utf8'), 20);
  });

  it('takes over a lock whose pid now belongs to a process that started later, and a garbled lock once it is old', async () => {
    const dir = tempDir();
    const pid = liveProcess();
    writeLock(dir, { pid, processStart: startTicks(pid) - 1 });
    expect(await withRepoLock(dir, 'test', async () => 'reused pid')).toBe('reused pid');

    const garbled = join(dir, 'bestof-test.lock');
    writeFileSync(garbled, '');
    const old = new Date(Date.now() - 60_000);
    utimesSync(garbled, old, old);
    expect(await withRepoLock(dir, 'test', async () => 'garbled')).toBe('garbled');
  });

  it('waits while a live process holds it; abort rejects the wait; the holder gone, the lock is taken', async () => {
    const dir = tempDir();
    const pid = liveProcess();
    writeLock(dir, { pid, processStart: startTicks(pid) });
    const controller = new AbortController();
    let ran = false;
    const waiting = withRepoLock(dir, 'test', async () => (ran = true), { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('stop waiting')), 100);
    await expect(waiting).rejects.toThrow('stop waiting');
    expect(ran).toBe(false);
    expect(JSON.parse(readFileSync(join(dir, 'bestof-test.lock'), 'utf8'))).toMatchObject({ pid });

    process.kill(pid, 'SIGKILL');
    await waitUntil(() => processIsGone(pid), 'the holder to end');
    expect(await withRepoLock(dir, 'test', async () => 'after')).toBe('after');
  });

  it('an aborted waiter inside one process leaves the queue working for the others', async () => {
    const dir = tempDir();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const entered: string[] = [];
    let inside!: () => void;
    const firstInside = new Promise<void>((resolve) => (inside = resolve));
    const first = withRepoLock(dir, 'test', async () => {
      entered.push('first');
      inside();
      await held;
    });
    const controller = new AbortController();
    const second = withRepoLock(dir, 'test', async () => entered.push('second'), { signal: controller.signal });
    const third = withRepoLock(dir, 'test', async () => entered.push('third'));
    await firstInside;
    controller.abort(new Error('cancelled'));
    await expect(second).rejects.toThrow('cancelled');
    expect(entered).toEqual(['first']);
    release();
    await Promise.all([first, third]);
    expect(entered).toEqual(['first', 'third']);
  });
});
