import { relative } from 'node:path';
import { formatSpecProblems } from '../spec/errors.js';
import { loadSpec } from '../spec/load.js';
import type { LoadedSpec } from '../engine/plan.js';

export const DEFAULT_SPEC = 'bestof.toml';

/** Loads a spec; on problems prints them (file:line:col or dotted key, value, fix) and returns undefined. */
export async function loadSpecOrExplain(path: string | undefined): Promise<LoadedSpec | undefined> {
  const specPath = path ?? DEFAULT_SPEC;
  const loaded = await loadSpec(specPath);
  if (!loaded.ok) {
    process.stderr.write(`${formatSpecProblems(loaded.problems)}\n`);
    process.stderr.write(`bestof: ${relative(process.cwd(), specPath) || specPath} is not a valid spec; nothing was run or created.\n`);
    return undefined;
  }
  return { spec: loaded.spec, specPath: loaded.specPath, specDir: loaded.specDir, source: loaded.source };
}
