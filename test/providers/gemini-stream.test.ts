import { describe, expect, it } from 'vitest';
import { classifyGemini } from '../../src/providers/classify-gemini.js';
import { GeminiStreamParser } from '../../src/providers/gemini-stream.js';
import { CTX, exited, fixture, replay } from './helpers.js';

const COST = { costUsd: 0.02, costEstimated: true };

function parse(file: string) {
  const activity: string[] = [];
  const parser = new GeminiStreamParser((text) => activity.push(text));
  replay(parser, fixture(`gemini/${file}`));
  return { state: parser.state, activity };
}

describe('gemini --output-format stream-json', () => {
  it('a tool run: the tool call and the answer as activity, tokens per model', () => {
    const { state, activity } = parse('gemini_gm_sj_tool.out');
    expect(activity).toEqual(['run_shell_command echo hello-from-tool', 'The command printed hello-from-tool. Done.']);
    expect(state.models).toEqual([{ model: 'gemini-fake', usage: { input: 2400, output: 150, cacheRead: 300, cacheWrite: 0 } }]);
    const result = classifyGemini(state, exited(0), CTX, COST);
    expect(result).toMatchObject({
      outcome: 'success',
      text: 'The command printed hello-from-tool. Done.',
      sessionId: '11817df7-013b-4088-8ae1-a0da24862cbc',
      turns: 2,
      costUsd: 0.02,
      costEstimated: true,
      usage: { input: 2400, output: 150, cacheRead: 300 },
    });
  });

  it('a failed tool call shows as activity and the run still succeeds', () => {
    const { state, activity } = parse('gemini_gm_noyolo.out');
    expect(activity).toContain("tool failed: params must have required property 'strategic_intent'");
    expect(classifyGemini(state, exited(0), CTX, COST).outcome).toBe('success');
  });

  it('a 429 (result status error, exit 173) is rate_limited', () => {
    const { state } = parse('gemini_gm_sj_rl.out');
    const result = classifyGemini(state, exited(173), CTX, COST);
    expect(result).toMatchObject({ outcome: 'rate_limited', message: expect.stringMatching(/Resource has been exhausted/) });
    // The router call's tokens still count.
    expect(result.usage.input).toBe(800);
  });

  it('an invalid key (HTTP 400 API_KEY_INVALID, exit 144) is auth_error', () => {
    const { state } = parse('gemini_gm_sj_auth.out');
    expect(classifyGemini(state, exited(144), CTX, COST)).toMatchObject({
      outcome: 'auth_error',
      message: expect.stringMatching(/API key not valid.*GEMINI_API_KEY/),
    });
  });

  it.each([
    ['gemini_json_maxturns.stderr', 53, 'max_turns', /turn limit: Reached max session turns/],
    ['gemini_json_ratelimit.stderr', 173, 'rate_limited', /Resource has been exhausted/],
    ['gemini_json_auth_error.stderr', 144, 'auth_error', /API key not valid/],
  ] as const)('the JSON error block on stderr (%s, exit %d) is %s', (file, exitCode, outcome, message) => {
    const state = new GeminiStreamParser().state;
    const result = classifyGemini(state, exited(exitCode, { stderr: fixture(`gemini/${file}`) }), CTX, COST);
    expect(result.outcome).toBe(outcome);
    expect(result.message).toMatch(message);
  });

  it('exit 41 (no auth type chosen) is auth_error', () => {
    const state = new GeminiStreamParser().state;
    const result = classifyGemini(state, exited(41, { stderr: 'Invalid auth method selected.\n' }), CTX, COST);
    expect(result).toMatchObject({ outcome: 'auth_error', message: expect.stringMatching(/Invalid auth method selected/) });
  });

  it('assistant deltas are joined into one answer; unknown events and non-JSON lines are skipped', () => {
    const parser = new GeminiStreamParser();
    for (const line of [
      'YOLO mode is enabled.',
      '{"type":"init","session_id":"s","model":"auto"}',
      '{"type":"message","role":"assistant","content":"Hel","delta":true}',
      '{"type":"brand_new","x":1}',
      '{"type":"message","role":"assistant","content":"lo","delta":true}',
      '{"type":"result","status":"success","stats":{"total_tokens":10,"input_tokens":8,"output_tokens":2,"cached":0,"input":8}}',
    ]) {
      parser.push(line);
    }
    expect(parser.state.text).toBe('Hello');
    // Without per-model stats, the tokens count for the announced model.
    expect(parser.state.models).toEqual([{ model: 'auto', usage: { input: 8, output: 2, cacheRead: 0, cacheWrite: 0 } }]);
  });

  it('exit 0 without a result is not success', () => {
    expect(classifyGemini(new GeminiStreamParser().state, exited(0), CTX, COST).outcome).toBe('crashed');
  });
});
