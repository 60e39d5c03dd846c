/**
 * The shannon provider with real tmux and the fake interactive Claude Code
 * (test/fixtures/bin/fake-claude-tui), which follows the real CLI's protocol: a ready screen,
 * bracketed paste, hooks from --settings (here: the real `bestof hook` over dist/), block
 * decisions and their cap, a transcript written late. The fake does what the prompt's lines
 * say (WRITE, SAY, SLEEP, FAIL, ...) and logs every event to FAKE_TUI_LOG.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { processesWithEnv } from '../../../src/process/tagged-processes.js';
import { killServer, pasteText, sendKeys, sessionAlive, type TmuxSession } from '../../../src/process/tmux.js';
import { runBaseDir, tmuxSocketOf } from '../../../src/providers/shannon/paths.js';
import { PROJECT_ROOT } from '../../helpers/cli.js';
import { waitUntil } from '../../helpers/wait.js';
import { expectSuccess, FAKE, pids, prompts, sessionIds, setup } from './helpers.js';

describe('shannon: one session, one turn per iteration', () => {
  it('block then allow: iteration 2 goes on in the same session and process through the held Stop hook; close allows it', async () => {
    const s = setup();
    const first = await s.provider.run(s.request(1, 'Write the file.\nWRITE a.txt one\nSAY first done'));
    expectSuccess(first, 'first done');
    expect(readFileSync(join(s.worktree, 'a.txt'), 'utf8')).toBe('one\n');
    expect(first.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    // Two API responses: the Write tool call and the final text.
    expect(first.usage).toEqual({ input: 2000, output: 100, cacheRead: 0, cacheWrite: 0 });
    expect(first.turns).toBe(2);

    const second = await s.provider.run(s.request(2, 'The checks failed.\nWRITE b.txt two\nSAY second done'));
    expectSuccess(second, 'second done');
    expect(second.sessionId).toBe(first.sessionId);
    expect(readFileSync(join(s.worktree, 'b.txt'), 'utf8')).toBe('two\n');
    const log = s.log();
    expect(prompts(log)).toEqual([
      ['typed', 'Write the file.\nWRITE a.txt one\nSAY first done'],
      ['block', 'The checks failed.\nWRITE b.txt two\nSAY second done'],
    ]);
    expect(pids(log)).toHaveLength(1);
    expect(sessionIds(log)).toEqual([first.sessionId]);
    const invocation = JSON.parse(readFileSync(join(s.runDir, 'candidates/c1/iteration-2/invocation.json'), 'utf8')) as { argv: string[]; prompt: string };
    expect(invocation.prompt).toMatch(/block/);
    expect(invocation.argv).toEqual(expect.arrayContaining(['--session-id', first.sessionId, '--permission-mode', 'acceptEdits']));
    expect(readFileSync(join(s.runDir, 'candidates/c1/iteration-2/prompt.md'), 'utf8')).toContain('WRITE b.txt two');
    expect(readFileSync(join(s.runDir, 'candidates/c1/iteration-2/output.log'), 'utf8')).toContain('second done');
    expect(JSON.parse(readFileSync(join(s.runDir, 'candidates/c1/shannon.json'), 'utf8'))).toMatchObject({
      session: 'c1',
      sessionId: first.sessionId,
      socket: tmuxSocketOf(s.runDir),
    });
    expect(s.activity.some((line) => line.includes('bestof attach test-run c1'))).toBe(true);
    // Activity lines come from the transcript as the turn runs: the tool call and the final text.
    expect(s.activity).toEqual(expect.arrayContaining([expect.stringMatching(/^Write\b.*a\.txt/), 'first done', 'second done']));

    await s.provider.close();
    const ended = s.log();
    // The held Stop of round 2 was answered allow: the turn really ended, then /exit.
    expect(ended.filter((l) => l.event === 'turn-end').map((l) => l.reason)).toEqual(['stop']);
    expect(ended.find((l) => l.event === 'exit')).toMatchObject({ code: 0 });
    expect(await sessionAlive(s.session())).toBe(false);
  });

  it("a second session in the same folder (a person's own claude) is never blocked", async () => {
    const s = setup();
    expectSuccess(await s.provider.run(s.request(1, 'SAY mine')), 'mine');
    // Another Claude Code in the same worktree with the same hooks and bridge, another session id.
    const settingsFile = join(s.runDir, 'candidates/c1/shannon-settings.json');
    const otherLog = join(s.runDir, 'other.log');
    const bridgeEnv = readBridgeEnv(s.runDir);
    const other = spawn(
      'tmux',
      [
        '-f',
        '/dev/null',
        '-S',
        join(s.runDir, 'other.sock'),
        'new-session',
        '-d',
        '-s',
        'other',
        '-x',
        '120',
        '-y',
        '40',
        '-c',
        s.worktree,
        `env FAKE_TUI_LOG=${otherLog} FAKE_TUI_START_MS=100 BESTOF_HOOK_SOCKET=${bridgeEnv.socket} BESTOF_HOOK_STATE=${bridgeEnv.state} BESTOF_HOOK_WAIT_MS=60000 CLAUDE_CONFIG_DIR=${join(s.runDir, 'other-config')} ${FAKE} --settings ${settingsFile}`,
      ],
      { stdio: 'ignore' },
    );
    await new Promise((resolve) => other.on('close', resolve));
    const otherSession = { socket: join(s.runDir, 'other.sock'), name: 'other' };
    try {
      await waitUntil(() => readFileSync(otherLog, 'utf8').includes('"ready"'), 'the other session to be ready');
      await typeInto(otherSession, 'SAY theirs', otherLog);
      // At once, not after its hook's 60 s wait: nobody holds another session's Stop.
      await waitUntil(() => readFileSync(otherLog, 'utf8').includes('"turn-end"'), "the other session's turn to end (its Stop allowed at once)", {
        attempts: 150,
      });
      expect(readFileSync(otherLog, 'utf8')).not.toContain('"block"');
    } finally {
      spawn('tmux', ['-S', join(s.runDir, 'other.sock'), 'kill-server'], { stdio: 'ignore' });
    }
    // Our own Stop is still held: iteration 2 blocks it.
    expectSuccess(await s.provider.run(s.request(2, 'SAY mine again')), 'mine again');
    expect(prompts(s.log()).map(([source]) => source)).toEqual(['typed', 'block']);
  });

  it('coordinator gone (bestof killed while it holds the Stop): the hook fails open and the session ends its turn', async () => {
    const s = setup();
    // The coordinator in a process of its own (over dist/), killed with SIGKILL once its Stop is held.
    const request = s.request(1, 'SAY held');
    const { signal: _signal, onActivity: _onActivity, ...plain } = request;
    const script = `
      const { createShannonProvider, SHANNON_DEFAULTS } = await import(${JSON.stringify(join(PROJECT_ROOT, 'dist/providers/shannon/provider.js'))});
      const provider = createShannonProvider({ binary: ${JSON.stringify(FAKE)}, settings: { kind: 'shannon', args: [], env: {}, timeout: 60000, isolate_config: false }, section: { ...SHANNON_DEFAULTS, startup_timeout: 30000 } });
      const result = await provider.run({ ...${JSON.stringify(plain)}, signal: new AbortController().signal, onActivity: () => {} });
      process.stdout.write(JSON.stringify(result) + '\\n');
      setInterval(() => {}, 1000);
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitUntil(() => out.includes('\n'), 'the first turn to end in the child');
      expect(JSON.parse(out)).toMatchObject({ outcome: 'success', text: 'held' });
      expect(s.log().some((l) => l.event === 'turn-end')).toBe(false);
      child.kill('SIGKILL');
      await waitUntil(() => s.log().some((l) => l.event === 'turn-end'), 'the turn to end once the coordinator is gone');
      const stop = s.log().find((l) => l.event === 'hook' && l.hookEvent === 'Stop');
      expect(stop).toMatchObject({ exitCode: 0, stdout: '' });
      expect(await sessionAlive(s.session())).toBe(true);
    } finally {
      child.kill('SIGKILL');
      await killServer(tmuxSocketOf(s.runDir));
      // What the killed coordinator left (its hook folder); `bestof clean` does not look here.
      rmSync(runBaseDir(s.runDir), { recursive: true, force: true });
    }
  });

  it("transcript flushed late: usage and cost are still the turn's", async () => {
    const s = setup({ env: { FAKE_TUI_TRANSCRIPT_LAG_MS: '400' }, prices: true, section: { hold_timeout: 1000 } });
    const first = await s.provider.run(s.request(1, 'TOKENS 2000 100\nCOST 0.5\nSAY late'));
    expectSuccess(first, 'late');
    expect(first.usage).toEqual({ input: 2000, output: 100, cacheRead: 0, cacheWrite: 0 });
    // Held: Claude Code has written no cost yet; estimated from the tokens ($3 / $15 per M).
    expect(first.costUsd).toBeCloseTo(0.0075, 6);
    expect(first.costEstimated).toBe(true);
    // The hook gives up (hold_timeout), the turn really ends, Claude Code writes the session's
    // total ($0.50): the next turn reports what the estimate missed, plus its own estimate.
    await waitUntil(() => s.log().some((l) => l.event === 'turn-end'), 'the first turn to end');
    const second = await s.provider.run(s.request(2, 'TOKENS 1000 0\nSAY again'));
    expectSuccess(second, 'again');
    expect(second.costUsd).toBeCloseTo(0.5 - 0.0075 + 0.003, 6);
  });

  it('the block cap: past CLAUDE_CODE_STOP_HOOK_BLOCK_CAP - 1 blocks in a row, the stop is allowed and the prompt typed', async () => {
    const s = setup({ env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '3' } });
    for (let i = 1; i <= 4; i++) expectSuccess(await s.provider.run(s.request(i, `SAY round ${i}`)), `round ${i}`);
    expect(prompts(s.log()).map(([source]) => source)).toEqual(['typed', 'block', 'block', 'typed']);
    expect(s.log().some((l) => l.event === 'block-ignored')).toBe(false);
    expect(s.activity.some((line) => /cap is 3/.test(line))).toBe(true);
  });

  it('a Stop hook that outlived hold_timeout: the turn ended, the next prompt is typed', async () => {
    const s = setup({ section: { hold_timeout: 1000 } });
    expectSuccess(await s.provider.run(s.request(1, 'SAY one')), 'one');
    await waitUntil(() => s.log().some((l) => l.event === 'turn-end'), 'the hook to give up and the turn to end');
    expectSuccess(await s.provider.run(s.request(2, 'SAY two')), 'two');
    expect(prompts(s.log()).map(([source]) => source)).toEqual(['typed', 'typed']);
  });

  it('Enter swallowed after the paste: pressed again until UserPromptSubmit comes', async () => {
    const s = setup({ env: { FAKE_TUI_SWALLOW_ENTER: '1' } });
    expectSuccess(await s.provider.run(s.request(1, 'SAY got it')), 'got it');
    expect(
      s
        .log()
        .filter((l) => l.event === 'enter-ignored')
        .map((l) => l.why),
    ).toEqual(['swallowed after a paste']);
  });

  it('a block reason over the hook output cap goes through a file named in the reason', async () => {
    const s = setup();
    expectSuccess(await s.provider.run(s.request(1, 'SAY one')), 'one');
    const long = `${'A long report of failing checks.\n'.repeat(400)}WRITE big.txt from the reason file\nSAY two`;
    expect(long.length).toBeGreaterThan(10_000);
    expectSuccess(await s.provider.run(s.request(2, long)), 'two');
    expect(readFileSync(join(s.worktree, 'big.txt'), 'utf8')).toBe('from the reason file\n');
    const [, reason] = prompts(s.log())[1] as [string, string];
    expect(prompts(s.log())[1]?.[0]).toBe('block');
    expect(reason.length).toBeLessThan(1000);
    expect(reason).toContain(join(s.runDir, 'candidates/c1/shannon-config'));
  });

  it('an iteration that asks for another model (a phase) gets a new session started with it', async () => {
    const s = setup();
    const first = await s.provider.run(s.request(1, 'SAY default model'));
    const second = await s.provider.run(s.request(2, 'SAY other model', { model: 'claude-sonnet-9' }));
    expectSuccess(second, 'other model');
    expect(second.sessionId).not.toBe(first.sessionId);
    const starts = s.log().filter((l) => l.event === 'start');
    expect(starts.map((l) => l.model)).toEqual(['claude-opus-5-5', 'claude-sonnet-9']);
    expect(s.activity.some((line) => line.startsWith('this iteration asks for model claude-sonnet-9: a new Claude Code session'))).toBe(true);
  });

  it('a long prompt goes through a file named in a one-line prompt', async () => {
    const s = setup();
    const long = `${'Some context line.\n'.repeat(30)}WRITE long.txt from the file\nSAY read it`;
    expectSuccess(await s.provider.run(s.request(1, long)), 'read it');
    expect(readFileSync(join(s.worktree, 'long.txt'), 'utf8')).toBe('from the file\n');
    const typed = prompts(s.log())[0]?.[1] as string;
    expect(typed.split('\n')).toHaveLength(1);
    expect(typed).toContain(join(s.runDir, 'candidates/c1/shannon-config'));
  });
});

/** The bridge's socket and state file of candidate c1 (from the fake's log of its hook env is not available: from the layout). */
function readBridgeEnv(runDir: string): { socket: string; state: string } {
  const base = tmuxSocketOf(runDir).replace(/tmux\.sock$/, '');
  return { socket: join(base, 'hook-c1', 'bridge.sock'), state: join(base, 'hook-c1', 'state') };
}

