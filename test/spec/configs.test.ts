/**
 * Every example spec shipped in configs/ must load: a spec the README points people to
 * that fails validation is a broken front door. Files are found when the test runs, so
 * new configs are covered without touching this test.
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { formatSpecProblems } from '../../src/spec/errors.js';
import { loadSpec } from '../../src/spec/load.js';
import { writeSpec } from './helpers.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SPEC_FOLDERS = ['configs', 'configs/examples'];
/** Data files that live beside the specs but are not specs (the providers' price table). */
const NOT_SPECS = new Set(['prices.toml']);

/** `*.toml` files directly in each folder (sub-folders hold prompts and scripted steps, not specs). */
function exampleSpecs(root: string): string[] {
  return SPEC_FOLDERS.flatMap((folder) => {
    const dir = join(root, folder);
    if (!existsSync(dir)) return [];
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.toml') && !NOT_SPECS.has(entry.name))
      .map((entry) => relative(root, join(dir, entry.name)))
      .sort();
  });
}

/** The failure message names the file and every problem in it. */
async function problemsIn(root: string, file: string): Promise<string | undefined> {
  const result = await loadSpec(join(root, file));
  return result.ok ? undefined : formatSpecProblems(result.error.map((problem) => ({ ...problem, file })));
}

const specs = exampleSpecs(repoRoot);

describe('example specs in configs/', () => {
  if (specs.length === 0) it.skip('no example specs in configs/ yet', () => {});

  it.each(specs)('%s loads without problems', async (file) => {
    expect(await problemsIn(repoRoot, file)).toBeUndefined();
  });

  it('finds specs in both folders and reports an invalid one', async () => {
    const { dir } = writeSpec('', {
      'configs/good.toml': '[prompt]\ntext = "x"\n',
      'configs/examples/bad.toml': '[prompt]\ntext = "x"\n[loop]\nmax_iterations = 0\n',
      'configs/demo/steps.toml': 'not a spec',
    });
    expect(exampleSpecs(dir)).toEqual([join('configs', 'good.toml'), join('configs', 'examples', 'bad.toml')]);
    expect(await problemsIn(dir, join('configs', 'good.toml'))).toBeUndefined();
    expect(await problemsIn(dir, join('configs', 'examples', 'bad.toml'))).toContain(
      'configs/examples/bad.toml:4:18: loop.max_iterations: expected a whole number of at least 1, got 0',
    );
  });
});
