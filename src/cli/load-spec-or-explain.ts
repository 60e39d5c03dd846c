import { relative } from 'node:path';
import { formatSpecProblems } from '../spec/errors.js';
import { loadSpec, type LoadedSpec } from '../spec/load.js';

export const DEFAULT_SPEC = 'bestof.toml';

/** Loads a spec; on problems prints them (file:line:col or dotted key, value, fix) and returns undefined. */
export async function loadSpecOrExplain(path: string | undefined): Promise<LoadedSpec | undefined> {
  const specPath = path ?? DEFAULT_SPEC;
  const loaded = await loadSpec(specPath);
  if (!loaded.ok) {
    process.stderr.write(`${formatSpecProblems(loaded.error)}\n`);
    process.stderr.write(`bestof: ${relative(process.cwd(), specPath) || specPath} is not a valid spec; nothing was run or created.\n`);
    return undefined;
  }
  return loaded.value;
}
