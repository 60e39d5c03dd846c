/**
 * `cross_tests`: each finalist's own new test files, run on the other finalists (never on its
 * own code) beside the tester's. A finalist that wrote tests wrote down what it thinks the task
 * asks for; a rival that fails them disagrees with it, and the agreement ranking counts that.
 *
 *   which    files its scored commit adds (not changes) whose names test runners collect
 *            (`*.test.*`, `*.spec.*`, `test_*.py`, `*_test.py`), below a folder (a file at the
 *            root cannot be moved without breaking its imports), at most `tests` per finalist,
 *            none larger than the tester's limit, in path order
 *   where    kept in the run folder (`distinguish/cross/<author>/`), laid into each rival's tree at
 *            `bestof-cross/` with the path below its first folder: `test/median.test.mjs` runs as
 *            `bestof-cross/median.test.mjs`, at the same depth, so `../lib/median.mjs` still resolves
 *            (an import of a sibling in its own folder does not)
 */
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { GeneratedTest } from '../../distinguish/types.js';
import { changedPaths } from '../../git/history/diff.js';
import { showFile } from '../../git/running/show.js';
import { removeTree } from '../../owned-tree.js';
import type { RunPlan } from '../plan/plan.js';
import { distinguishDir } from './paths.js';
import { MAX_TEST_BYTES } from './tester.js';

export const CROSS_SUBDIR = 'cross';
/** Where a rival's test files are laid in a finalist's tree, relative to the repo root. */
export const CROSS_FOLDER = 'bestof-cross';

const TEST_NAME = /(^|\/)(test_[^/]*\.py|[^/]*_test\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/;

/** The finalists' own new test files, kept in the run folder; ids `x1`, `x2`… in the finalists' order, then by path. */
export async function crossTests(
  plan: RunPlan,
  finalists: readonly { readonly id: string; readonly commit: string }[],
  perFinalist: number,
  signal: AbortSignal,
): Promise<GeneratedTest[]> {
  const root = join(distinguishDir(plan.runDir), CROSS_SUBDIR);
  await removeTree(root);
  const tests: GeneratedTest[] = [];
  for (const finalist of finalists) {
    const added = (await changedPaths(plan.repoRoot, plan.baseCommit, finalist.commit, [':/'], { signal }))
      .filter((change) => change.status === 'A' && change.path.includes('/') && TEST_NAME.test(change.path))
      .map((change) => change.path)
      .sort()
      .slice(0, perFinalist);
    for (const path of added) {
      const shown = await showFile(plan.repoRoot, finalist.commit, path, { signal });
      if (!shown.ok) continue;
      const bytes = Buffer.from(shown.value);
      if (bytes.length > MAX_TEST_BYTES) continue;
      const file = path.slice(path.indexOf('/') + 1);
      const target = join(root, finalist.id, ...file.split('/'));
      await mkdir(dirname(target), { recursive: true });
      await writeFile(target, bytes);
      tests.push({
        id: `x${tests.length + 1}`,
        file,
        digest: createHash('sha256').update(bytes).digest('hex'),
        bytes: bytes.length,
        author: finalist.id,
        path,
      });
    }
  }
  return tests;
}

/** The folder a test's files are laid from, and where they are laid (relative to the repo root). */
export function testSource(runDir: string, test: GeneratedTest, testsDir: string, folder: string): { readonly hidden: string; readonly into: string } {
  return test.author !== undefined
    ? { hidden: join(distinguishDir(runDir), CROSS_SUBDIR, test.author), into: CROSS_FOLDER }
    : { hidden: testsDir, into: folder };
}
