/**
 * The README is the first test of the product: its spec reference must list every key of
 * the schema (the single source of truth), and its quick start must stay two commands.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { specSchema } from '../src/spec/schema.js';
import { PROJECT_ROOT } from './helpers/cli.js';

interface ZodLike {
  _zod: { def: { type: string; shape?: Record<string, ZodLike>; innerType?: ZodLike; in?: ZodLike; element?: ZodLike; valueType?: ZodLike } };
}

/** Every key path of the schema: `loop.max_iterations`, `checks.items[].name`, `providers.<kind>.max_concurrency`. */
function schemaKeys(schema: ZodLike, prefix = ''): string[] {
  const def = schema._zod.def;
  switch (def.type) {
    case 'object':
      return Object.entries(def.shape ?? {}).flatMap(([key, value]) => {
        const path = prefix ? `${prefix}.${key}` : key;
        return [path, ...schemaKeys(value, path)];
      });
    case 'optional':
    case 'default':
    case 'prefault':
    case 'nullable':
    case 'readonly':
      return schemaKeys(def.innerType as ZodLike, prefix);
    case 'pipe':
      return schemaKeys(def.in as ZodLike, prefix);
    case 'array':
      return schemaKeys(def.element as ZodLike, `${prefix}[]`);
    case 'record':
      return schemaKeys(def.valueType as ZodLike, `${prefix}.<kind>`);
    default:
      return [];
  }
}

const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8');
const reference = readme.slice(readme.indexOf('## The spec'), readme.indexOf('### Script files'));

describe('README', () => {
  const keys = schemaKeys(specSchema as unknown as ZodLike);

  it('walks the whole schema', () => {
    expect(keys).toContain('checks.items[].from_iteration');
    expect(keys).toContain('providers.<kind>.max_concurrency');
    expect(keys.length).toBeGreaterThan(80);
  });

  it('documents every key of the spec schema in its reference', () => {
    // Agent settings are listed once, by their own name, for [provider] and [[parallel.providers]].
    const agentKey = /^(provider|parallel\.providers\[\])\.(\w+)$/;
    const missing = keys.filter((key) => {
      const agent = agentKey.exec(key);
      const documented = agent ? `\`${agent[2]}\`` : `\`${key}\``;
      const asSectionKey = `\`${key.split('.').slice(1).join('.')}\``;
      return !reference.includes(documented) && !(key.startsWith('prompt.') && reference.includes(asSectionKey)) && !['prompt', 'loop', 'budget', 'breaker', 'provider', 'providers', 'parallel', 'prompts', 'checks', 'checks.items', 'review', 'vote', 'select', 'setup', 'git', 'shannon', 'bench', 'providers.<kind>.prices.<kind>.input', 'providers.<kind>.prices.<kind>.output', 'providers.<kind>.prices.<kind>.cache_read', 'providers.<kind>.prices.<kind>.cache_write', 'vote.voters[].kind', 'vote.voters[].model'].includes(key);
    });
    expect(missing).toEqual([]);
  });

  it('has a quick start of exactly two commands: install and demo, then the tests', () => {
    const quickStart = readme.slice(readme.indexOf('## Quick start'), readme.indexOf('## Using it'));
    const block = /```sh\n([\s\S]*?)```/.exec(quickStart)?.[1] ?? '';
    expect(block.trim().split('\n')).toEqual(['npm install && npx bestof run configs/demo.toml', 'npm test']);
    const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8');
    expect(ci).toContain('\nnpm test\n');
  });
});
