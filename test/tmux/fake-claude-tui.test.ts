/**
 * The fake interactive Claude Code (test/fixtures/bin/fake-claude-tui) behaves like the real
 * one's protocol, driven in real tmux by our own driver: the ready screen, a bracketed paste
 * and Enter, the hooks from --settings with their payloads, block decisions and their cap, the
 * transcript (late when asked), and the misbehaviours. Hooks are a tiny shell script that logs
 * its stdin and answers what the test queued for it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { probeSandbox } from '../../src/process/sandbox.js';
import {
  capturePane,
  killServer,
  pasteText,
  probeTmux,
  readExitStatus,
  sendKeys,
  startSession,
  typeText,
  waitForScreen,
  type TmuxSession,
} from '../../src/process/tmux.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const probe = await probeTmux();
if (!probe.ok) throw new Error(`these tests need tmux (it is part of the product: the shannon provider runs in it): ${probe.error}`);

const FAKE = resolve(dirname(fileURLToPath(import.meta.url)), '../fixtures/bin/fake-claude-tui');
const HOOK_EVENTS = ['SessionStart', 'UserPromptSubmit', 'Stop', 'StopFailure', 'SessionEnd'] as const;

/**
 * Logs its stdin to hooks.jsonl; a Stop answers with the first queued line of stop-answers and
 * drops it: a JSON answer is printed (exit 0); "exit2:R" prints R on stderr and exits 2;
 * "exit1" exits 1; "hang" sleeps; "garbage" prints something that is not JSON.
 */
const HOOK_SCRIPT = `#!/bin/sh
dir=$(dirname "$0")
payload=$(cat)
printf '%s\\n' "$payload" >> "$dir/hooks.jsonl"
[ -n "$SNAPSHOT" ] && [ "$1" = Stop ] && cp "$SNAPSHOT" "$dir/transcript-at-stop.jsonl" 2>/dev/null
[ "$1" = Stop ] && [ -s "$dir/stop-answers" ] || exit 0
answer=$(head -n 1 "$dir/stop-answers")
tail -n +2 "$dir/stop-answers" > "$dir/stop-answers.rest" && mv "$dir/stop-answers.rest" "$dir/stop-answers"
case "$answer" in
  exit2:*) printf '%s' "\${answer#exit2:}" >&2; exit 2 ;;
  exit1) exit 1 ;;
  hang) sleep 30 ;;
  garbage) echo '{this is not json' ;;
  *) printf '%s\\n' "$answer" ;;
esac
exit 0
`;

const { repo, tempDir } = tempRepos();
const sockets: string[] = [];
afterEach(async () => {
  while (sockets.length > 0) await killServer(sockets.pop()!);
});

interface Fake {
  readonly session: TmuxSession;
  readonly cwd: string;
  readonly sessionId: string;
  readonly transcriptPath: string;
  readonly exitFile: string;
  readonly hookDir: string;
  /** The fake's FAKE_TUI_LOG events. */
  events(): Array<{ event: string; [key: string]: unknown }>;
  /** The payloads the hooks got, in order. */
  hookCalls(): Array<{ hook_event_name: string; [key: string]: unknown }>;
  /** Queues Stop hook answers (see HOOK_SCRIPT). */
  answerStops(...answers: string[]): void;
}

const SESSION_ID = '3f0c2a4e-9b1d-4c7e-8a5f-0d6b2e1c9a7b';

