/**
 * The lazily loaded provider table (src/providers/definitions.ts), in a module state of its own
 * (this file imports neither ./registry.ts nor a provider, so nothing is loaded before a test asks).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createProvider, prepareAgent } from '../../src/providers/definitions.js';
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
