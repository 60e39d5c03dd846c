/**
 * The parsers and classifiers against output captured by the end-to-end tier from the pinned
 * CLIs (Claude Code 2.1.332, Codex 0.171.0, Gemini CLI 0.61.0; stdout and stderr as they came,
 * see test/fixtures/providers/README.md), with the exit codes those runs had.
 */
import { describe, expect, it } from 'vitest';
import { classifyClaude, claudeEarlyStop } from '../../src/providers/classify-claude.js';
import { classifyCodex, codexEarlyStop } from '../../src/providers/classify-codex.js';
import { classifyGemini } from '../../src/providers/classify-gemini.js';
import { ClaudeStreamParser } from '../../src/providers/claude-stream.js';
import { CodexStreamParser } from '../../src/providers/codex-stream.js';
import { GeminiStreamParser } from '../../src/providers/gemini-stream.js';
import { CTX, exited, fixture, replay } from './helpers.js';

const COST = { costUsd: 0.001, costEstimated: true };
const killedAtTimeout = exited(0, { exitCode: undefined, signal: 'SIGTERM', timedOut: true });

function claude(file: string) {
  const activity: string[] = [];
  const parser = new ClaudeStreamParser((text) => activity.push(text));
  replay(parser, fixture(`claude/${file}`));
  return { state: parser.state, activity };
}

describe('Claude Code 2.1.332', () => {
  it('an edit: the Write call as activity, success, tokens and cost from the result (fields in a new order)', () => {
    const { state, activity } = claude('captured-edit.log');
    expect(state.cliVersion).toBe('2.1.332');
    expect(activity).toEqual([expect.stringMatching(/^Write \/.*\/src\/add\.mjs$/), 'Done: the file is written.']);
    expect(classifyClaude(state, exited(0), CTX)).toMatchObject({
      outcome: 'success',
      text: 'Done: the file is written.',
      turns: 2,
      costUsd: 0.01,
      usage: { input: 2000, output: 100 },
    });
  });

  it('a 429 Claude Code retried by itself: one api_retry, then success', () => {
    const { state, activity } = claude('captured-ratelimit-retried.log');
    expect(state.apiRetries).toBe(1);
    expect(activity[0]).toMatch(/^API error 429, Claude Code retries in 1(\.\d)?s \(attempt 1\/10\)$/);
    expect(classifyClaude(state, exited(0), CTX).outcome).toBe('success');
  });

  it('a refused key: Claude Code keeps retrying, and bestof stops it at the third attempt as auth_error', () => {
    const parser = new ClaudeStreamParser();
    const lines = fixture('claude/captured-auth.log').split('\n');
    const stops = lines.map((line) => {
      parser.push(line);
      return claudeEarlyStop(parser.state)?.outcome;
    });
    expect(stops.filter(Boolean)[0]).toBe('auth_error');
    expect(stops.indexOf('auth_error')).toBe(3); // init, then attempts 1, 2, 3
    expect(claudeEarlyStop(parser.state)?.message).toMatch(
      /cannot authenticate: the API refused the credentials \(HTTP 401, authentication_failed\) 3 times — set ANTHROPIC_API_KEY/,
    );
  });

  it('a hang after the edit: timeout, without a result', () => {
    const { state } = claude('captured-hang.log');
    expect(state.result).toBeUndefined();
    expect(state.toolCalls).toBe(1);
    expect(classifyClaude(state, killedAtTimeout, CTX).outcome).toBe('timeout');
  });
});

function codex(file: string) {
  const activity: string[] = [];
  const parser = new CodexStreamParser((text) => activity.push(text));
  replay(parser, fixture(`codex/${file}`));
  return { state: parser.state, activity };
}

describe('Codex 0.171.0', () => {
  it('an edit through exec_command: the command as activity, success, tokens', () => {
    const { state, activity } = codex('captured-edit.log');
    expect(activity).toEqual([expect.stringMatching(/^\$ \/bin\/bash -lc .*src\/add\.mjs/), 'Done: the file is written.']);
    expect(classifyCodex(state, exited(0), CTX, COST)).toMatchObject({ outcome: 'success', turns: 2, usage: { input: 1600, cacheRead: 400, output: 100 } });
  });

  it('a 429 Codex retried by itself ("Reconnecting... 1/5"), then success', () => {
    const { state } = codex('captured-ratelimit-retried.log');
    expect(state.reconnects).toBe(1);
    expect(codexEarlyStop(state)).toBeUndefined();
    expect(classifyCodex(state, exited(0), CTX, COST).outcome).toBe('success');
  });

  it('a refused key: bestof stops the reconnect loop at the second attempt as auth_error', () => {
    const { state } = codex('captured-auth.log');
    expect(codexEarlyStop(state)).toEqual({
      outcome: 'auth_error',
      message: expect.stringMatching(/^Codex cannot authenticate: unexpected status 401 Unauthorized: Incorrect API key provided/),
    });
  });

  it('a hang after the edit: timeout', () => {
    expect(classifyCodex(codex('captured-hang.log').state, killedAtTimeout, CTX, COST).outcome).toBe('timeout');
  });
});

function gemini(file: string) {
  const activity: string[] = [];
  const parser = new GeminiStreamParser((text) => activity.push(text));
  replay(parser, fixture(`gemini/${file}`));
  return { state: parser.state, activity };
}

describe('Gemini CLI 0.61.0', () => {
  it('an edit through write_file: activity, success, tokens per model', () => {
    const { state, activity } = gemini('captured-edit.log');
    expect(activity).toEqual([expect.stringMatching(/^write_file \/.*\/src\/add\.mjs$/), 'Done: the file is written.']);
    expect(state.models).toEqual([{ model: 'gemini-2.5-flash', usage: { input: 2000, output: 100, cacheRead: 0, cacheWrite: 0 } }]);
    expect(classifyGemini(state, exited(0), CTX, COST).outcome).toBe('success');
  });

  it('a 429 Gemini CLI retried by itself (a stack trace in between), then success', () => {
    expect(classifyGemini(gemini('captured-ratelimit-retried.log').state, exited(0), CTX, COST).outcome).toBe('success');
  });

  it('an invalid key (400 API_KEY_INVALID, exit 144) is auth_error', () => {
    expect(classifyGemini(gemini('captured-auth.log').state, exited(144), CTX, COST)).toMatchObject({
      outcome: 'auth_error',
      message: expect.stringMatching(/API key not valid/),
    });
  });
});