async function startFake(
  options: {
    env?: Record<string, string>;
    args?: string[];
    inlineSettings?: boolean;
    hookTimeoutSeconds?: number;
    wrap?: (command: string, args: string[], paths: { cwd: string; configDir: string; hookDir: string }) => { command: string; args: string[] };
  } = {},
): Promise<Fake> {
  const cwd = realpathSync(repo().dir);
  const home = tempDir();
  const configDir = join(home, 'claude-config');
  const hookDir = tempDir();
  const socket = join(tempDir(), 'tmux.sock');
  sockets.push(socket);
  writeFileSync(join(hookDir, 'hook.sh'), HOOK_SCRIPT);
  chmodSync(join(hookDir, 'hook.sh'), 0o755);
  const hooks = Object.fromEntries(
    HOOK_EVENTS.map((event) => [event, [{ hooks: [{ type: 'command', command: `"${hookDir}/hook.sh" ${event}`, timeout: options.hookTimeoutSeconds ?? 5 }] }]]),
  );
  const settings = JSON.stringify({ skipDangerousModePermissionPrompt: true, hooks });
  const settingsFile = join(hookDir, 'settings.json');
  writeFileSync(settingsFile, settings);
  const transcriptPath = join(configDir, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'), `${SESSION_ID}.jsonl`);
  const logFile = join(hookDir, 'fake.log');
  const exitFile = join(hookDir, 'exit-status');
  const args = options.args ?? [
    '--session-id',
    SESSION_ID,
    '--settings',
    options.inlineSettings ? settings : settingsFile,
    '--dangerously-skip-permissions',
    '--model',
    'claude-test-1',
  ];
  const program = options.wrap?.(FAKE, args, { cwd, configDir, hookDir }) ?? { command: FAKE, args };
  const session = await startSession({
    socket,
    name: 'c1',
    cwd,
    command: program.command,
    args: program.args,
    env: {
      PATH: process.env.PATH,
      HOME: home,
      TERM: 'tmux-256color',
      CLAUDE_CONFIG_DIR: configDir,
      IS_SANDBOX: '1',
      FAKE_TUI_START_MS: '50',
      FAKE_TUI_LOG: logFile,
      SNAPSHOT: transcriptPath,
      ...options.env,
    },
    exitFile,
  });
  if (!session.ok) throw new Error(session.error);
  const readLines = (file: string) =>
    existsSync(file)
      ? readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line))
      : [];
  return {
    session: session.value,
    cwd,
    sessionId: SESSION_ID,
    transcriptPath,
    exitFile,
    hookDir,
    events: () => readLines(logFile),
    hookCalls: () => readLines(join(hookDir, 'hooks.jsonl')),
    answerStops: (...answers) => writeFileSync(join(hookDir, 'stop-answers'), answers.map((answer) => `${answer}\n`).join('')),
  };
}

/**
 * Ready the way a provider should see it: the input line (starting with ❯, right under a rule:
 * the conversation's prompts start with ❯ too), a rule after it, the footer, and not busy.
 */
function isReady(screen: string): boolean {
  const lines = screen.split('\n');
  const isRule = (line: string | undefined) => line !== undefined && /^─{20,}$/.test(line);
  const input = lines.findIndex((line, i) => line.startsWith('❯') && isRule(lines[i - 1]));
  return input > 0 && lines.slice(input + 1).some(isRule) && /⏵⏵ bypass permissions on/.test(screen) && !screen.includes('esc to interrupt');
}

async function untilReady(fake: Fake): Promise<string> {
  const screen = await waitForScreen(fake.session, isReady, { timeoutMs: 30_000 });
  if (!screen.ok) throw new Error(`the fake never showed its ready prompt (${screen.error.reason}):\n${screen.error.screen}`);
  return screen.value;
}

async function submit(fake: Fake, prompt: string): Promise<void> {
  expect(await pasteText(fake.session, prompt)).toEqual({ ok: true, value: undefined });
  await waitUntil(() => fake.events().some((e) => e.event === 'paste' && e.text === prompt), 'the paste to arrive');
  expect(await sendKeys(fake.session, 'Enter')).toEqual({ ok: true, value: undefined });
}

const turnEnds = (fake: Fake, count = 1) => waitUntil(() => fake.events().filter((e) => e.event === 'turn-end').length >= count, `${count} turn(s) to end`);
const transcript = (fake: Fake) =>
  readFileSync(fake.transcriptPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));

