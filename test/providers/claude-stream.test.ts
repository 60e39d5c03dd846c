import { describe, expect, it } from 'vitest';
import { classifyClaude } from '../../src/providers/classify-claude.js';
import { ClaudeStreamParser } from '../../src/providers/claude-stream.js';
import { CTX, exited, fixture, replay } from './helpers.js';

function parse(file: string) {
  const activity: string[] = [];
  const parser = new ClaudeStreamParser((text) => activity.push(text));
  replay(parser, fixture(`claude/${file}`));
  return { state: parser.state, activity };
}

function classify(file: string, exitCode: number) {
  const { state, activity } = parse(file);
  return { result: classifyClaude(state, exited(exitCode), CTX), state, activity };
}

describe('Claude Code stream-json', () => {
  it('a tool-using run: text, the tool call as activity, tokens from modelUsage, the reported cost', () => {
    const { result, state, activity } = classify('claude_sj_tool.jsonl', 0);
    expect(activity).toEqual(['I will run a command.', 'Bash echo hello-from-tool', 'The command printed hello-from-tool. Done.']);
    expect(state.model).toBe('claude-opus-4-8[1m]');
    expect(state.cliVersion).toBe('2.1.197');
    expect(state.toolCalls).toBe(1);
    expect(result).toMatchObject({
      outcome: 'success',
      text: 'The command printed hello-from-tool. Done.',
      sessionId: '9fd48443-7f83-41c5-ad89-5f8db7a5cf13',
      turns: 2,
      usage: { input: 2468, output: 112, cacheRead: 0, cacheWrite: 0 },
      costUsd: 0.01514,
      costEstimated: false,
    });
    expect(result.message).toBeUndefined();
  });

  it('a text-only run', () => {
    expect(classify('claude_sin.jsonl', 0).result).toMatchObject({ outcome: 'success', text: 'Hello from the fake server. DONE', turns: 1, costUsd: 0.00757 });
  });

  it('partial messages (stream_event lines) are skipped without effect', () => {
    const { result, activity } = classify('claude_partial.jsonl', 0);
    expect(result).toMatchObject({ outcome: 'success', text: 'Hello from the fake server. DONE' });
    expect(activity).toEqual(['Hello from the fake server. DONE']);
  });

  it('a denied tool call still succeeds; the denial is in the result', () => {
    const { result, state } = classify('claude_sj_deny.jsonl', 0);
    expect(result.outcome).toBe('success');
    expect(state.result?.permissionDenials).toEqual(['Write /srv/wt1/created.txt']);
  });

  it.each([
    ['claude_maxturns.json', 'max_turns', /turn limit: Reached maximum number of turns \(1\)/],
    ['claude_sj_ratelimit.jsonl', 'rate_limited', /rate limited .*429/],
    ['claude_sj_retry.jsonl', 'rate_limited', /429/],
    ['claude_sj_overloaded.jsonl', 'rate_limited', /overloaded \(529\)/],
    ['claude_sj_auth.jsonl', 'auth_error', /cannot authenticate: Invalid API key .*ANTHROPIC_API_KEY/],
    ['claude_nokey.json', 'auth_error', /Not logged in/],
    ['claude_sj_billing.jsonl', 'usage_limit', /out of credit/],
    ['claude_budget.json', 'usage_limit', /budget: Reached maximum budget/],
    ['claude_sj_toolong.jsonl', 'context_overflow', /context window: Prompt is too long/],
    ['claude_sj_max_tokens.jsonl', 'max_tokens', /output token limit/],
    ['claude_sj_refusal.jsonl', 'refusal', /refused/],
  ] as const)('%s (exit 1) is %s', (file, outcome, message) => {
    const { result } = classify(file, 1);
    expect(result.outcome).toBe(outcome);
    expect(result.message).toMatch(message);
  });

  it('api_retry events show as activity', () => {
    const { activity, state } = parse('claude_sj_retry.jsonl');
    expect(state.apiRetries).toBe(2);
    expect(activity[0]).toBe('API error 429, Claude Code retries in 1s (attempt 1/2)');
  });

  it('max turns keeps the tokens and cost of modelUsage', () => {
    expect(classify('claude_maxturns.json', 1).result).toMatchObject({ usage: { input: 1234, output: 56 }, costUsd: 0.00757, turns: 2 });
  });

  it('the budget stop reads tokens from modelUsage even when usage is all zeros', () => {
    expect(classify('claude_budget.json', 1).result.usage).toMatchObject({ input: 1234, output: 56 });
  });

  it('modelUsage of several models (subagents on another model) adds up', () => {
    const parser = new ClaudeStreamParser();
    parser.push(
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        num_turns: 3,
        result: 'ok',
        total_cost_usd: 0.5,
        usage: { input_tokens: 10, output_tokens: 1 },
        modelUsage: {
          'claude-opus-4-8': { inputTokens: 100, outputTokens: 20, cacheReadInputTokens: 5, cacheCreationInputTokens: 7, costUSD: 0.4 },
          'claude-haiku-4-5': { inputTokens: 50, outputTokens: 10, cacheReadInputTokens: 1, cacheCreationInputTokens: 0, costUSD: 0.1 },
        },
      }),
    );
    expect(classifyClaude(parser.state, exited(0), CTX)).toMatchObject({ usage: { input: 150, output: 30, cacheRead: 6, cacheWrite: 7 }, costUsd: 0.5 });
  });

  it('subagent messages are shown but are not the final text', () => {
    const activity: string[] = [];
    const parser = new ClaudeStreamParser((text) => activity.push(text));
    parser.push(JSON.stringify({ type: 'assistant', parent_tool_use_id: 'toolu_1', message: { id: 'm1', content: [{ type: 'text', text: 'sub says' }] } }));
    parser.push(
      JSON.stringify({
        type: 'assistant',
        parent_tool_use_id: 'toolu_1',
        message: { id: 'm1', content: [{ type: 'tool_use', name: 'Read', input: { file_path: '/a' } }] },
      }),
    );
    expect(activity).toEqual(['(subagent) sub says', '(subagent) Read /a']);
    expect(parser.state.lastAssistantText).toBe('');
  });

  it('skips non-JSON lines, arrays, and unknown event types', () => {
    const parser = new ClaudeStreamParser();
    for (const line of ['', 'Warning: something', '[1,2]', '{"type":"brand_new_event","x":1}', '{"type":"system","subtype":"hook_started"}', '{not json'])
      parser.push(line);
    expect(parser.state.result).toBeUndefined();
    expect(classifyClaude(parser.state, exited(0), CTX)).toMatchObject({ outcome: 'crashed', message: expect.stringMatching(/without a final result/) });
  });

  it('a subscription usage-limit text is usage_limit, not rate_limited', () => {
    const parser = new ClaudeStreamParser();
    parser.push(
      JSON.stringify({ type: 'result', subtype: 'success', is_error: true, api_error_status: 429, result: "You've hit your session limit · resets 3:45pm" }),
    );
    expect(classifyClaude(parser.state, exited(1), CTX).outcome).toBe('usage_limit');
  });

  it('a rejected rate_limit_event is usage_limit with its reset time', () => {
    const parser = new ClaudeStreamParser();
    parser.push(JSON.stringify({ type: 'rate_limit_event', rate_limit_info: { status: 'rejected', resetsAt: 1_800_000_000, rateLimitType: 'five_hour' } }));
    parser.push(JSON.stringify({ type: 'result', subtype: 'success', is_error: true, result: 'limit' }));
    expect(classifyClaude(parser.state, exited(1), CTX).message).toMatch(/resets at 2027-01-15T08:00:00.000Z/);
  });

  describe('without a result', () => {
    const empty = () => new ClaudeStreamParser().state;
    it('a bad flag (exit 1, stderr) is crashed with the stderr line', () => {
      const result = classifyClaude(empty(), exited(1, { stderr: "error: unknown option '--bogus'\n" }), CTX);
      expect(result).toMatchObject({ outcome: 'crashed', message: "The CLI exited with code 1: error: unknown option '--bogus'" });
    });
    it('a login error on stderr is auth_error', () => {
      expect(classifyClaude(empty(), exited(1, { stderr: 'Not logged in · Please run /login\n' }), CTX).outcome).toBe('auth_error');
    });
    it('root with bypassPermissions says what to do', () => {
      const stderr = '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons\n';
      expect(classifyClaude(empty(), exited(1, { stderr }), CTX).message).toMatch(/IS_SANDBOX=1/);
    });
    it('a timeout kill is timeout, a cancel is cancelled, a missing binary is crashed with the install hint', () => {
      expect(classifyClaude(empty(), exited(0, { exitCode: undefined, signal: 'SIGTERM', timedOut: true }), CTX)).toMatchObject({
        outcome: 'timeout',
        message: expect.stringMatching(/within 1 min .*process tree/),
      });
      expect(classifyClaude(empty(), exited(0, { exitCode: undefined, canceled: true }), CTX).outcome).toBe('cancelled');
      expect(classifyClaude(empty(), exited(0, { exitCode: undefined, spawnError: 'cannot start claude: not found (ENOENT)' }), CTX)).toMatchObject({
        outcome: 'crashed',
        message: 'cannot start claude: not found (ENOENT) — install it',
      });
    });
  });
});
