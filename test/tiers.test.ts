/**
 * The table of tiers (test/tiers.ts) against what runs them: package.json's scripts, the scripts
 * they call, `.ci/run`, and the folders. A tier added, renamed or dropped in one place only fails
 * here.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { filesUnder } from './helpers/files.js';
import { TIERS } from './tiers.js';

// Not helpers/cli.ts's: this file needs no build.
const PROJECT_ROOT = fileURLToPath(new URL('..', import.meta.url));

const scripts = (JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;

/** The text that picks the tier's project: the npm script's, or that of the node script it runs. */
function commandOf(script: string): string {
  const line = scripts[script] ?? '';
  const file = /\bnode (scripts\/\S+\.mjs)/.exec(line)?.[1];
  return file === undefined ? line : `${line}\n${readFileSync(join(PROJECT_ROOT, file), 'utf8')}`;
}

describe('the tiers of test/tiers.ts', () => {
  it.each(TIERS.map((tier) => [tier.script, tier] as const))('%s runs its vitest project', (script, tier) => {
    expect(scripts[script], `package.json has no script ${script}`).toBeDefined();
    const picked = [...commandOf(script).matchAll(/--project['",\s=]+([\w-]+)/g)].map((match) => match[1]);
    expect(picked).toEqual([tier.project]);
  });

  it(".ci/run runs every tier, in the table's order, and nothing else of vitest", () => {
    const ci = readFileSync(join(PROJECT_ROOT, '.ci/run'), 'utf8');
    const run = [...ci.matchAll(/^npm (?:run )?(test(?::[\w-]+)?)\s*$/gm)].map((match) => match[1]);
    expect(run).toEqual(TIERS.map((tier) => tier.script));
    expect(ci).not.toMatch(/vitest/);
  });

  it('each folder of a tier holds test files, and vitest.config.ts is the only vitest config', () => {
    for (const tier of TIERS) {
      if (tier.folder === undefined) continue;
      expect(existsSync(join(PROJECT_ROOT, tier.folder)), tier.folder).toBe(true);
      expect(
        filesUnder(join(PROJECT_ROOT, tier.folder)).filter((file) => /\.test\.tsx?$/.test(file)),
        tier.folder,
      ).not.toEqual([]);
    }
    expect(readdirSync(PROJECT_ROOT).filter((name) => /^vitest\b.*\.config\./.test(name))).toEqual(['vitest.config.ts']);
  });
});