describe('the fake interactive Claude Code', () => {
  it('draws the ready prompt after SessionStart, with the payload of the real one (hooks from inline --settings JSON)', async () => {
    const fake = await startFake({ inlineSettings: true });
    const screen = await untilReady(fake);
    expect(screen).toContain('  ⏵⏵ bypass permissions on (shift+tab to cycle)');
    expect(fake.hookCalls()).toEqual([
      {
        session_id: SESSION_ID,
        transcript_path: fake.transcriptPath,
        cwd: fake.cwd,
        hook_event_name: 'SessionStart',
        source: 'startup',
        model: 'claude-test-1',
      },
    ]);
  });

  it('runs one turn from a pasted multi-line prompt and Enter: UserPromptSubmit, the work, the transcript, then Stop', async () => {
    const fake = await startFake();
    await untilReady(fake);
    const prompt = 'Please do the task.\nWRITE src/answer.txt forty\\ntwo\nSAY all written';
    await submit(fake, prompt);
    await turnEnds(fake);

    expect(readFileSync(join(fake.cwd, 'src/answer.txt'), 'utf8')).toBe('forty\ntwo\n');
    const calls = fake.hookCalls();
    expect(calls.map((c) => c.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop']);
    const [, submitted, stop] = calls;
    expect(submitted).toEqual({
      session_id: SESSION_ID,
      transcript_path: fake.transcriptPath,
      cwd: fake.cwd,
      prompt_id: expect.any(String),
      permission_mode: 'bypassPermissions',
      hook_event_name: 'UserPromptSubmit',
      prompt,
    });
    expect(stop).toEqual({
      session_id: SESSION_ID,
      transcript_path: fake.transcriptPath,
      cwd: fake.cwd,
      prompt_id: submitted!.prompt_id,
      permission_mode: 'bypassPermissions',
      effort: { level: 'medium' },
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'all written',
      background_tasks: [],
      session_crons: [],
    });
    // The transcript: the prompt, the Write call and its result, the answer, then the end of the turn.
    const lines = transcript(fake);
    const kinds = lines.map((l) => (l.type === 'system' ? `system/${l.subtype}` : l.type));
    expect(kinds).toEqual([
      'permission-mode',
      'file-history-snapshot',
      'user',
      'assistant',
      'user',
      'assistant',
      'system/stop_hook_summary',
      'system/turn_duration',
      'cost-state',
      'last-prompt',
    ]);
    expect(lines[2].message.content).toBe(prompt);
    expect(lines[3].message.content[0]).toMatchObject({ type: 'tool_use', name: 'Write', input: { file_path: join(fake.cwd, 'src/answer.txt') } });
    expect(lines[5].message).toMatchObject({ content: [{ type: 'text', text: 'all written' }], usage: { input_tokens: 1000, output_tokens: 50 } });
    expect(lines[8].totalCostUSD).toBeCloseTo((2000 * 3 + 100 * 15) / 1e6, 10);
    // The session is ready for the next prompt.
    await untilReady(fake);
  });

  it('goes on at once with the reason of a block (JSON, or exit 2 and stderr), in the same turn, then stops when allowed', async () => {
    const fake = await startFake();
    await untilReady(fake);
    fake.answerStops(JSON.stringify({ decision: 'block', reason: 'The checks failed.\nWRITE fixed.txt yes\nSAY fixed it' }), 'exit2:SAY after exit two');
    await submit(fake, 'SAY first try\nTOKENS 700 30');
    await turnEnds(fake);

    const stops = fake.hookCalls().filter((c) => c.hook_event_name === 'Stop');
    expect(stops.map((s) => [s.stop_hook_active, s.last_assistant_message])).toEqual([
      [false, 'first try'],
      [true, 'fixed it'],
      [true, 'after exit two'],
    ]);
    expect(new Set(stops.map((s) => s.prompt_id)).size).toBe(1);
    expect(readFileSync(join(fake.cwd, 'fixed.txt'), 'utf8')).toBe('yes\n');
    const prompts = fake.events().filter((e) => e.event === 'prompt');
    expect(prompts.map((p) => [p.round, p.source, p.text])).toEqual([
      [1, 'typed', 'SAY first try\nTOKENS 700 30'],
      [2, 'block', 'The checks failed.\nWRITE fixed.txt yes\nSAY fixed it'],
      [3, 'block', 'SAY after exit two'],
    ]);
    expect(
      fake
        .events()
        .filter((e) => e.event === 'round')
        .map((r) => r.usage),
    ).toEqual([
      { input_tokens: 700, output_tokens: 30 },
      { input_tokens: 2000, output_tokens: 100 },
      { input_tokens: 1000, output_tokens: 50 },
    ]);
    // One end of turn for both rounds, as the real CLI writes it.
    const lines = transcript(fake);
    expect(lines.filter((l) => l.subtype === 'turn_duration')).toHaveLength(1);
    expect(lines.filter((l) => l.type === 'cost-state')).toHaveLength(1);
    expect(lines.find((l) => l.isMeta === true && l.type === 'user').message.content).toBe(
      'Stop hook feedback:\nThe checks failed.\nWRITE fixed.txt yes\nSAY fixed it',
    );
  });

  it('ends the turn after 8 blocks in a row without telling the hook', async () => {
    const fake = await startFake();
    await untilReady(fake);
    fake.answerStops(...Array.from({ length: 12 }, (_, i) => JSON.stringify({ decision: 'block', reason: `SAY block ${i + 1}` })));
    await submit(fake, 'SAY start');
    await turnEnds(fake);

    const stops = fake.hookCalls().filter((c) => c.hook_event_name === 'Stop');
    expect(stops).toHaveLength(9);
    expect(fake.events().filter((e) => e.event === 'block')).toHaveLength(8);
    expect(fake.events().filter((e) => e.event === 'block-ignored')).toEqual([expect.objectContaining({ reason: 'SAY block 9', blocks: 8 })]);
    expect(fake.events().find((e) => e.event === 'turn-end')).toMatchObject({ reason: 'block-cap' });
    await untilReady(fake);
  });

  it('takes the cap from CLAUDE_CODE_STOP_HOOK_BLOCK_CAP, and a continuation that ran a tool resets the count', async () => {
    const fake = await startFake({ env: { CLAUDE_CODE_STOP_HOOK_BLOCK_CAP: '2' } });
    await untilReady(fake);
    const block = (reason: string) => JSON.stringify({ decision: 'block', reason });
    // blocks: 1, 2 (that continuation writes: reset), 1, 2, then the cap.
    fake.answerStops(block('SAY a'), block('WRITE x.txt x'), block('SAY b'), block('SAY c'), block('SAY d'), block('SAY e'));
    await submit(fake, 'SAY start');
    await turnEnds(fake);
    expect(fake.hookCalls().filter((c) => c.hook_event_name === 'Stop')).toHaveLength(5);
    expect(fake.events().filter((e) => e.event === 'block-ignored')).toEqual([expect.objectContaining({ reason: 'SAY d' })]);
  });

  it('writes the last assistant line late when told to, after the Stop hook started', async () => {
    const fake = await startFake({ env: { FAKE_TUI_TRANSCRIPT_LAG_MS: '800' } });
    await untilReady(fake);
    await submit(fake, 'SAY the late answer');
    await turnEnds(fake);
    // The Stop hook copied the transcript when it started: the answer was not there yet.
    const atStop = readFileSync(join(fake.hookDir, 'transcript-at-stop.jsonl'), 'utf8');
    expect(atStop).toContain('"type":"user"');
    expect(atStop).not.toContain('"type":"assistant"');
    expect(transcript(fake).find((l) => l.type === 'assistant').message.content[0].text).toBe('the late answer');
  });

  it('swallows the first Enter right after a paste when told to; the next Enter submits', async () => {
    const fake = await startFake({ env: { FAKE_TUI_SWALLOW_ENTER: '1' } });
    await untilReady(fake);
    await submit(fake, 'SAY swallowed once');
    await waitUntil(() => fake.events().some((e) => e.event === 'enter-ignored'), 'the Enter to be swallowed');
    expect(fake.events().some((e) => e.event === 'submit')).toBe(false);
    expect(fake.hookCalls().map((c) => c.hook_event_name)).toEqual(['SessionStart']);
    expect(await sendKeys(fake.session, 'Enter')).toEqual({ ok: true, value: undefined });
    await turnEnds(fake);
    expect(fake.hookCalls().map((c) => c.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit', 'Stop']);
  });

  it('shows a modal dialog instead of the prompt when told to, that no hook sees and no key dismisses', async () => {
    const fake = await startFake({ env: { FAKE_TUI_DIALOG: 'trust' } });
    const screen = await waitForScreen(fake.session, (s) => s.includes('Do you trust the files in this folder?'), { timeoutMs: 30_000 });
    expect(screen.ok && screen.value).toContain(fake.cwd);
    await sendKeys(fake.session, 'Enter');
    await typeText(fake.session, 'SAY hello');
    await sendKeys(fake.session, 'Enter');
    await waitUntil(() => fake.events().some((e) => e.event === 'dialog'), 'the dialog event');
    expect(isReady(await capturePane(fake.session))).toBe(false);
    expect(await capturePane(fake.session)).toContain('Do you trust the files in this folder?');
    expect(fake.hookCalls()).toEqual([]);
  });

  it('shows the login and the model picker dialogs', async () => {
    const [login, model] = await Promise.all([startFake({ env: { FAKE_TUI_DIALOG: 'login' } }), startFake({ env: { FAKE_TUI_DIALOG: 'model' } })]);
    expect((await waitForScreen(login.session, (s) => s.includes('Select login method'), { timeoutMs: 30_000 })).ok).toBe(true);
    expect((await waitForScreen(model.session, (s) => s.includes('Select model'), { timeoutMs: 30_000 })).ok).toBe(true);
  });

  it('exits 0 on /exit, after SessionEnd', async () => {
    const fake = await startFake();
    await untilReady(fake);
    await typeText(fake.session, '/exit');
    await sendKeys(fake.session, 'Enter');
    await waitUntil(() => existsSync(fake.exitFile), 'the exit status');
    expect(await readExitStatus(fake.exitFile)).toBe(0);
    const end = fake.hookCalls().at(-1);
    expect(end).toEqual({
      session_id: SESSION_ID,
      transcript_path: fake.transcriptPath,
      cwd: fake.cwd,
      prompt_id: expect.any(String),
      hook_event_name: 'SessionEnd',
      reason: 'prompt_input_exit',
    });
    expect(fake.hookCalls().map((c) => c.hook_event_name)).not.toContain('UserPromptSubmit');
  });

  it('exits 0 on C-c twice', async () => {
    const fake = await startFake();
    await untilReady(fake);
    await sendKeys(fake.session, 'C-c');
    await waitForScreen(fake.session, (s) => s.includes('Press Ctrl-C again to exit'), { timeoutMs: 30_000 });
    await sendKeys(fake.session, 'C-c');
    await waitUntil(() => existsSync(fake.exitFile), 'the exit status');
    expect(await readExitStatus(fake.exitFile)).toBe(0);
  });

  it('ends the turn with StopFailure on FAIL, and the session stays usable', async () => {
    const fake = await startFake();
    await untilReady(fake);
    await submit(fake, 'FAIL rate_limit');
    await turnEnds(fake);
    const failure = fake.hookCalls().at(-1);
    expect(failure).toEqual({
      session_id: SESSION_ID,
      transcript_path: fake.transcriptPath,
      cwd: fake.cwd,
      prompt_id: expect.any(String),
      effort: { level: 'medium' },
      hook_event_name: 'StopFailure',
      error: 'rate_limit',
      last_assistant_message: 'API Error: Request rejected (429) · This request would exceed your rate limit.',
    });
    expect(fake.hookCalls().map((c) => c.hook_event_name)).not.toContain('Stop');
    await untilReady(fake);
  });

  it('ends the turn when the Stop hook fails, hangs past its timeout or prints garbage, and stays usable', async () => {
    const fake = await startFake();
    await untilReady(fake);
    fake.answerStops('exit1', 'garbage');
    await submit(fake, 'SAY one');
    await turnEnds(fake, 1);
    await untilReady(fake);
    await submit(fake, 'SAY two');
    await turnEnds(fake, 2);
    expect(
      fake
        .events()
        .filter((e) => e.event === 'turn-end')
        .map((e) => e.reason),
    ).toEqual(['hook-problem', 'hook-problem']);
    expect(fake.events().filter((e) => e.event === 'prompt')).toHaveLength(2);
    await untilReady(fake);
  });

  it('kills a Stop hook that outlives its timeout and ends the turn', async () => {
    const fake = await startFake({ hookTimeoutSeconds: 1 });
    await untilReady(fake);
    fake.answerStops('hang');
    await submit(fake, 'SAY waiting');
    await turnEnds(fake);
    expect(fake.events().find((e) => e.event === 'hook' && e.hookEvent === 'Stop')).toMatchObject({ timedOut: true });
    await untilReady(fake);
  });

  it('is interrupted by Escape while busy: no Stop hook', async () => {
    const fake = await startFake();
    await untilReady(fake);
    await submit(fake, 'SLEEP 30000');
    await waitForScreen(fake.session, (s) => s.includes('esc to interrupt'), { timeoutMs: 30_000 });
    await sendKeys(fake.session, 'Escape');
    await turnEnds(fake);
    expect(fake.events().find((e) => e.event === 'turn-end')).toMatchObject({ reason: 'interrupted' });
    expect(fake.hookCalls().map((c) => c.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit']);
  });

  it('runs RUN as a Bash tool call, follows a prompt file the prompt names, and exits mid-turn on CRASH', async () => {
    const fake = await startFake();
    await untilReady(fake);
    const promptFile = join(fake.hookDir, 'prompt-1.md');
    writeFileSync(promptFile, 'The task, long enough to go through a file.\nRUN echo ran > ran.txt\nCRASH 7\n');
    await submit(fake, `Read ${promptFile} and follow it.`);
    await waitUntil(() => existsSync(fake.exitFile), 'the exit status');
    expect(await readExitStatus(fake.exitFile)).toBe(7);
    expect(readFileSync(join(fake.cwd, 'ran.txt'), 'utf8')).toBe('ran\n');
    expect(transcript(fake).find((l) => l.type === 'assistant').message.content[0]).toMatchObject({
      type: 'tool_use',
      name: 'Bash',
      input: { command: 'echo ran > ran.txt' },
    });
    expect(fake.hookCalls().map((c) => c.hook_event_name)).toEqual(['SessionStart', 'UserPromptSubmit']);
  });

  it('crashes with exit 1 when told to', async () => {
    const fake = await startFake({ env: { FAKE_TUI_EXIT_AFTER_MS: '500' } });
    await waitUntil(() => existsSync(fake.exitFile), 'the exit status');
    expect(await readExitStatus(fake.exitFile)).toBe(1);
  });

  it('refuses --dangerously-skip-permissions as root without IS_SANDBOX=1, like the real one', async () => {
    if (process.getuid?.() !== 0) return;
    const fake = await startFake({ env: { IS_SANDBOX: '' } });
    await waitUntil(() => existsSync(fake.exitFile), 'the exit status');
    expect(await readExitStatus(fake.exitFile)).toBe(1);
  });

  it('runs inside bwrap with only its cwd, its config dir and Node', async () => {
    const sandbox = await probeSandbox();
    if (!sandbox.ok) throw new Error(`this test needs a working bubblewrap: ${sandbox.reason}`);
    const fake = await startFake({
      wrap: (command, args, { cwd, configDir, hookDir }) => {
        mkdirSync(configDir, { recursive: true });
        return {
          command: sandbox.bwrap,
          args: [
            '--ro-bind',
            '/',
            '/',
            '--dev',
            '/dev',
            '--proc',
            '/proc',
            '--tmpfs',
            '/tmp',
            '--bind',
            cwd,
            cwd,
            '--bind',
            configDir,
            configDir,
            '--bind',
            hookDir,
            hookDir,
            '--ro-bind',
            command,
            command,
            '--unshare-pid',
            '--die-with-parent',
            '--chdir',
            cwd,
            '--',
            command,
            ...args,
          ],
        };
      },
    });
    await untilReady(fake);
    await submit(fake, 'WRITE inside.txt from the sandbox\nSAY sandboxed');
    await turnEnds(fake);
    expect(readFileSync(join(fake.cwd, 'inside.txt'), 'utf8')).toBe('from the sandbox\n');
    expect(transcript(fake).some((l) => l.type === 'assistant')).toBe(true);
  });
});
