/**
 * The tmux driver against real tmux, on servers of the tests' own (a socket in a temp folder,
 * never the user's default server), with tiny Node programs in the panes.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  attachArgs,
  capturePane,
  killServer,
  killSession,
  pasteText,
  probeTmux,
  readExitStatus,
  sendKeys,
  sessionAlive,
  startSession,
  typeText,
  waitForScreen,
  type StartOptions,
  type TmuxSession,
} from '../../src/process/tmux.js';
import { processesWithArg } from '../helpers/processes.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const probe = await probeTmux();
if (!probe.ok) throw new Error(`these tests need tmux (it is part of the product: the shannon provider runs in it): ${probe.error}`);

const { tempDir } = tempRepos();
const sockets: string[] = [];
afterEach(async () => {
  while (sockets.length > 0) await killServer(sockets.pop()!);
});

/** A fresh socket in a temp folder of its own, killed after the test. */
function newSocket(): string {
  const socket = join(tempDir(), 'tmux.sock');
  sockets.push(socket);
  return socket;
}

function tmuxCli(socket: string, ...args: string[]): string {
  return execFileSync('tmux', ['-S', socket, ...args], { encoding: 'utf8', env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
}

/** A tiny Node program in a file; `argv[2]` onwards are its arguments. */
function program(source: string): string {
  const file = join(tempDir(), 'program.cjs');
  writeFileSync(file, source);
  return file;
}

/** Writes its environment as JSON to argv[2], prints READY, waits to be killed. */
// Written to a temp name and renamed: the test polls for the file, and a file seen between
// its creation and its write would read as empty JSON (a race the tmux tier once lost).
const ENV_DUMP = `
require('fs').writeFileSync(process.argv[2] + '.tmp', JSON.stringify(process.env));
require('fs').renameSync(process.argv[2] + '.tmp', process.argv[2]);
process.stdout.write('READY\\n');
setInterval(() => {}, 1000);
`;

/** Raw mode and bracketed paste on, like a TUI; appends every byte it reads to argv[2]. */
const RAW_RECORDER = `
const fs = require('fs');
process.stdin.setRawMode(true);
process.stdout.write('\\x1b[?2004h');
process.stdin.on('data', (chunk) => fs.appendFileSync(process.argv[2], chunk));
process.stdout.write('READY\\n');
`;

function options(overrides: Partial<StartOptions> & Pick<StartOptions, 'socket' | 'args'>): StartOptions {
  return {
    name: 's1',
    cwd: tempDir(),
    command: process.execPath,
    env: { PATH: process.env.PATH },
    exitFile: join(tempDir(), 'exit-status'),
    ...overrides,
  };
}

async function started(start: StartOptions): Promise<TmuxSession> {
  const session = await startSession(start);
  if (!session.ok) throw new Error(session.error);
  return session.value;
}

const untilScreenHas = (text: string) => (screen: string) => screen.includes(text);

describe('probeTmux', () => {
  it('finds tmux on PATH and reads its version', () => {
    expect(probe.ok && probe.value.binary).toMatch(/\/tmux$/);
    expect(probe.ok && probe.value.version).toMatch(/^\d+\.\d+/);
  });

  it('says how to install tmux when PATH has none', async () => {
    const missing = await probeTmux({ PATH: tempDir() });
    expect(missing).toEqual({ ok: false, error: expect.stringMatching(/tmux is not on PATH: install tmux .*apt-get install tmux/) });
  });
});

describe('startSession', () => {
  it('gives the program exactly the env it was given: nothing of the caller, nothing of the server', async () => {
    vi.stubEnv('ONLY_IN_THE_TEST_PROCESS', 'caller-value');
    const socket = newSocket();
    const env = {
      PATH: process.env.PATH,
      TERM: 'tmux-256color',
      ANTHROPIC_API_KEY: 'sk-secret-value-0123456789',
      MULTI_LINE: 'one\ntwo',
      'NAME.WITH-DOTS': 'odd but allowed',
      BESTOF_RUN_KEY: 'run-key-1',
      BESTOF_PROCESS_TAG: 'tag-1',
      UNSET_ONE: undefined,
    };
    const first = join(tempDir(), 'env-1.json');
    await started(options({ socket, name: 'first', env, args: [program(ENV_DUMP), first] }));
    // A stale variable in the server's global environment must not reach later sessions.
    tmuxCli(socket, 'set-environment', '-g', 'STALE_GLOBAL', 'stale');
    const second = join(tempDir(), 'env-2.json');
    await started(options({ socket, name: 'second', env, args: [program(ENV_DUMP), second] }));
    await waitUntil(() => existsSync(first) && existsSync(second), 'both programs to write their env');

    const { UNSET_ONE: _, ...expected } = env;
    expect(JSON.parse(readFileSync(first, 'utf8'))).toEqual(expected);
    expect(JSON.parse(readFileSync(second, 'utf8'))).toEqual(expected);
    vi.unstubAllEnvs();
  });

  it('starts the server with the run key and the process tag, and no secret', async () => {
    const socket = newSocket();
    await started(
      options({
        socket,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: 'sk-secret-value-0123456789', BESTOF_RUN_KEY: 'run-key-2', BESTOF_PROCESS_TAG: 'tag-2' },
        args: [program(ENV_DUMP), join(tempDir(), 'env.json')],
      }),
    );
    const serverPid = tmuxCli(socket, 'display-message', '-p', '#{pid}').trim();
    const environ = readFileSync(`/proc/${serverPid}/environ`, 'utf8').split('\0').filter(Boolean);
    expect(environ.sort()).toEqual(['BESTOF_PROCESS_TAG=tag-2', 'BESTOF_RUN_KEY=run-key-2']);
    expect(tmuxCli(socket, 'show-environment', '-g')).not.toContain('sk-secret');
  });

  it('never shows a secret of the env in any argv, and leaves no env file behind', async () => {
    const secret = `sk-secret-${Date.now()}-never-in-argv`;
    const socket = newSocket();
    const seen: string[] = [];
    let scanning = true;
    // Scan every process's argv while the session starts and runs.
    const scanner = (async () => {
      while (scanning) {
        seen.push(...processesWithArg(secret).map(String));
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    const session = await started(
      options({
        socket,
        env: { PATH: process.env.PATH, ANTHROPIC_API_KEY: secret },
        args: [program(ENV_DUMP), join(tempDir(), 'env.json')],
      }),
    );
    await waitForScreen(session, untilScreenHas('READY'), { timeoutMs: 20_000 });
    scanning = false;
    await scanner;

    expect(seen).toEqual([]);
    // The socket's folder holds the socket and nothing else: the env file and its folder are gone.
    expect(readdirSync(join(socket, '..'))).toEqual(['tmux.sock']);
  });

  it('writes the exit status to the exit file, and the session ends with the program', async () => {
    const socket = newSocket();
    const exitFile = join(tempDir(), 'nested', 'exit');
    const session = await started(options({ socket, exitFile, args: [program('setTimeout(() => process.exit(3), 300)')] }));
    await waitUntil(() => existsSync(exitFile), 'the exit file');
    expect(readFileSync(exitFile, 'utf8')).toBe('3\n');
    expect(await readExitStatus(exitFile)).toBe(3);
    const gone = await waitForScreen(session, () => false, { timeoutMs: 20_000 });
    expect(!gone.ok && gone.error.reason).toBe('gone');
    expect(await sessionAlive(session)).toBe(false);
  });

  it('writes 128+N when signal N ended the program', async () => {
    const socket = newSocket();
    const exitFile = join(tempDir(), 'exit');
    await started(options({ socket, exitFile, args: [program("setTimeout(() => process.kill(process.pid, 'SIGKILL'), 200)")] }));
    await waitUntil(() => existsSync(exitFile), 'the exit file');
    expect(await readExitStatus(exitFile)).toBe(128 + 9);
  });

  it('passes the args untouched, even those tmux would read as syntax', async () => {
    const socket = newSocket();
    const out = join(tempDir(), 'args.json');
    const args = ['a;', ';', '#{pane_id}', '~', '$HOME', '{', "it's", '"q"', ''];
    await started(
      options({
        socket,
        args: [
          program(
            `require('fs').writeFileSync(${JSON.stringify(out + '.tmp')}, JSON.stringify(process.argv.slice(2))); require('fs').renameSync(${JSON.stringify(out + '.tmp')}, ${JSON.stringify(out)})`,
          ),
          ...args,
        ],
      }),
    );
    await waitUntil(() => existsSync(out), 'the program to write its args');
    expect(JSON.parse(readFileSync(out, 'utf8'))).toEqual(args);
  });

  it('runs the program in the given cwd, at the given size', async () => {
    const socket = newSocket();
    const cwd = tempDir();
    const session = await started(
      options({
        socket,
        cwd,
        width: 100,
        height: 30,
        args: [program("process.stdout.write(process.cwd() + ' ' + process.stdout.columns + 'x' + process.stdout.rows + '\\n'); setInterval(() => {}, 1000)")],
      }),
    );
    const screen = await waitForScreen(session, untilScreenHas('x30'), { timeoutMs: 20_000 });
    expect(screen.ok && screen.value).toContain(`${cwd} 100x30`);
  });

  it('refuses what it cannot start, saying what and why', async () => {
    const socket = newSocket();
    const args = [program('')];
    expect(await startSession(options({ socket, command: 'node', args }))).toEqual({ ok: false, error: expect.stringContaining('must be an absolute path') });
    expect(await startSession(options({ socket, command: join(tempDir(), 'missing'), args }))).toEqual({
      ok: false,
      error: expect.stringContaining('does not exist or is not executable'),
    });
    expect(await startSession(options({ socket, name: 'a:b', args }))).toEqual({
      ok: false,
      error: expect.stringContaining('session name "a:b" is not allowed'),
    });
    expect(await startSession(options({ socket: `/tmp/${'x'.repeat(120)}/tmux.sock`, args }))).toEqual({
      ok: false,
      error: expect.stringContaining('choose a shorter folder'),
    });
    expect(await startSession(options({ socket, cwd: join(tempDir(), 'gone'), args }))).toEqual({ ok: false, error: expect.stringContaining('not found') });
    const aFile = join(tempDir(), 'a-file');
    writeFileSync(aFile, '');
    expect(await startSession(options({ socket: join(aFile, 'tmux.sock'), args }))).toEqual({
      ok: false,
      error: expect.stringContaining(`cannot prepare ${aFile}`),
    });
  });

  it('refuses a second session of the same name on the server', async () => {
    const socket = newSocket();
    const args = [program('setInterval(() => {}, 1000)')];
    await started(options({ socket, args }));
    const again = await startSession(options({ socket, args }));
    expect(again).toEqual({ ok: false, error: expect.stringMatching(/cannot start tmux session s1 on .*duplicate session/) });
  });

  it('starts a new server over the socket of one that was SIGKILLed (a killed run)', async () => {
    const socket = newSocket();
    const args = [program("process.stdout.write('READY\\n'); setInterval(() => {}, 1000)")];
    await started(options({ socket, args }));
    process.kill(Number(tmuxCli(socket, 'display-message', '-p', '#{pid}').trim()), 'SIGKILL');
    await waitUntil(() => {
      try {
        tmuxCli(socket, 'list-sessions');
        return false;
      } catch {
        return true;
      }
    }, 'the server to be gone');
    expect(existsSync(socket)).toBe(true);
    const again = await started(options({ socket, args }));
    expect((await waitForScreen(again, untilScreenHas('READY'), { timeoutMs: 20_000 })).ok).toBe(true);
  });

  it('returns an error, not a session, when aborted before it starts', async () => {
    const socket = newSocket();
    const controller = new AbortController();
    controller.abort();
    const result = await startSession(options({ socket, args: [program('')], signal: controller.signal }));
    expect(result).toEqual({ ok: false, error: expect.stringContaining('cancelled') });
  });
});

describe('the screen and the keys', () => {
  it('captures what the program drew, and "" once the session is gone', async () => {
    const socket = newSocket();
    const session = await started(options({ socket, args: [program("process.stdout.write('❯ hello from the pane\\n'); setInterval(() => {}, 1000)")] }));
    const screen = await waitForScreen(session, untilScreenHas('hello'), { timeoutMs: 20_000 });
    expect(screen.ok && screen.value).toContain('❯ hello from the pane');
    expect(await capturePane(session)).toContain('❯ hello from the pane');
    await killSession(session);
    expect(await capturePane(session)).toBe('');
  });

  it('pastes several lines as one bracketed paste, and Enter is a separate carriage return', async () => {
    const socket = newSocket();
    const out = join(tempDir(), 'bytes');
    const session = await started(options({ socket, args: [program(RAW_RECORDER), out] }));
    await waitForScreen(session, untilScreenHas('READY'), { timeoutMs: 20_000 });
    expect(await pasteText(session, 'first line\nsecond line\nthird line')).toEqual({ ok: true, value: undefined });
    expect(await sendKeys(session, 'Enter')).toEqual({ ok: true, value: undefined });
    expect(await typeText(session, 'x;')).toEqual({ ok: true, value: undefined });
    await waitUntil(() => readFileSync(out, 'utf8').endsWith('x;'), 'the program to read the keys');
    expect(readFileSync(out, 'utf8')).toBe('\x1b[200~first line\rsecond line\rthird line\x1b[201~\rx;');
    // The paste buffer was deleted after the paste.
    expect(tmuxCli(socket, 'list-buffers')).toBe('');
  });

  it('fails to paste or send keys to a session that is gone, saying which', async () => {
    const socket = newSocket();
    const session = await started(options({ socket, args: [program('setInterval(() => {}, 1000)')] }));
    await killSession(session);
    expect(await pasteText(session, 'text')).toEqual({ ok: false, error: expect.stringContaining('cannot paste into tmux session s1') });
    expect(await sendKeys(session, 'Enter')).toEqual({ ok: false, error: expect.stringContaining('cannot send Enter to tmux session s1') });
  });
});

describe('waitForScreen', () => {
  it('times out with the text of the screen it is stuck on', async () => {
    const socket = newSocket();
    const session = await started(
      options({ socket, args: [program("process.stdout.write('Do you trust the files in this folder?\\n'); setInterval(() => {}, 1000)")] }),
    );
    await waitForScreen(session, untilScreenHas('trust'), { timeoutMs: 20_000 });
    const stuck = await waitForScreen(session, untilScreenHas('never shown'), { timeoutMs: 300, intervalMs: 50 });
    expect(stuck).toEqual({ ok: false, error: { reason: 'timeout', screen: 'Do you trust the files in this folder?' } });
  });

  it('stops when the signal aborts, with the last screen', async () => {
    const socket = newSocket();
    const session = await started(options({ socket, args: [program("process.stdout.write('still working\\n'); setInterval(() => {}, 1000)")] }));
    await waitForScreen(session, untilScreenHas('working'), { timeoutMs: 20_000 });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const aborted = await waitForScreen(session, untilScreenHas('never shown'), { timeoutMs: 60_000, signal: controller.signal });
    expect(aborted).toEqual({ ok: false, error: { reason: 'aborted', screen: 'still working' } });
  });

  it('says gone when the session ends while it waits', async () => {
    const socket = newSocket();
    const session = await started(options({ socket, args: [program("process.stdout.write('about to exit\\n'); setTimeout(() => {}, 500)")] }));
    const gone = await waitForScreen(session, untilScreenHas('never shown'), { timeoutMs: 60_000 });
    expect(gone.ok).toBe(false);
    expect(!gone.ok && gone.error.reason).toBe('gone');
  });
});

describe('killing', () => {
  /** Ignores SIGHUP (the pane closing) and SIGTERM, like a program that will not go. */
  const STUBBORN = `
process.on('SIGHUP', () => {}); process.on('SIGTERM', () => {});
process.stdout.write('READY\\n');
setInterval(() => {}, 1000);
`;

  it('killSession ends the program even when it ignores the hangup, and can be called again', async () => {
    const socket = newSocket();
    const marker = `stubborn-${Date.now()}`;
    const session = await started(options({ socket, args: [program(STUBBORN), marker] }));
    const other = await started(options({ socket, name: 's2', args: [program('setInterval(() => {}, 1000)')] }));
    await waitForScreen(session, untilScreenHas('READY'), { timeoutMs: 20_000 });
    expect(processesWithArg(marker)).toHaveLength(1);

    await killSession(session);
    expect(await sessionAlive(session)).toBe(false);
    await waitUntil(() => processesWithArg(marker).length === 0, 'the stubborn program to be gone');
    await killSession(session);
    await killSession({ socket, name: 'never-existed' });
    // The other session on the server is untouched.
    expect(await sessionAlive(other)).toBe(true);
  });

  it('killServer ends every session and removes the socket; again, or with no server, is fine', async () => {
    const socket = newSocket();
    const marker = `server-${Date.now()}`;
    const one = await started(options({ socket, name: 'one', args: [program(STUBBORN), marker] }));
    const two = await started(options({ socket, name: 'two', args: [program(STUBBORN), marker] }));
    await waitForScreen(one, untilScreenHas('READY'), { timeoutMs: 20_000 });
    await waitForScreen(two, untilScreenHas('READY'), { timeoutMs: 20_000 });

    await killServer(socket);
    expect(existsSync(socket)).toBe(false);
    expect(await sessionAlive(one)).toBe(false);
    await waitUntil(() => processesWithArg(marker).length === 0, 'both programs to be gone');
    await killServer(socket);
    await killServer(join(tempDir(), 'no-server.sock'));
  });
});

describe('attachArgs', () => {
  it('attaches read-only unless asked to write, to exactly that session', () => {
    const session = { socket: '/tmp/bestof-ab/tmux.sock', name: 'c1' };
    expect(attachArgs(session, { readOnly: true })).toEqual(['tmux', '-S', '/tmp/bestof-ab/tmux.sock', 'attach-session', '-r', '-t', '=c1']);
    expect(attachArgs(session, { readOnly: false })).toEqual(['tmux', '-S', '/tmp/bestof-ab/tmux.sock', 'attach-session', '-t', '=c1']);
  });
});
