/**
 * The lazily loaded provider table (src/providers/definitions.ts), in a module state of its own
 * (this file loads no provider itself, so nothing is loaded before a test asks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AVAILABLE_PROVIDERS, createProvider, prepareAgent } from '../../src/providers/definitions.js';
import type { ProviderSettings } from '../../src/spec/schema.js';

const dir = mkdtempSync(join(tmpdir(), 'bestof-definitions-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const command: ProviderSettings = { kind: 'command', command: 'true', args: [], env: {}, timeout: 60_000, isolate_config: false };

describe('createProvider', () => {
  it('refuses, as a bug of bestof, a kind that prepareAgent never loaded; creates it once prepared', async () => {
    // What a prepared agent would be, had prepareAgent run: createProvider must not get that far.
    expect(() => createProvider(command, {} as never, undefined)).toThrow('bug: provider "command" was not prepared before it was created');
    const prepared = await prepareAgent(command, { specDir: dir, key: 'provider', scripts: new Map() });
    expect(prepared.ok).toBe(true);
    if (!prepared.ok) return;
    const provider = createProvider(command, prepared.value, undefined);
    expect(provider.kind).toBe('command');
    await provider.close();
  });
});

describe('prepareAgent', () => {
  it('refuses a kind the table does not hold, naming every kind of the table (a spec of another version)', async () => {
    const unknown = { ...command, kind: 'no-such-kind' } as unknown as ProviderSettings;
    const prepared = await prepareAgent(unknown, { specDir: dir, key: 'parallel.providers[1]', scripts: new Map() });
    expect(prepared).toEqual({
      ok: false,
      error: `parallel.providers[1].kind: the "no-such-kind" provider is not available in this version of bestof; use kind = ${AVAILABLE_PROVIDERS.slice(0, -1)
        .map((k) => `"${k}"`)
        .join(', ')} or "${AVAILABLE_PROVIDERS.at(-1)}"`,
    });
    expect(!prepared.ok && prepared.error).toContain('"shannon"');
  });
});
