/**
 * A value out of a fixed list gets a did-you-mean, as an unknown key does: in the run spec
 * (test/spec/bad-specs.test.ts has a row per list) and in the bench spec, which words its
 * problems the same way.
 */
import { describe, expect, it } from 'vitest';
import { loadBenchSpec } from '../../src/bench/bench-spec.js';
import { writeSpec } from './helpers.js';

describe('did-you-mean for values', () => {
  it("suggests the bench agent's kind", async () => {
    const { specPath } = writeSpec('[[tasks]]\nid = "t"\nspec = "t.toml"\n[[agents]]\nid = "a"\nkind = "cluade"\n');
    const result = await loadBenchSpec(specPath);
    if (result.ok) throw new Error('kind = "cluade" was accepted');
    expect(result.error.map((p) => `${p.line}:${p.column} ${p.key} ${p.message}`)).toEqual([
      '6:8 agents[0].kind expected one of "claude", "codex", "gemini", "shannon", "command", "script", got "cluade" — did you mean "claude"?',
    ]);
  });
});
