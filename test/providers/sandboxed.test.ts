/**
 * Providers inside bestof's sandbox: the CLIs' autonomy defaults (the sandbox, not the CLI's
 * prompt, is the boundary; an explicit spec value always wins), the HOME seeded with the
 * login, and Codex's failed file edits never passing as a quiet success.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { seedAgentHome } from '../../src/providers/agent-home.js';
import { claudeAdapter } from '../../src/providers/claude.js';
import { classifyCodex } from '../../src/providers/classify-codex.js';
import { sandboxArgs } from '../../src/providers/codex.js';
import { CodexStreamParser } from '../../src/providers/codex-stream.js';
import { approvalArgs } from '../../src/providers/gemini.js';
import type { ProviderSettings } from '../../src/spec/schema.js';
import { CTX, exited } from './helpers.js';

const input = (sandboxed: boolean) => ({ prompt: 'p', model: undefined, sessionId: 's', sandboxed });

describe('autonomy defaults', () => {
  const settings = (extra: Partial<ProviderSettings> = {}): ProviderSettings => ({
    kind: 'claude',
    args: [],
    env: {},
    timeout: 60_000,
    isolate_config: false,
    ...extra,
  });
  const permissionOf = (args: readonly string[]) => args[args.indexOf('--permission-mode') + 1];

  it('claude: bypassPermissions with IS_SANDBOX=1 inside, acceptEdits outside, the spec always wins', () => {
    expect(permissionOf(claudeAdapter.buildCall(settings(), input(true)).args)).toBe('bypassPermissions');
    expect(claudeAdapter.sandboxEnv).toEqual({ IS_SANDBOX: '1' });
    expect(permissionOf(claudeAdapter.buildCall(settings(), input(false)).args)).toBe('acceptEdits');
    expect(permissionOf(claudeAdapter.buildCall(settings({ permission_mode: 'plan' }), input(true)).args)).toBe('plan');
  });

  it('codex: its own sandbox off inside, workspace-write outside, the spec always wins', () => {
    expect(sandboxArgs(undefined, true)).toEqual(['--dangerously-bypass-approvals-and-sandbox']);
    expect(sandboxArgs(undefined, false)).toEqual(['--sandbox', 'workspace-write']);
    expect(sandboxArgs('read-only', true)).toEqual(['--sandbox', 'read-only']);
  });

  it('gemini: yolo inside, auto_edit outside, the spec always wins', () => {
    expect(approvalArgs(undefined, true)).toEqual(['--yolo']);
    expect(approvalArgs(undefined, false)).toEqual(['--approval-mode', 'auto_edit']);
    expect(approvalArgs('plan', true)).toEqual(['--approval-mode', 'plan']);
  });
});

describe('the agent HOME', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const temp = () => {
    const dir = mkdtempSync(join(tmpdir(), 'bestof-home-'));
    dirs.push(dir);
    return dir;
  };

  it('copies only the seed files that exist, keeps their mode, and never touches the user HOME', async () => {
    const user = temp();
    const home = join(temp(), 'c1');
    mkdirSync(join(user, '.claude'));
    writeFileSync(join(user, '.claude', '.credentials.json'), '{"t":1}', { mode: 0o600 });
    writeFileSync(join(user, '.claude.json'), '{}');
    const env = await seedAgentHome(home, { files: claudeAdapter.homeSeed }, { HOME: user });
    expect(env).toEqual({});
    expect(readFileSync(join(home, '.claude', '.credentials.json'), 'utf8')).toBe('{"t":1}');
    expect(statSync(join(home, '.claude', '.credentials.json')).mode & 0o777).toBe(0o600);
    expect(existsSync(join(home, '.claude', 'settings.json'))).toBe(false);
    // A token refreshed inside stays inside: a second seeding does not overwrite it.
    writeFileSync(join(home, '.claude', '.credentials.json'), '{"t":2}');
    await seedAgentHome(home, { files: claudeAdapter.homeSeed }, { HOME: user });
    expect(readFileSync(join(home, '.claude', '.credentials.json'), 'utf8')).toBe('{"t":2}');
    expect(readFileSync(join(user, '.claude', '.credentials.json'), 'utf8')).toBe('{"t":1}');
  });

  it('seeds from a moved config folder (CODEX_HOME) and points the variable at the copy', async () => {
    const codexHome = temp();
    const home = join(temp(), 'c1');
    writeFileSync(join(codexHome, 'auth.json'), '{"k":1}');
    const env = await seedAgentHome(
      home,
      { files: ['.codex/auth.json', '.codex/config.toml'], configRoot: { variable: 'CODEX_HOME', relative: '.codex' } },
      { HOME: temp(), CODEX_HOME: codexHome },
    );
    expect(env).toEqual({ CODEX_HOME: join(home, '.codex') });
    expect(readFileSync(join(home, '.codex', 'auth.json'), 'utf8')).toBe('{"k":1}');
  });
});

describe('codex failed file edits', () => {
  const line = (value: unknown) => JSON.stringify(value);
  const run = (statuses: string[]) => {
    const activity: string[] = [];
    const parser = new CodexStreamParser((text) => activity.push(text));
    parser.push(line({ type: 'thread.started', thread_id: 't1' }));
    statuses.forEach((status, i) => {
      parser.push(
        line({ type: 'item.completed', item: { id: `item_${i}`, type: 'file_change', changes: [{ path: `/wt/src/f${i}.ts`, kind: 'update' }], status } }),
      );
    });
    parser.push(line({ type: 'item.completed', item: { id: 'item_9', type: 'agent_message', text: 'Done.' } }));
    parser.push(line({ type: 'turn.completed', usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 } }));
    return { result: classifyCodex(parser.state, exited(0), CTX, { costUsd: 0, costEstimated: true }), activity };
  };

  it("every edit failed (Codex's own sandbox under bubblewrap): crashed, naming the files and the cause", () => {
    const { result, activity } = run(['failed']);
    expect(result.outcome).toBe('crashed');
    expect(result.message).toContain('/wt/src/f0.ts');
    expect(result.message).toContain('sandbox');
    expect(activity).toContain('edit FAILED: /wt/src/f0.ts');
  });

  it('some edits failed: success, with a message that names them', () => {
    const { result } = run(['completed', 'failed']);
    expect(result.outcome).toBe('success');
    expect(result.message).toContain('/wt/src/f1.ts');
  });

  it('no edit failed: a plain success', () => {
    const { result } = run(['completed']);
    expect(result.outcome).toBe('success');
    expect(result.message).toBeUndefined();
  });
});
