/**
 * The spec's list of provider kinds (src/spec/provider-kinds.ts) is generated from the provider
 * table (src/providers/table.ts), which the spec layer may not import: adding a provider is its
 * file and its row, then `npm run gen:spec`. The committed list is what the table says, and a row
 * added to the table's text is a kind of the list, with what the spec checks of it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { KINDS_PATH, kindsFromTable, kindsModule, TABLE_PATH } from '../../scripts/lib/provider-kinds.mjs';
import { PROVIDER_KINDS } from '../../src/spec/schema-parts.js';
import { AVAILABLE_PROVIDERS } from '../../src/providers/definitions.js';
import { PROJECT_ROOT } from '../helpers/cli.js';

const table = readFileSync(join(PROJECT_ROOT, TABLE_PATH), 'utf8');

describe('the spec kinds generated from the provider table', () => {
  it(`${KINDS_PATH} is current (else: npm run gen:spec, and commit it)`, () => {
    expect(readFileSync(join(PROJECT_ROOT, KINDS_PATH), 'utf8')).toBe(kindsModule(kindsFromTable(table)));
  });

  it("lists the table's kinds in its order, with each row's spec field", () => {
    expect(PROVIDER_KINDS).toEqual(kindsFromTable(table).map((row) => row.kind));
    expect(PROVIDER_KINDS).toEqual(AVAILABLE_PROVIDERS);
    expect(kindsFromTable(table).find((row) => row.kind === 'command')?.spec).toEqual({ needs: { key: 'command', example: 'path/to/agent' } });
  });

  it('a row added to the table is a kind of the spec once generated: the one line of a new provider', () => {
    const row = "  fake: { load: async () => (await import('./fake.js')).fakeDefinition, spec: { needs: { key: 'command', example: 'path/to/fake' } } },\n";
    const added = table.replace(/(\nexport const PROVIDER_TABLE[^\n]*\n)/, `$1${row}`);
    expect(added).not.toBe(table);
    const rows = kindsFromTable(added);
    expect(rows[0]).toEqual({ kind: 'fake', spec: { needs: { key: 'command', example: 'path/to/fake' } } });
    expect(kindsModule(rows)).toContain("  fake: { needs: { key: 'command', example: 'path/to/fake' } },\n");
  });

  it('refuses a spec field it cannot carry as a literal, rather than guess', () => {
    const computed = table.replace("spec: { note: 'interactive Claude Code in tmux' }", 'spec: { note: NOTE }');
    expect(computed).not.toBe(table);
    expect(() => kindsFromTable(computed)).toThrow(/string literals/);
  });
});
