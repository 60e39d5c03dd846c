/**
 * The README is the first test of the product: it stays a page a newcomer reads (under 300
 * lines; the rest is in docs/), its quick start stays two commands, and its exit codes are the
 * ones bestof uses. The spec reference it links to (docs/spec.md) is generated from the schema
 * (the single source of truth) and must be current; test/spec/generated.test.ts checks the
 * generated documents in more detail, test/docs-links.test.ts the links.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../src/engine/exit-codes.js';
import { referenceRegionOf, SPEC_REFERENCE_PATH, specReferenceMarkdown } from '../src/spec/reference.js';
import { PROJECT_ROOT } from './helpers/cli.js';

const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');

describe('README', () => {
  it('is under 300 lines: the manual is in docs/', () => {
    expect(readme.split('\n').length).toBeLessThan(300);
  });

  it('links the spec reference, which is generated from the schema and current (else: npm run gen:spec)', () => {
    expect(readme).toContain(`](${SPEC_REFERENCE_PATH})`);
    const reference = readFileSync(join(PROJECT_ROOT, SPEC_REFERENCE_PATH), 'utf8');
    expect(referenceRegionOf(reference)).toBe(specReferenceMarkdown());
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
