/**
 * The claude, codex and gemini providers through the provider API, with fake CLIs on PATH
 * (test/fixtures/providers/bin) that print captured streams and exit with the real codes.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createProvider, prepareAgent, type PreparedAgent } from '../../src/providers/definitions.js';
import type { ProviderRequest } from '../../src/providers/types.js';
import type { ProviderSettings } from '../../src/spec/schema.js';
import { expectGone, FIXTURES } from './helpers.js';

const BIN = join(FIXTURES, 'bin');
const KEYS = { ANTHROPIC_API_KEY: 'sk-ant-test', CODEX_API_KEY: 'sk-test', GEMINI_API_KEY: 'AIza-test' };

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'bestof-providers-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function settings(kind: 'claude' | 'codex' | 'gemini', extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return { kind, args: [], env: { PATH: `${BIN}:${process.env.PATH}`, ...KEYS }, timeout: 60_000, isolate_config: false, ...extra };
}

async function prepare(s: ProviderSettings): Promise<PreparedAgent> {
  const prepared = await prepareAgent(s, { specDir: dir, key: 'provider', scripts: new Map() });
  if (!prepared.ok) throw new Error(prepared.error);
  return prepared.value;
}

/** Runs a provider once in a fresh worktree-like folder; `fake` configures the fake CLI. */
async function run(s: ProviderSettings, fake: Record<string, string>, extra: Partial<ProviderRequest> = {}) {
  const agent = await prepare(s);
  const provider = createProvider(s, agent, undefined);
  const cwd = join(dir, 'wt');
  const artifactsDir = join(dir, 'run', 'candidates', 'c1', 'iteration-1');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(artifactsDir, { recursive: true });
  const record = join(dir, 'record.json');
  const activity: string[] = [];
  const result = await provider.run({
    prompt: 'Make the tests pass.',
    cwd,
    model: s.model,
    iteration: 1,
    candidateId: 'c1',
    env: { ...process.env, ...s.env, CLAUDECODE: '1', CLAUDE_CODE_CHILD_SESSION: '1', FAKE_CLI_RECORD: record, ...fake },
    timeoutMs: 60_000,
    artifactsDir,
    signal: new AbortController().signal,
    onActivity: (text) => activity.push(text),
    ...extra,
  });
  const called = existsSync(record)
    ? (JSON.parse(readFileSync(record, 'utf8')) as { args: string[]; stdin: string; cwd: string; env: Record<string, string> })
    : undefined;
  return { result, activity, called, cwd, artifactsDir, provider };
}

