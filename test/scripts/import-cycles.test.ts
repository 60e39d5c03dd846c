/** The import-cycle finder (scripts/lib/import-cycles.mjs) on small graphs (test/architecture.test.ts runs it on src/). */
import { describe, expect, it } from 'vitest';
import { importCycles } from '../../scripts/lib/import-cycles.mjs';

describe('importCycles', () => {
  it('finds each circle once, whatever file it is entered by, and nothing in a tree without one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', ['d.ts', 'outside.ts']],
      ['f.ts', ['f.ts']],
      ['g.ts', ['a.ts']],
    ]);
    expect(importCycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['d.ts', 'e.ts'], ['f.ts']]);
    expect(
      importCycles(
        new Map([
          ['a.ts', ['b.ts']],
          ['b.ts', ['c.ts']],
          ['c.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
