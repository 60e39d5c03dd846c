/**
 * The documents generated from the schema stay current, and the JSON Schema says what the
 * loader says: every spec in configs/ fits it, an unknown key anywhere does not. When a test
 * here fails after a schema change, run `npm run gen:spec` and commit what it writes.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { describe, expect, it } from 'vitest';
import {
  JSON_SCHEMA_PATH,
  referenceRegionOf,
  SPEC_REFERENCE_PATH,
  specJsonSchema,
  specJsonSchemaText,
  specReferenceMarkdown,
} from '../../src/spec/reference.js';
import { listSpecKeys } from '../../src/spec/schema-walk.js';
import { starterSpec } from '../../src/spec/starter.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { validateJsonSchema } from './json-schema-subset.js';

const REGENERATE = 'out of date: run `npm run gen:spec` and commit the result';

/** The specs in configs/ (the same set test/spec/configs.test.ts loads). */
function configSpecs(): string[] {
  return ['configs', 'configs/examples'].flatMap((folder) => {
    const dir = join(PROJECT_ROOT, folder);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .filter((name) => name.endsWith('.toml') && name !== 'prices.toml')
      .map((name) => join(folder, name));
  });
}

describe('generated from the schema', () => {
  it(`${SPEC_REFERENCE_PATH}: the spec reference region is current`, () => {
    const page = readFileSync(join(PROJECT_ROOT, SPEC_REFERENCE_PATH), 'utf8');
    expect(referenceRegionOf(page), `${SPEC_REFERENCE_PATH} spec reference ${REGENERATE}`).toBe(specReferenceMarkdown());
  });

  it(`${JSON_SCHEMA_PATH} is current`, () => {
    const committed = readFileSync(join(PROJECT_ROOT, JSON_SCHEMA_PATH), 'utf8');
    expect(committed, `${JSON_SCHEMA_PATH} ${REGENERATE}`).toBe(specJsonSchemaText());
  });

  it('every key has a description, and the reference lists it', () => {
    const reference = specReferenceMarkdown();
    const keys = listSpecKeys();
    expect(keys.length).toBeGreaterThan(80);
    expect(keys.filter((key) => !key.meta.description).map((key) => key.name)).toEqual([]);
    // Agent keys are listed once, by their own name, for [provider] and [[parallel.providers]].
    // Top-level tables are the sections' headings.
    const shownAs = (name: string): string => `\`${name.replace(/^(provider|parallel\.providers\[\])\./, '')}\``;
    const listed = (name: string): boolean => reference.includes(shownAs(name)) || new RegExp(`^### \`\\[{1,2}${name}[\\].]`, 'm').test(reference);
    expect(keys.filter((key) => !listed(key.name)).map((key) => key.name)).toEqual([]);
  });

  it('the file rules come from the schema', () => {
    const marked = listSpecKeys().flatMap((key) => (key.meta.pathRule ? [`${key.name}: ${key.meta.pathRule}`] : []));
    expect(marked).toEqual([
      'prompt.file: existing-file',
      'prompt.retry_prompt_file: existing-file',
      'prompt.output_file: inside-repo',
      'provider.script: existing-file',
      'parallel.providers[].script: existing-file',
      'prompts[].file: existing-file',
      'checks.frozen: repo-pathspec',
      'checks.protected: repo-pathspec',
      'checks.items[].expect: existing-file',
      'checks.items[].hidden: existing-folder',
      'checks.items[].into: inside-repo',
      'checks.editable: repo-pathspec',
      'review.script: existing-file',
      'review.prompt_file: existing-file',
      'vote.voters[].script: existing-file',
      'vote.output_file: inside-repo',
      'select.distinguish.provider.script: existing-file',
      'setup.copy: inside-repo',
      'setup.link: inside-repo',
      'sandbox.hide: existing-folder',
    ]);
  });
});

describe(`${JSON_SCHEMA_PATH}`, () => {
  const schema = specJsonSchema();
  const specs = configSpecs();

  it('finds the example specs', () => {
    expect(specs).toContain(join('configs', 'demo.toml'));
  });

  it.each(specs)('accepts %s', (file) => {
    expect(validateJsonSchema(schema, parse(readFileSync(join(PROJECT_ROOT, file), 'utf8')))).toEqual([]);
  });

  it.each(['10MB', '500 KB', '1.5g', 'off', 2048])('accepts git.max_file_size = %j', (size) => {
    expect(validateJsonSchema(schema, { prompt: { text: 'x' }, git: { max_file_size: size } })).toEqual([]);
  });

  it('accepts the starter spec of `bestof init`', () => {
    expect(validateJsonSchema(schema, parse(starterSpec({ name: 'x' })))).toEqual([]);
  });

  it.each([
    ['a top-level typo', { nmae: 'x', prompt: { text: 'x' } }, '$.nmae: unknown key'],
    ['a typo in a table', { prompt: { text: 'x' }, loop: { max_iteration: 2 } }, '$.loop.max_iteration: unknown key'],
    [
      'a typo in a list entry',
      { prompt: { text: 'x' }, checks: { items: [{ name: 'a', command: 'b', tmieout: '5m' }] } },
      '$.checks.items[0].tmieout: unknown key',
    ],
    ['an unknown provider kind table', { prompt: { text: 'x' }, providers: { cluade: {} } }, '$.providers.cluade: unknown key'],
    ['a bad duration', { prompt: { text: 'x' }, provider: { timeout: '10 minutes' } }, '$.provider.timeout: matches none of the allowed forms'],
    ['a bad size', { prompt: { text: 'x' }, git: { max_file_size: '10 megs' } }, '$.git.max_file_size: matches none of the allowed forms'],
    ['a size of 0', { prompt: { text: 'x' }, git: { max_file_size: 0 } }, '$.git.max_file_size: matches none of the allowed forms'],
    ['a wrong type', { prompt: { text: 'x' }, loop: { max_iterations: '3' } }, '$.loop.max_iterations: expected integer, got "3"'],
    ['no task table', { name: 'x' }, '$.prompt: required'],
  ])('rejects %s', (_title, spec, problem) => {
    expect(validateJsonSchema(schema, spec)).toContain(problem);
  });
});