describe('claude provider', () => {
  it('runs claude -p with stream-json, the prompt on stdin, and a session id of its own', async () => {
    const s = settings('claude', { model: 'sonnet', max_turns: 5, append_system_prompt: 'Be brief.' });
    const { result, called, activity, artifactsDir } = await run(s, { FAKE_CLI_STDOUT: 'claude/claude_sj_tool.jsonl', FAKE_CLI_WRITE: 'out.txt' });
    expect(result).toMatchObject({ outcome: 'success', text: 'The command printed hello-from-tool. Done.', costUsd: 0.01514, turns: 2 });
    expect(activity).toContain('Bash echo hello-from-tool');
    const args = called!.args;
    expect(args.slice(0, 4)).toEqual(['-p', '--output-format', 'stream-json', '--verbose']);
    expect(args[args.indexOf('--session-id') + 1]).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(args).toEqual(
      expect.arrayContaining(['--model', 'sonnet', '--max-turns', '5', '--permission-mode', 'acceptEdits', '--append-system-prompt', 'Be brief.']),
    );
    expect(called!.stdin).toBe('Make the tests pass.');
    // Not a nested Claude Code session, whatever bestof was started from.
    expect(called!.env.CLAUDECODE).toBeUndefined();
    expect(called!.env.CLAUDE_CODE_CHILD_SESSION).toBeUndefined();
    expect(readFileSync(join(artifactsDir, 'output.log'), 'utf8')).toContain('"type":"result"');
    expect(JSON.parse(readFileSync(join(artifactsDir, 'invocation.json'), 'utf8'))).toMatchObject({
      argv: expect.arrayContaining(['--verbose']),
      model: 'sonnet',
    });
  });

  it('the spec chooses the permission mode; extra args come last', async () => {
    const s = settings('claude', { permission_mode: 'plan', args: ['--allowedTools', 'Bash(npm test:*)'] });
    const { called } = await run(s, { FAKE_CLI_STDOUT: 'claude/claude_sin.jsonl' });
    expect(called!.args.slice(-4)).toEqual(['--permission-mode', 'plan', '--allowedTools', 'Bash(npm test:*)']);
  });

  it('a rate limit (exit 1) is rate_limited', async () => {
    const { result } = await run(settings('claude'), { FAKE_CLI_STDOUT: 'claude/claude_sj_ratelimit.jsonl', FAKE_CLI_EXIT: '1' });
    expect(result.outcome).toBe('rate_limited');
  });

  it('an invalid key (exit 1) is auth_error with what to set', async () => {
    const { result } = await run(settings('claude'), { FAKE_CLI_STDOUT: 'claude/claude_sj_auth.jsonl', FAKE_CLI_EXIT: '1' });
    expect(result).toMatchObject({ outcome: 'auth_error', message: expect.stringMatching(/ANTHROPIC_API_KEY/) });
  });

  it('a key refused again and again: bestof stops the retrying CLI at once and reports auth_error', async () => {
    const started = Date.now();
    const { result, activity } = await run(settings('claude'), { FAKE_CLI_STDOUT: 'claude/captured-auth.log', FAKE_CLI_HANG: '1' });
    expect(result).toMatchObject({ outcome: 'auth_error', message: expect.stringMatching(/refused the credentials .* 3 times/) });
    expect(activity.at(-1)).toMatch(/^stopped Claude Code: /);
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('isolate_config gives a fresh CLAUDE_CONFIG_DIR in the candidate folder and says so', async () => {
    const { called, activity } = await run(settings('claude', { isolate_config: true }), { FAKE_CLI_STDOUT: 'claude/claude_sin.jsonl' });
    const expected = join(dir, 'run', 'candidates', 'c1', 'claude-config');
    expect(called!.env.CLAUDE_CONFIG_DIR).toBe(expected);
    expect(existsSync(expected)).toBe(true);
    expect(activity[0]).toBe(`isolated config: CLAUDE_CONFIG_DIR=${expected}`);
  });

  it('describe(): the version, the argv without prompt or session id, and the model', async () => {
    const s = settings('claude', { model: 'opus' });
    const provider = createProvider(s, await prepare(s), undefined);
    expect(await provider.describe!()).toEqual({
      kind: 'claude',
      binary: join(BIN, 'claude'),
      version: '2.1.332 (Claude Code)',
      argv: ['-p', '--output-format', 'stream-json', '--verbose', '--session-id', '<session-id>', '--model', 'opus', '--permission-mode', 'acceptEdits'],
      model: 'opus',
    });
  });

  it('a hung CLI is killed at the timeout with its whole process tree; what it wrote stays', async () => {
    const { result, cwd, artifactsDir } = await run(settings('claude'), { FAKE_CLI_HANG: '1', FAKE_CLI_WRITE: 'partial.txt' }, { timeoutMs: 1500 });
    expect(result.outcome).toBe('timeout');
    expect(result.message).toMatch(/killed with its whole process tree/);
    expect(readFileSync(join(cwd, 'partial.txt'), 'utf8')).toBe('written by claude\n');
    const pid = JSON.parse(readFileSync(join(artifactsDir, 'output.log'), 'utf8').split('\n')[0]!).pid as number;
    await expectGone(pid);
  });

  it('cancel (the run is aborted) is cancelled', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const { result } = await run(settings('claude'), { FAKE_CLI_HANG: '1' }, { signal: controller.signal });
    expect(result.outcome).toBe('cancelled');
  });
});

describe('codex provider', () => {
  it('runs codex exec --json with the sandbox, -m, -c overrides, the prompt as the last argument and stdin closed', async () => {
    const s = settings('codex', { model: 'gpt-5', config: { model_reasoning_effort: 'high', 'features.web_search': false, api_key: 'sk-secret' } });
    const { result, called, artifactsDir } = await run(s, { FAKE_CLI_STDOUT: 'codex/codex_cx_tool.jsonl' });
    expect(called!.args).toEqual([
      'exec',
      '--json',
      '--skip-git-repo-check',
      '--sandbox',
      'workspace-write',
      '-m',
      'gpt-5',
      '-c',
      'model_reasoning_effort="high"',
      '-c',
      'features.web_search=false',
      '-c',
      'api_key="sk-secret"',
      '--',
      'Make the tests pass.',
    ]);
    expect(called!.stdin).toBe('');
    // gpt-5 in configs/prices.toml: 1600 input at 1.25, 400 cached at 0.125, 100 output at 10 (per million).
    expect(result).toMatchObject({ outcome: 'success', costEstimated: true, sessionId: '01a235d7-7ebd-7580-9d37-eb1ffecbcc7c' });
    expect(result.costUsd).toBeCloseTo((1600 * 1.25 + 400 * 0.125 + 100 * 10) / 1e6, 10);
    const invocation = JSON.parse(readFileSync(join(artifactsDir, 'invocation.json'), 'utf8')) as { argv: string[] };
    expect(invocation.argv).toContain('api_key=<redacted>');
    expect(invocation.argv.at(-1)).toBe('<prompt>');
  });

  it('sandbox = "bypass" is --dangerously-bypass-approvals-and-sandbox', async () => {
    const { called } = await run(settings('codex', { sandbox: 'bypass' }), { FAKE_CLI_STDOUT: 'codex/codex_cx_text.jsonl' });
    expect(called!.args.slice(0, 4)).toEqual(['exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox']);
  });

  it('a spec price overrides the table, and an unknown model says its price is missing', async () => {
    const s = settings('codex', { model: 'gpt-fake' });
    const provider = createProvider(s, await prepare(s), { prices: { 'gpt-fake': { input: 1, output: 2, cache_read: 0 } } });
    const agentRun = await run(s, { FAKE_CLI_STDOUT: 'codex/codex_cx_text.jsonl' });
    expect(agentRun.result.costUsd).toBe(0);
    expect(agentRun.activity.at(-1)).toMatch(/no price for "gpt-fake".*\[providers\.codex\.prices\."gpt-fake"\]/);
    const cwd = join(dir, 'wt');
    const result = await provider.run({
      prompt: 'x',
      cwd,
      model: 'gpt-fake',
      iteration: 1,
      candidateId: 'c1',
      timeoutMs: 60_000,
      artifactsDir: agentRun.artifactsDir,
      env: { ...process.env, ...s.env, FAKE_CLI_STDOUT: 'codex/codex_cx_text.jsonl' },
      signal: new AbortController().signal,
      onActivity: () => {},
    });
    expect(result.costUsd).toBeCloseTo((800 * 1 + 50 * 2) / 1e6, 12);
  });

  it('isolate_config: a fresh CODEX_HOME, and OPENAI_API_KEY passed on as CODEX_API_KEY', async () => {
    const s = settings('codex', { isolate_config: true, env: { PATH: `${BIN}:${process.env.PATH}`, OPENAI_API_KEY: 'sk-openai' } });
    const { called } = await run(s, { FAKE_CLI_STDOUT: 'codex/codex_cx_text.jsonl', CODEX_API_KEY: '' });
    expect(called!.env.CODEX_HOME).toBe(join(dir, 'run', 'candidates', 'c1', 'codex-config'));
    expect(called!.env.CODEX_API_KEY).toBe('sk-openai');
  });

  it('turn.failed with 401 (exit 1) is auth_error', async () => {
    const { result } = await run(settings('codex'), { FAKE_CLI_STDOUT: 'codex/codex_cx_auth.jsonl', FAKE_CLI_EXIT: '1' });
    expect(result.outcome).toBe('auth_error');
  });
});

describe('gemini provider', () => {
  it('runs gemini with stream-json, auto_edit by default, -m, and the prompt in -p', async () => {
    const { result, called } = await run(settings('gemini', { model: 'gemini-2.5-pro' }), { FAKE_CLI_STDOUT: 'gemini/gemini_gm_sj_tool.out' });
    expect(called!.args).toEqual([
      '--output-format',
      'stream-json',
      '--skip-trust',
      '--approval-mode',
      'auto_edit',
      '-m',
      'gemini-2.5-pro',
      '-p',
      'Make the tests pass.',
    ]);
    expect(result).toMatchObject({ outcome: 'success', costEstimated: true });
  });

  it('approval_mode = "yolo" is --yolo', async () => {
    const { called } = await run(settings('gemini', { approval_mode: 'yolo' }), { FAKE_CLI_STDOUT: 'gemini/gemini_gm_sj_tool.out' });
    expect(called!.args).toContain('--yolo');
  });

  it('a 429 (exit 173) is rate_limited; an invalid key (exit 144) is auth_error', async () => {
    expect((await run(settings('gemini'), { FAKE_CLI_STDOUT: 'gemini/gemini_gm_sj_rl.out', FAKE_CLI_EXIT: '173' })).result.outcome).toBe('rate_limited');
    expect((await run(settings('gemini'), { FAKE_CLI_STDOUT: 'gemini/gemini_gm_sj_auth.out', FAKE_CLI_EXIT: '144' })).result.outcome).toBe('auth_error');
  });

  it('the turn limit (exit 53, the error on stderr) is max_turns', async () => {
    const { result } = await run(settings('gemini'), { FAKE_CLI_STDERR: 'gemini/gemini_json_maxturns.stderr', FAKE_CLI_EXIT: '53' });
    expect(result.outcome).toBe('max_turns');
  });

  it('isolate_config writes the auth type and the turn limit into a fresh GEMINI_CLI_HOME', async () => {
    const { called } = await run(settings('gemini', { isolate_config: true, max_turns: 7 }), { FAKE_CLI_STDOUT: 'gemini/gemini_gm_sj_tool.out' });
    const home = join(dir, 'run', 'candidates', 'c1', 'gemini-config');
    expect(called!.env.GEMINI_CLI_HOME).toBe(home);
    expect(JSON.parse(readFileSync(join(home, '.gemini', 'settings.json'), 'utf8'))).toEqual({
      privacy: { usageStatisticsEnabled: false },
      security: { auth: { selectedType: 'gemini-api-key' } },
      model: { maxSessionTurns: 7 },
    });
  });
});

describe('prepareAgent for the real CLIs', () => {
  const problem = async (s: ProviderSettings) => {
    const prepared = await prepareAgent(s, { specDir: dir, key: 'parallel.providers[0]', scripts: new Map() });
    return prepared.ok ? undefined : prepared.error;
  };
  const noKeys = (kind: 'claude' | 'codex' | 'gemini', extra: Partial<ProviderSettings> = {}) =>
    settings(kind, {
      env: {
        PATH: `${BIN}:${process.env.PATH}`,
        HOME: dir,
        ANTHROPIC_API_KEY: '',
        CODEX_API_KEY: '',
        OPENAI_API_KEY: '',
        GEMINI_API_KEY: '',
        CLAUDE_CONFIG_DIR: '',
        CODEX_HOME: '',
        GEMINI_CLI_HOME: '',
        GOOGLE_GENAI_USE_VERTEXAI: '',
        GOOGLE_GENAI_USE_GCA: '',
        ANTHROPIC_AUTH_TOKEN: '',
        CLAUDE_CODE_OAUTH_TOKEN: '',
      },
      ...extra,
    });

  it.each(['claude', 'codex', 'gemini'] as const)('a missing %s CLI says which one and how to install it', async (kind) => {
    const s = settings(kind, { env: { ...KEYS, PATH: dir } });
    expect(await problem(s)).toMatch(
      new RegExp(`parallel\\.providers\\[0\\]: the ${kind} CLI \\("${kind}"\\) was not found on PATH; install .*npm install -g`),
    );
  });

  it('`command` chooses the binary (relative to the spec)', async () => {
    expect(await problem(settings('codex', { command: './nope/codex' }))).toMatch(/parallel\.providers\[0\]\.command: .*nope\/codex does not exist/);
    const prepared = await prepareAgent(settings('codex', { command: join(BIN, 'codex') }), { specDir: dir, key: 'provider', scripts: new Map() });
    expect(prepared).toEqual({ ok: true, value: { command: join(BIN, 'codex') } });
  });

  it.skipIf(process.platform === 'darwin')('no key and no login says which variable or login is missing', async () => {
    expect(await problem(noKeys('claude'))).toMatch(/Claude Code has no login: no ANTHROPIC_API_KEY.*log in once with `claude`/);
    expect(await problem(noKeys('codex'))).toMatch(/Codex has no login: CODEX_API_KEY is not set .*codex login/);
    expect(await problem(noKeys('gemini'))).toMatch(/Gemini CLI has no login: GEMINI_API_KEY is not set/);
  });

  it('with isolate_config, a login on disk does not count: the key must be set', async () => {
    expect(await problem(noKeys('claude', { isolate_config: true }))).toMatch(/isolate_config = true .*ANTHROPIC_API_KEY/);
    expect(await problem(noKeys('codex', { isolate_config: true }))).toMatch(/isolate_config = true .*CODEX_API_KEY \(or OPENAI_API_KEY\)/);
    expect(await problem(noKeys('gemini', { isolate_config: true }))).toMatch(/isolate_config = true .*GEMINI_API_KEY/);
  });

  it('a codex custom model provider needs its env_key', async () => {
    const config = { model_provider: 'fake', 'model_providers.fake.env_key': 'FAKE_KEY' };
    expect(await problem(noKeys('codex', { config }))).toMatch(/"fake" reads its key from FAKE_KEY, which is not set/);
  });

  it('gemini max_turns without isolate_config is refused with the fix', async () => {
    expect(await problem(settings('gemini', { max_turns: 3 }))).toMatch(/max_turns: Gemini CLI has no flag .*isolate_config = true/);
  });

  it.skipIf(process.getuid?.() !== 0)('claude bypassPermissions as root without IS_SANDBOX is refused with the fix', async () => {
    const s = settings('claude', { permission_mode: 'bypassPermissions' });
    expect(await problem({ ...s, env: { ...s.env, IS_SANDBOX: '' } })).toMatch(/refuses bypassPermissions as root.*IS_SANDBOX/);
  });
});
