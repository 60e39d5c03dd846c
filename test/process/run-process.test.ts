import { execFileSync } from 'node:child_process';
import { getEventListeners } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { killAllChildrenNow, runProcess, runShell } from '../../src/process/run-process.js';
import type { RunProcessOptions } from '../../src/process/types.js';
import { waitUntil } from '../helpers/wait.js';

const tmp = mkdtempSync(join(tmpdir(), 'bestof-process-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const base: RunProcessOptions = { cwd: tmp, env: { PATH: process.env.PATH } };
const bash = (script: string, options: Partial<RunProcessOptions> = {}) => runProcess('bash', ['-c', script], { ...base, ...options });

/**
 * A killed grandchild is reparented to PID 1 and stays a zombie until PID 1 reaps it, which
 * some container inits do only every second or so; a zombie counts as gone (Linux /proc).
 */
function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    expect((error as NodeJS.ErrnoException).code).toBe('ESRCH');
    return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; the command name before it is in parentheses.
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] !== 'Z';
  } catch {
    return true; // no /proc (macOS): kill(pid, 0) is all we have
  }
}

/** Reaping is asynchronous: poll for a few seconds before deciding a process survived. */
async function expectGone(pid: number): Promise<void> {
  for (let i = 0; i < 100 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 50));
  expect(isAlive(pid)).toBe(false);
}

