/**
 * Providers as data: the provider table holds a definition for every kind, each kind's install
 * hint has one source, and every provider can be closed (twice).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { claudeAdapter } from '../../src/providers/claude.js';
import { codexAdapter } from '../../src/providers/codex.js';
import { geminiAdapter } from '../../src/providers/gemini.js';
import {
  AVAILABLE_PROVIDERS,
  createProvider,
  installHintFor,
  isAttachable,
  loadAllDefinitions,
  prepareAgent,
  PROVIDER_TABLE,
  reportsCost,
  traitsOf,
} from '../../src/providers/definitions.js';
import { PROVIDER_KINDS, type ProviderKind, type ProviderSettings } from '../../src/spec/schema.js';
import { FIXTURES } from './helpers.js';

const BIN = join(FIXTURES, 'bin');
const KEYS = { ANTHROPIC_API_KEY: 'sk-ant-test', CODEX_API_KEY: 'sk-test', GEMINI_API_KEY: 'AIza-test' };
const dir = mkdtempSync(join(tmpdir(), 'bestof-table-'));
/** Every definition, loaded (as a run loads the kinds its spec names). */
const PROVIDERS = await loadAllDefinitions();
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function settings(kind: ProviderKind, extra: Partial<ProviderSettings> = {}): ProviderSettings {
  return { kind, args: [], env: { PATH: `${BIN}:${process.env.PATH}`, ...KEYS }, timeout: 60_000, isolate_config: false, ...extra };
}

const prepare = (s: ProviderSettings, key = 'provider') => prepareAgent(s, { specDir: dir, key, scripts: new Map() });

describe('the provider table', () => {
  it('every kind in the table has a definition of that kind, and AVAILABLE_PROVIDERS is the table', () => {
    const entries = Object.entries(PROVIDERS);
    expect(entries.length).toBeGreaterThan(0);
    for (const [kind, definition] of entries) {
      expect(PROVIDER_KINDS).toContain(kind);
      expect(definition?.kind).toBe(kind);
    }
    expect(AVAILABLE_PROVIDERS).toEqual(Object.keys(PROVIDERS));
    expect(AVAILABLE_PROVIDERS).toEqual(Object.keys(PROVIDER_TABLE));
    expect(AVAILABLE_PROVIDERS).toEqual(['claude', 'codex', 'gemini', 'shannon', 'command', 'script']);
  });

  it('every kind of the spec language has a definition (shannon too)', () => {
    expect([...AVAILABLE_PROVIDERS].sort()).toEqual([...PROVIDER_KINDS].sort());
  });

  it("shannon: without tmux, prepareAgent names the key and how to install tmux; without Claude Code, claude's install hint", async () => {
    const noTmux = await prepare(settings('shannon', { env: { PATH: BIN, ...KEYS } }), 'parallel.providers[2]');
    expect(noTmux.ok).toBe(false);
    expect(!noTmux.ok && noTmux.error).toMatch(/^parallel\.providers\[2\]: kind = "shannon" runs Claude Code in tmux, and tmux is not on PATH; install tmux/);
    const noClaude = await prepare(settings('shannon', { command: 'no-such-claude' }), 'provider');
    expect(noClaude).toEqual({
      ok: false,
      error: `provider.command: "no-such-claude" (the Claude Code program of kind = "shannon") is not on PATH; set provider.command to its path, or ${PROVIDERS.claude?.installHint}`,
    });
    const noSectionProgram = await prepareAgent(settings('shannon'), {
      specDir: dir,
      key: 'provider',
      scripts: new Map(),
      shannon: { command: 'no-such-claude', startup_timeout: 1000, idle_timeout: 1000, hold_timeout: 1000 },
    });
    expect(!noSectionProgram.ok && noSectionProgram.error).toMatch(
      /^shannon\.command: "no-such-claude" \(the Claude Code program of kind = "shannon"\) is not on PATH; set shannon\.command to its path, or install Claude Code/,
    );
    const found = await prepare(settings('shannon'));
    expect(found.ok && found.value.command).toBe(join(BIN, 'claude'));
    expect(() => createProvider(settings('shannon'), {}, undefined)).toThrow(/bug: a shannon candidate without its program/);
  });
});

