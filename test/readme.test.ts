/**
 * The README is the first test of the product: its spec reference is generated from the
 * schema (the single source of truth) and must be current, and its quick start must stay
 * two commands. test/spec/generated.test.ts checks the generated documents in more detail.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/engine/exit-codes.js';
import { referenceRegionOf, specReferenceMarkdown } from '../src/spec/reference.js';
import { PROJECT_ROOT } from './helpers/cli.js';

const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('has the spec reference generated from the schema, current (else: npm run gen:spec)', () => {
    expect(referenceRegionOf(readme)).toBe(specReferenceMarkdown());
  });

  it('lists exactly the exit codes bestof uses', () => {
    const section = readme.slice(readme.indexOf('### Exit codes'), readme.indexOf('## How a run works'));
    const listed = [...section.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
    expect(listed).toEqual([...new Set(Object.values(EXIT_CODES))].sort((a, b) => a - b));
  });

  it('has a quick start of exactly two commands: install and demo, then the tests', () => {
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Using it'));
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? '';
    expect(block.trim().split('\n')).toEqual(['npm install && npx bestof run configs/demo.toml', 'npm test']);
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toContain('\nnpm test\n');
  });
});
