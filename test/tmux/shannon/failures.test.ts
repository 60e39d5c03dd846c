/**
 * The shannon provider's failures, each an outcome and never a hang: a modal dialog, an API
 * error (StopFailure), a cancel, a crash, a time limit. Real tmux, the fake interactive Claude
 * Code (./helpers.ts).
 */
import { describe, expect, it } from 'vitest';
import { sessionAlive } from '../../../src/process/tmux.js';
import { waitUntil } from '../../helpers/wait.js';
import { expectSuccess, pids, setup } from './helpers.js';

describe('shannon: failures are outcomes, never a hang', () => {
  it("a modal dialog at start fails the call with the dialog's text", async () => {
    const s = setup({ env: { FAKE_TUI_DIALOG: 'login' } });
    const result = await s.provider.run(s.request(1, 'SAY never'));
    expect(result.outcome).toBe('crashed');
    expect(result.message).toMatch(/login screen.*Select login method/);
    expect(await sessionAlive(s.session())).toBe(false);
  });

  it('StopFailure rate_limit -> rate_limited, and the session takes the next prompt', async () => {
    const s = setup();
    const result = await s.provider.run(s.request(1, 'FAIL rate_limit'));
    expect(result.outcome).toBe('rate_limited');
    expect(result.message).toMatch(/rate limited by the Anthropic API \(429\)/);
    expectSuccess(await s.provider.run(s.request(2, 'SAY after the wait')), 'after the wait');
  });

  it('StopFailure authentication_failed -> auth_error with how to fix it', async () => {
    const s = setup();
    const result = await s.provider.run(s.request(1, 'FAIL authentication_failed'));
    expect(result.outcome).toBe('auth_error');
    expect(result.message).toMatch(/cannot authenticate.*ANTHROPIC_API_KEY/);
  });

  it('cancel kills the session', async () => {
    const s = setup();
    const controller = new AbortController();
    const running = s.provider.run(s.request(1, 'SLEEP 60000\nSAY never', { signal: controller.signal }));
    await waitUntil(() => s.log().some((l) => l.event === 'prompt'), 'the turn to start');
    controller.abort();
    const result = await running;
    expect(result.outcome).toBe('cancelled');
    expect(await sessionAlive(s.session())).toBe(false);
  });

  it('the session dies during a turn: crashed with its exit status; the next iteration starts a new session', async () => {
    const s = setup();
    const result = await s.provider.run(s.request(1, 'CRASH 3'));
    expect(result.outcome).toBe('crashed');
    expect(result.message).toMatch(/session ended during the turn \(exit status 3\)/);
    const next = await s.provider.run(s.request(2, 'SAY back'));
    expectSuccess(next, 'back');
    expect(next.sessionId).not.toBe(result.sessionId);
    expect(pids(s.log())).toHaveLength(2);
  });

  it('a turn past its time limit is interrupted: timeout, and the same session takes the next prompt', async () => {
    const s = setup();
    const result = await s.provider.run(s.request(1, 'SLEEP 60000', { timeoutMs: 1500 }));
    expect(result.outcome).toBe('timeout');
    expect(result.message).toMatch(/did not finish its turn within 2s and was interrupted/);
    expectSuccess(await s.provider.run(s.request(2, 'SAY after the timeout')), 'after the timeout');
    expect(pids(s.log())).toHaveLength(1);
  });
});