/**
 * Pastes `text` into a session of the fake and presses Enter once the fake has taken the paste
 * whole (its log says so), as a person would: an Enter sent sooner could reach it mid-paste.
 */
async function typeInto(session: TmuxSession, text: string, fakeLog: string): Promise<void> {
  const pasted = await pasteText(session, text);
  if (!pasted.ok) throw new Error(pasted.error);
  const tookPaste = (): boolean =>
    readFileSync(fakeLog, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .some((line) => {
        const entry = JSON.parse(line) as { event?: string; text?: string };
        return entry.event === 'paste' && entry.text === text;
      });
  await waitUntil(tookPaste, `the fake to take the paste of ${JSON.stringify(text)}`, { attempts: 150 });
  await sendKeys(session, 'Enter');
}

describe('shannon: between turns the session is frozen', () => {
  it('a background process the agent left running does not run while bestof scores, and runs again with the next turn', async () => {
    const s = setup();
    const ticks = join(s.worktree, 'ticks.txt');
    const lines = () => (existsSync(ticks) ? readFileSync(ticks, 'utf8').split('\n').filter(Boolean).length : 0);
    // A daemon of its own session, as `setsid cmd &` would leave: it appends a line every 50 ms.
    expectSuccess(
      await s.provider.run(
        s.request(1, "RUN setsid sh -c 'while true; do echo tick >> ticks.txt; sleep 0.05; done' >/dev/null 2>&1 &\nSLEEP 300\nSAY started"),
      ),
      'started',
    );
    // Held: the run returned, bestof would commit and score now.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const frozen = lines();
    expect(frozen).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(lines(), 'the daemon wrote while the session was frozen').toBe(frozen);

    expectSuccess(await s.provider.run(s.request(2, 'SLEEP 400\nSAY again')), 'again');
    expect(lines(), 'the daemon runs again once the session goes on').toBeGreaterThan(frozen);
    expect(prompts(s.log()).map(([source]) => source)).toEqual(['typed', 'block']);
    const sessionId = s.log().find((l) => l.event === 'start')?.sessionId as string;
    expect(processesWithEnv('BESTOF_SHANNON_SESSION', [sessionId]).length).toBeGreaterThan(0);
    await s.provider.close();
    expect(processesWithEnv('BESTOF_SHANNON_SESSION', [sessionId]), 'what the session left running ends with it').toEqual([]);
  });
});
