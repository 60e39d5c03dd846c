import { describe, expect, it } from 'vitest';
import { classifyCodex } from '../../src/providers/classify-codex.js';
import { CodexStreamParser } from '../../src/providers/codex-stream.js';
import { CTX, exited, fixture, replay } from './helpers.js';

const COST = { costUsd: 0.01, costEstimated: true };

function classify(file: string, exitCode: number) {
  const activity: string[] = [];
  const parser = new CodexStreamParser((text) => activity.push(text));
  replay(parser, fixture(`codex/${file}`));
  return { result: classifyCodex(parser.state, exited(exitCode), CTX, COST), state: parser.state, activity };
}

describe('codex exec --json', () => {
  it('a text-only run: the agent message, the thread id, tokens without the cached part in input', () => {
    const { result, activity } = classify('codex_cx_text.jsonl', 0);
    expect(result).toMatchObject({
      outcome: 'success',
      text: 'Hello from the fake OpenAI server. DONE',
      sessionId: '01a235d7-70ea-7a03-94d9-7bc2b44a5897',
      usage: { input: 800, cacheRead: 200, cacheWrite: 0, output: 50 },
      costUsd: 0.01,
      costEstimated: true,
      turns: 1,
    });
    // The model-metadata warning is an error *item*: not fatal, not activity.
    expect(activity).toEqual(['Hello from the fake OpenAI server. DONE']);
  });

  it('a tool run: the command as activity once (started, then completed), two model calls', () => {
    const { result, activity } = classify('codex_cx_tool.jsonl', 0);
    expect(activity).toEqual(["$ /bin/bash -lc 'echo hello-from-tool'", 'The command printed hello-from-tool. Done.']);
    expect(result).toMatchObject({
      outcome: 'success',
      text: 'The command printed hello-from-tool. Done.',
      turns: 2,
      usage: { input: 1600, cacheRead: 400, output: 100 },
    });
  });

  it.each([
    ['codex_cx_ratelimit.jsonl', 'rate_limited', /rate limited .*429 Too Many Requests/],
    ['codex_cx_usage.jsonl', 'usage_limit', /usage limit/],
    ['codex_cx_quota.jsonl', 'usage_limit', /Quota exceeded/],
    ['codex_cx_auth.jsonl', 'auth_error', /cannot authenticate: unexpected status 401 .*CODEX_API_KEY/],
    ['codex_cx_toolong.jsonl', 'context_overflow', /context window/],
  ] as const)('%s (turn.failed, exit 1) is %s', (file, outcome, message) => {
    const { result } = classify(file, 1);
    expect(result.outcome).toBe(outcome);
    expect(result.message).toMatch(message);
  });

  it('a reconnect error event before turn.completed is not a failure', () => {
    const parser = new CodexStreamParser();
    for (const event of [
      { type: 'thread.started', thread_id: 't1' },
      { type: 'error', message: 'Reconnecting... 2/5 (stream disconnected)' },
      { type: 'item.completed', item: { id: 'i1', type: 'agent_message', text: 'done' } },
      { type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 2 } },
    ]) {
      parser.push(JSON.stringify(event));
    }
    expect(classifyCodex(parser.state, exited(0), CTX, COST).outcome).toBe('success');
  });

  it('file changes show which files', () => {
    const activity: string[] = [];
    const parser = new CodexStreamParser((text) => activity.push(text));
    parser.push(
      JSON.stringify({
        type: 'item.completed',
        item: {
          id: 'i2',
          type: 'file_change',
          changes: [
            { path: 'src/a.ts', kind: 'update' },
            { path: 'b.md', kind: 'add' },
          ],
          status: 'completed',
        },
      }),
    );
    expect(activity).toEqual(['edit: update src/a.ts, add b.md']);
  });

  it('a usage error (exit 2, nothing on stdout) is crashed with the argument problem', () => {
    const parser = new CodexStreamParser();
    const result = classifyCodex(parser.state, exited(2, { stderr: "error: unexpected argument '--full-auto' found\n" }), CTX, COST);
    expect(result).toMatchObject({ outcome: 'crashed', message: expect.stringMatching(/refused its arguments \(exit 2\).*--full-auto/) });
  });

  it('a missing env_key on stderr at startup is auth_error', () => {
    const parser = new CodexStreamParser();
    const result = classifyCodex(parser.state, exited(1, { stderr: 'Error: Missing environment variable: `FAKE_MISSING_KEY`.\n' }), CTX, COST);
    expect(result.outcome).toBe('auth_error');
  });

  it('exit 0 without turn.completed is not success', () => {
    const parser = new CodexStreamParser();
    parser.push('{"type":"thread.started","thread_id":"t"}');
    expect(classifyCodex(parser.state, exited(0), CTX, COST).outcome).toBe('crashed');
  });

  it('a timeout without turn.completed is timeout (Codex loops on network errors)', () => {
    const parser = new CodexStreamParser();
    parser.push('{"type":"error","message":"Reconnecting... waiting for network"}');
    expect(classifyCodex(parser.state, exited(0, { exitCode: undefined, signal: 'SIGTERM', timedOut: true }), CTX, COST).outcome).toBe('timeout');
  });
});
