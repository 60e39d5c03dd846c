/**
 * The hook bridge with the real `bestof hook <event>` command (bin/bestof.js over dist/) as
 * Claude Code runs it: a payload on stdin, the bridge's variables in the environment. The Stop
 * of the bridge's own session is held until answered; everything else is allowed at once; and
 * every failure (no socket, an inactive state, garbage, a bestof that goes away) allows.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BESTOF_BIN } from '../../helpers/cli.js';
import { tempRepos } from '../../helpers/temp-repo.js';
import { waitUntil } from '../../helpers/wait.js';
import { HookBridge } from '../../../src/providers/shannon/hook-bridge.js';

const { tempDir } = tempRepos();
const bridges: HookBridge[] = [];
// Registered after tempRepos' own: it runs first, so a bridge is closed before its folder is removed.
afterEach(async () => {
  await Promise.all(bridges.splice(0).map((bridge) => bridge.close()));
});
const SESSION = '4cac0755-0000-4000-8000-000000000001';

interface HookRun {
  readonly done: Promise<{ code: number | null; stdout: string }>;
}

/** Runs `bestof hook <event>` with the payload on stdin, the way Claude Code does. */
function runHook(event: string, payload: string, env: Record<string, string>): HookRun {
  const child = spawn(process.execPath, [BESTOF_BIN, 'hook', event], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stdin.end(payload);
  return { done: new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout }))) };
}

async function bridgeInTemp(): Promise<{ bridge: HookBridge; env: Record<string, string>; dir: string }> {
  const dir = tempDir();
  const socketPath = join(dir, 'hook', 'bridge.sock');
  const statePath = join(dir, 'hook', 'state');
  const bridge = await HookBridge.start({ socketPath, statePath, sessionId: SESSION });
  bridges.push(bridge);
  return { bridge, dir, env: { BESTOF_HOOK_SOCKET: socketPath, BESTOF_HOOK_STATE: statePath, BESTOF_HOOK_WAIT_MS: '60000' } };
}

const stopPayload = (sessionId: string) =>
  JSON.stringify({
    session_id: sessionId,
    transcript_path: '/x.jsonl',
    cwd: '/w',
    prompt_id: 'p',
    hook_event_name: 'Stop',
    stop_hook_active: false,
    last_assistant_message: 'done',
  });

describe('the hook bridge and `bestof hook`', () => {
  it("holds the own session's Stop until told, then prints the block decision and exits 0", async () => {
    const { bridge, env } = await bridgeInTemp();
    const hook = runHook('Stop', stopPayload(SESSION), env);
    await waitUntil(() => bridge.heldStop()?.open === true, 'the Stop to be held');
    expect(bridge.heldStop()?.event.payload.last_assistant_message).toBe('done');
    expect(bridge.answerHeld({ decision: 'block', reason: 'NEXT: fix the tests\nline two' })).toBe(true);
    const { code, stdout } = await hook.done;
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toEqual({ decision: 'block', reason: 'NEXT: fix the tests\nline two' });
    expect(bridge.heldStop()).toBeUndefined();
  });

  it("allows at once a Stop of another session id (a person's own claude in the same folder)", async () => {
    const { bridge, env } = await bridgeInTemp();
    const { code, stdout } = await runHook('Stop', stopPayload('other-session'), env).done;
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(bridge.heldStop()).toBeUndefined();
    expect(bridge.eventsAfter(0).map((e) => [e.event, e.own])).toEqual([['Stop', false]]);
  });

  it('answers every other event of the own session at once, and records it', async () => {
    const { bridge, env } = await bridgeInTemp();
    const payload = JSON.stringify({ session_id: SESSION, hook_event_name: 'UserPromptSubmit', prompt: 'hi' });
    const { code, stdout } = await runHook('UserPromptSubmit', payload, env).done;
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(bridge.eventsAfter(0).map((e) => [e.event, e.own, e.payload.prompt])).toEqual([['UserPromptSubmit', true, 'hi']]);
  });

  it('allows without asking when the state file does not say active', async () => {
    const { bridge, env } = await bridgeInTemp();
    writeFileSync(env.BESTOF_HOOK_STATE!, 'inactive\n');
    const { code, stdout } = await runHook('Stop', stopPayload(SESSION), env).done;
    expect({ code, stdout }).toEqual({ code: 0, stdout: '' });
    expect(bridge.eventsAfter(0)).toEqual([]);
  });

  it('fails open: no socket, a missing state file, garbage on stdin, no variables', async () => {
    const dir = tempDir();
    const state = join(dir, 'state');
    writeFileSync(state, 'active\n');
    const runs = [
      runHook('Stop', stopPayload(SESSION), { BESTOF_HOOK_SOCKET: join(dir, 'none.sock'), BESTOF_HOOK_STATE: state }),
      runHook('Stop', stopPayload(SESSION), { BESTOF_HOOK_SOCKET: join(dir, 'none.sock'), BESTOF_HOOK_STATE: join(dir, 'missing') }),
      runHook('Stop', stopPayload(SESSION), {}),
    ];
    const { env } = await bridgeInTemp();
    runs.push(runHook('Stop', 'not json {', env));
    for (const run of runs) expect(await run.done).toEqual({ code: 0, stdout: '' });
  });

  it('a held hook gets allow when the provider deactivates the bridge (close)', async () => {
    const { bridge, env, dir } = await bridgeInTemp();
    const hook = runHook('Stop', stopPayload(SESSION), env);
    await waitUntil(() => bridge.heldStop()?.open === true, 'the Stop to be held');
    await bridge.close();
    expect(await hook.done).toEqual({ code: 0, stdout: '' });
    expect(await import('node:fs').then((fs) => fs.readFileSync(join(dir, 'hook', 'state'), 'utf8'))).toBe('inactive\n');
  });

  it('a hook that gives up waiting (BESTOF_HOOK_WAIT_MS) allows, and the bridge sees its hold closed', async () => {
    const { bridge, env } = await bridgeInTemp();
    const hook = runHook('Stop', stopPayload(SESSION), { ...env, BESTOF_HOOK_WAIT_MS: '300' });
    expect(await hook.done).toEqual({ code: 0, stdout: '' });
    await waitUntil(() => bridge.heldStop()?.open === false, 'the hold to be seen closed');
    expect(bridge.answerHeld({ decision: 'block', reason: 'too late' })).toBe(false);
  });
});