describe("the kinds' traits (what the engine and the UI ask of a kind)", () => {
  it('a command agent reports no cost; every other kind does, and a kind this version does not know has the defaults', () => {
    expect(AVAILABLE_PROVIDERS.filter((kind) => !reportsCost(kind))).toEqual(['command']);
    expect(reportsCost('no-such-kind')).toBe(true);
  });

  it("only the kinds named by a plain word (command, script) keep their name in a vote's anonymised material", () => {
    expect(AVAILABLE_PROVIDERS.filter((kind) => traitsOf(kind).plainName)).toEqual(['command', 'script']);
  });

  it('only shannon (Claude Code in tmux) can be attached to', () => {
    expect(AVAILABLE_PROVIDERS.filter(isAttachable)).toEqual(['shannon']);
    expect(isAttachable('toString')).toBe(false);
  });

  it('a command agent is labelled by its program, a script agent by its steps file; the others have no label of their own', () => {
    expect(traitsOf('command').label?.(settings('command', { command: '/opt/bin/my-agent', model: 'm1' }))).toBe('my-agent:m1');
    expect(traitsOf('command').label?.(settings('command', { command: 'my-agent' }))).toBe('my-agent');
    expect(traitsOf('script').label?.(settings('script', { script: 'scripts/fix.toml' }))).toBe('script:fix');
    expect(traitsOf('script').label?.(settings('script'))).toBeUndefined();
    expect(AVAILABLE_PROVIDERS.filter((kind) => traitsOf(kind).label !== undefined)).toEqual(['command', 'script']);
  });

  it("a command agent's prompt is an argument unless its args leave `{prompt}` out", () => {
    const asArgument = traitsOf('command').promptAsArgument;
    expect(asArgument?.(settings('command'))).toBe(true);
    expect(asArgument?.(settings('command', { args: ['--task', '{prompt}'] }))).toBe(true);
    expect(asArgument?.(settings('command', { args: ['--file', '{prompt_file}'] }))).toBe(false);
    expect(AVAILABLE_PROVIDERS.filter((kind) => traitsOf(kind).promptAsArgument !== undefined)).toEqual(['command']);
  });
});

describe('install hints have one source', () => {
  it('the definition, the CLI adapter (spawn errors) and the lookup by program name agree', () => {
    const cli = { binary: '/bin/true', settings: settings('codex') };
    expect(claudeAdapter.installHint).toBe(PROVIDERS.claude?.installHint);
    expect(codexAdapter(cli).installHint).toBe(PROVIDERS.codex?.installHint);
    expect(geminiAdapter(cli).installHint).toBe(PROVIDERS.gemini?.installHint);
    for (const kind of ['claude', 'codex', 'gemini'] as const) expect(installHintFor(kind)).toBe(PROVIDERS[kind]?.installHint);
    expect(installHintFor('no-such-cli')).toBeUndefined();
    expect(installHintFor('toString')).toBeUndefined();
  });

  it("codex's says CODEX_API_KEY (what `codex exec` reads), not OPENAI_API_KEY", () => {
    expect(PROVIDERS.codex?.installHint).toMatch(/CODEX_API_KEY/);
    expect(PROVIDERS.codex?.installHint).not.toMatch(/OPENAI_API_KEY/);
  });

  it('a missing CLI ends its message with that hint; a command named like a known CLI gets its hint too', async () => {
    const missing = await prepare(settings('codex', { env: { ...KEYS, PATH: dir } }));
    expect(missing).toEqual({ ok: false, error: `provider: the codex CLI ("codex") was not found on PATH; ${PROVIDERS.codex?.installHint}` });
    const command = await prepare(settings('command', { command: 'gemini', env: { PATH: dir } }));
    expect(command).toEqual({ ok: false, error: `provider.command: "gemini" was not found on PATH; ${PROVIDERS.gemini?.installHint}` });
    const other = await prepare(settings('command', { command: 'my-agent', env: { PATH: dir } }));
    expect(other).toEqual({ ok: false, error: 'provider.command: "my-agent" was not found on PATH; install it, or give its path (relative to the spec file)' });
  });
});

describe('close()', () => {
  it.each(AVAILABLE_PROVIDERS)('%s: close() resolves, and a second call is harmless', async (kind) => {
    writeFileSync(join(dir, 'script.toml'), '[[steps]]\nsay = "hi"\n');
    const s = settings(kind, kind === 'script' ? { script: 'script.toml' } : kind === 'command' ? { command: 'true' } : {});
    const prepared = await prepare(s);
    if (!prepared.ok) throw new Error(prepared.error);
    const provider = createProvider(s, prepared.value, { prices: {} });
    expect(provider.kind).toBe(kind);
    await expect(provider.close()).resolves.toBeUndefined();
    await expect(provider.close()).resolves.toBeUndefined();
  });
});