function hasSetsid(): boolean {
  try {
    execFileSync('bash', ['-c', 'command -v setsid'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Reads the grandchild pid printed by the child as its first stdout line. */
function pidFrom(lines: string[]): number {
  const pid = Number(lines[0]);
  expect(Number.isInteger(pid) && pid > 0).toBe(true);
  return pid;
}

describe('runProcess', () => {
  it('captures exit code, stdout and stderr, and streams lines in order', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const result = await bash('printf "a\\nb\\r\\nc"; echo oops >&2; printf "last" >&2', {
      onStdoutLine: (l) => out.push(l),
      onStderrLine: (l) => err.push(l),
    });
    expect(result).toMatchObject({ exitCode: 0, ok: true, timedOut: false, canceled: false, spawnError: undefined });
    expect(result.stdout).toBe('a\nb\r\nc');
    expect(result.stderr).toBe('oops\nlast');
    expect(out).toEqual(['a', 'b', 'c']);
    expect(err).toEqual(['oops', 'last']);
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('delivers stdin input and closes stdin', async () => {
    const result = await runProcess('cat', [], { ...base, input: 'hello\nworld' });
    expect(result.ok).toBe(true);
    expect(result.stdout).toBe('hello\nworld');
  });

  it('gives the child an empty, closed stdin when there is no input', async () => {
    const result = await runProcess('cat', [], { ...base, timeoutMs: 20_000 });
    expect(result).toMatchObject({ ok: true, timedOut: false, stdout: '' });
  });

  it('passes exactly the given environment, plus a tag of its own per child', async () => {
    const result = await bash('echo "$FOO:${HOME-unset}"', { env: { PATH: process.env.PATH, FOO: 'bar' } });
    expect(result.stdout).toBe('bar:unset\n');
    const names = await runProcess(process.execPath, ['-e', 'console.log(Object.keys(process.env).sort().join(" "))'], {
      ...base,
      env: { PATH: process.env.PATH, FOO: 'bar' },
    });
    expect(names.stdout).toBe('BESTOF_PROCESS_TAG FOO PATH\n');
    const tags = await Promise.all([1, 2].map(async () => (await bash('echo "$BESTOF_PROCESS_TAG"')).stdout.trim()));
    expect(tags[0]).toMatch(/^[0-9a-f]{16}$/);
    expect(tags[1]).not.toBe(tags[0]);
  });

  it('returns a nonzero exit code as a value', async () => {
    const result = await bash('echo nope >&2; exit 3');
    expect(result).toMatchObject({ exitCode: 3, ok: false, spawnError: undefined, stderr: 'nope\n' });
  });

  it('reports a missing binary as spawnError without throwing', async () => {
    const result = await runProcess('bestof-no-such-binary', ['x'], base);
    expect(result.ok).toBe(false);
    expect(result.exitCode).toBeUndefined();
    expect(result.spawnError).toBe('cannot start bestof-no-such-binary: not found (ENOENT)');
  });

  it('reports an argument the system or Node refuses (over 128 KiB: E2BIG; a NUL byte) as spawnError without throwing', async () => {
    const tooLong = await runProcess('echo', ['x'.repeat(200_000)], base);
    expect(tooLong.ok).toBe(false);
    expect(tooLong.exitCode).toBeUndefined();
    expect(tooLong.spawnError).toMatch(
      /^cannot start echo: its arguments are too long for the system \(one argument may be at most 128 KiB on Linux.*\(E2BIG\)$/,
    );
    const withNul = await runProcess('echo', ['a\0b'], base);
    expect(withNul.ok).toBe(false);
    expect(withNul.spawnError).toBe(
      'cannot start echo: an argument or a value of its environment holds a NUL byte, which no program can be given (ERR_INVALID_ARG_VALUE)',
    );
  });

  it('reports a missing working directory as spawnError', async () => {
    const result = await runProcess('true', [], { ...base, cwd: join(tmp, 'missing') });
    expect(result.ok).toBe(false);
    expect(result.spawnError).toContain('working directory');
  });

  it('kills the whole tree on timeout', async () => {
    const lines: string[] = [];
    const result = await bash('sleep 300 & echo $!; wait', { timeoutMs: 300, onStdoutLine: (l) => lines.push(l) });
    expect(result).toMatchObject({ timedOut: true, canceled: false, ok: false, exitCode: undefined });
    expect(result.signal).toBe('SIGTERM');
    await expectGone(pidFrom(lines));
  });

  it('SIGKILLs a child that ignores SIGTERM after the grace period', async () => {
    const lines: string[] = [];
    const result = await bash("trap '' TERM; sleep 300 & echo $!; while true; do sleep 0.05; done", {
      timeoutMs: 300,
      killGraceMs: 200,
      onStdoutLine: (l) => lines.push(l),
    });
    expect(result.timedOut).toBe(true);
    expect(result.signal).toBe('SIGKILL');
    await expectGone(pidFrom(lines));
  });

  it('cancels via AbortSignal mid-run and kills the tree', async () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const result = await bash('sleep 300 & echo $!; wait', {
      signal: controller.signal,
      onStdoutLine: (l) => {
        lines.push(l);
        controller.abort();
      },
    });
    expect(result).toMatchObject({ canceled: true, timedOut: false, ok: false });
    await expectGone(pidFrom(lines));
  });

  it('does not start the process when the signal is already aborted', async () => {
    const marker = join(tmp, 'should-not-exist');
    const result = await bash(`touch ${marker}`, { signal: AbortSignal.abort() });
    expect(result).toMatchObject({ canceled: true, ok: false, exitCode: undefined });
    await new Promise((r) => setTimeout(r, 200));
    expect(() => readFileSync(marker)).toThrow();
  });

  it('returns when a normally exiting child leaves a grandchild holding the pipe, and kills it', async () => {
    const lines: string[] = [];
    const result = await bash('sleep 300 & echo $!', { onStdoutLine: (l) => lines.push(l) });
    expect(result).toMatchObject({ exitCode: 0, ok: true });
    await expectGone(pidFrom(lines));
  });

  it.skipIf(!hasSetsid())('returns when a grandchild escaped the group (setsid) and holds the pipe open, and kills it', async () => {
    const lines: string[] = [];
    // The sleep 0.2 makes sure setsid() has happened before the child exits.
    const result = await bash('setsid sleep 30 & echo $!; sleep 0.2', { onStdoutLine: (l) => lines.push(l) });
    expect(result).toMatchObject({ exitCode: 0, ok: true });
    await expectGone(pidFrom(lines));
  });

  // A daemon: its own session, stdio on /dev/null, and a child of its own that dropped the tag
  // (it stays in the daemon's group). It writes "<daemon pid> <child pid>" once both run.
  const DAEMON =
    `setsid bash -c 'env -u BESTOF_PROCESS_TAG sleep 300 & echo "$$ $!" > "$0.tmp"; mv "$0.tmp" "$0"; wait' "$DAEMON_FILE" </dev/null >/dev/null 2>&1 &` +
    ' until [ -f "$DAEMON_FILE" ]; do sleep 0.05; done;';
  const daemonPids = (file: string): number[] => readFileSync(file, 'utf8').trim().split(' ').map(Number);

  it.skipIf(!hasSetsid())('kills a setsid daemon the child started, and its group, once the child has exited', async () => {
    const file = join(tmp, 'daemon-exit.pids');
    const result = await bash(`${DAEMON} echo started`, { env: { ...base.env, DAEMON_FILE: file } });
    expect(result).toMatchObject({ exitCode: 0, ok: true, stdout: 'started\n' });
    const pids = daemonPids(file);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await expectGone(pid);
  });

  it.skipIf(!hasSetsid())('kills a setsid daemon of a child cancelled while it ignores SIGTERM', async () => {
    const file = join(tmp, 'daemon-cancel.pids');
    const controller = new AbortController();
    const result = await bash(`trap '' TERM; ${DAEMON} echo started; while true; do sleep 0.05; done`, {
      env: { ...base.env, DAEMON_FILE: file },
      signal: controller.signal,
      killGraceMs: 200,
      onStdoutLine: () => controller.abort(),
    });
    expect(result).toMatchObject({ canceled: true, signal: 'SIGKILL' });
    const pids = daemonPids(file);
    expect(pids).toHaveLength(2);
    for (const pid of pids) await expectGone(pid);
  });

  it('removes its abort listener when done', async () => {
    const controller = new AbortController();
    await bash('true', { signal: controller.signal, timeoutMs: 10_000 });
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('rethrows an exception from a line callback (a bug) after killing the child', async () => {
    const lines: string[] = [];
    const run = bash('sleep 300 & echo $!; wait', {
      onStdoutLine: (l) => {
        lines.push(l);
        throw new Error('callback bug');
      },
    });
    await expect(run).rejects.toThrow('callback bug');
    await expectGone(pidFrom(lines));
  });

  it('appends raw output to logFile, creating its folder', async () => {
    const logFile = join(tmp, 'logs', 'nested', 'run.log');
    await bash('printf "one\\r\\n"; printf "two" >&2', { logFile });
    await bash('printf "three"', { logFile });
    const log = readFileSync(logFile, 'utf8');
    expect(log).toContain('one\r\n');
    expect(log).toContain('two');
    expect(log.endsWith('three')).toBe(true);
  });

  it('keeps only the last maxBufferTail bytes but still streams every line', async () => {
    let count = 0;
    const result = await bash('for i in $(seq 1 5000); do echo "line $i"; done', {
      maxBufferTail: 100,
      onStdoutLine: () => count++,
    });
    expect(count).toBe(5000);
    expect(Buffer.byteLength(result.stdout)).toBeLessThanOrEqual(100);
    expect(result.stdout.endsWith('line 4999\nline 5000\n')).toBe(true);
  });

  it('does not cut a multi-byte character when trimming the tail', async () => {
    const result = await bash('printf "ééééé"', { maxBufferTail: 5 });
    expect(result.stdout).toBe('éé');
  });
});

describe('killAllChildrenNow', () => {
  it.skipIf(!hasSetsid())('SIGKILLs at once every running child, whatever it ignores, its group and its daemons', async () => {
    const files = [join(tmp, 'now-1.pids'), join(tmp, 'now-2.pids')];
    const stubborn = (file: string) =>
      runShell(
        `trap '' TERM INT HUP; sleep 300 & echo "$!" > "${file}.child"; setsid sleep 300 </dev/null >/dev/null 2>&1 & echo "$!" > "${file}.tmp"; mv "${file}.tmp" "${file}"; while true; do sleep 0.05; done`,
        base,
      );
    const runs = files.map(stubborn);
    await waitUntil(() => files.every((file) => existsSync(file)), 'both children to start their daemons');
    killAllChildrenNow();
    const results = await Promise.all(runs);
    for (const result of results) expect(result).toMatchObject({ signal: 'SIGKILL', ok: false, timedOut: false, canceled: false });
    for (const file of files) {
      await expectGone(Number(readFileSync(file, 'utf8')));
      await expectGone(Number(readFileSync(`${file}.child`, 'utf8')));
    }
  });

  it('does nothing when no child is running', async () => {
    killAllChildrenNow();
    expect((await bash('echo still fine')).stdout).toBe('still fine\n');
  });
});

describe('runShell', () => {
  it('runs a shell pipeline', async () => {
    const result = await runShell('printf "b\\na\\nc\\n" | sort | head -n 2', base);
    expect(result).toMatchObject({ ok: true, stdout: 'a\nb\n' });
  });
});
