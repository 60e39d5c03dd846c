/**
 * What a provider call writes into the run folder (prompt.md, invocation.json) holds no secret of
 * the run, when the engine hands the call the run's redactor (ProviderRequest `redact`).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSecretSet } from '../../src/engine/sandbox/secrets.js';
import { createCommandProvider } from '../../src/providers/command.js';
import { createProvider, prepareAgent } from '../../src/providers/definitions.js';
import { createScriptProvider } from '../../src/providers/script.js';
import { loadScript } from '../../src/providers/script-steps.js';
import type { Provider, ProviderRequest } from '../../src/providers/types.js';
import type { ProviderSettings } from '../../src/spec/schema.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { FIXTURES } from './helpers.js';

const { tempDir } = tempRepos();
const SECRET = 'prompt-secret-0123456789';
const redact = createSecretSet([['FAKE_SERVICE_TOKEN', SECRET]]).redact;
const PROMPT = `Fix it. The last check printed: token=${SECRET}`;

async function call(provider: Provider, env: Record<string, string | undefined> = process.env): Promise<{ artifactsDir: string }> {
  const dir = tempDir();
  const cwd = join(dir, 'wt');
  const artifactsDir = join(dir, 'artifacts');
  mkdirSync(cwd, { recursive: true });
  mkdirSync(artifactsDir, { recursive: true });
  const request: ProviderRequest & { redact: (text: string) => string } = {
    prompt: PROMPT,
    cwd,
    model: undefined,
    iteration: 1,
    candidateId: 'c1',
    env,
    timeoutMs: 60_000,
    artifactsDir,
    signal: new AbortController().signal,
    onActivity: () => {},
    redact,
  };
  const result = await provider.run(request);
  expect(result.outcome, result.message).toBe('success');
  return { artifactsDir };
}

describe("prompt.md is written through the run's redactor", () => {
  it('command', async () => {
    const { artifactsDir } = await call(createCommandProvider({ command: 'true', args: [] }));
    expect(readFileSync(join(artifactsDir, 'prompt.md'), 'utf8')).toBe('Fix it. The last check printed: token=<redacted:FAKE_SERVICE_TOKEN>');
  });

  it('script', async () => {
    const file = join(tempDir(), 'steps.toml');
    writeFileSync(file, '[[steps]]\nsay = "done"\n');
    const script = await loadScript(file);
    if (!script.ok) throw new Error(script.error);
    const { artifactsDir } = await call(createScriptProvider(script.value));
    expect(readFileSync(join(artifactsDir, 'prompt.md'), 'utf8')).toBe('Fix it. The last check printed: token=<redacted:FAKE_SERVICE_TOKEN>');
  });

  it('a real CLI (fake claude): prompt.md and invocation.json', async () => {
    const settings: ProviderSettings = {
      kind: 'claude',
      args: ['--append-system-prompt', `use ${SECRET}`],
      env: { PATH: `${join(FIXTURES, 'bin')}:${process.env.PATH}`, ANTHROPIC_API_KEY: 'sk-ant-test' },
      timeout: 60_000,
      isolate_config: false,
    };
    const prepared = await prepareAgent(settings, { specDir: tempDir(), key: 'provider', scripts: new Map() });
    if (!prepared.ok) throw new Error(prepared.error);
    const provider = createProvider(settings, prepared.value, undefined);
    const { artifactsDir } = await call(provider, { ...process.env, ...settings.env, FAKE_CLI_STDOUT: 'claude/claude_sj_tool.jsonl' });
    expect(readFileSync(join(artifactsDir, 'prompt.md'), 'utf8')).not.toContain(SECRET);
    const invocation = readFileSync(join(artifactsDir, 'invocation.json'), 'utf8');
    expect(invocation).not.toContain(SECRET);
    expect(invocation).toContain('use <redacted:FAKE_SERVICE_TOKEN>');
  });
});
