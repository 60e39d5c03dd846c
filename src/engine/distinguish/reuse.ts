/**
 * A resumed distinguish step does not pay twice. When the run was killed during the step (or after
 * it, before the merge), the record holds the tester's files (in the run folder, each with its
 * digest) and every test run that finished; on resume the step starts again with the same seed,
 * and when the finalists, their commits, the tester, the command and the folder are all those of
 * the interrupted step, and every recorded file is still there with its digest, the tester is not
 * called again and the recorded runs are not run again.
 *
 * Without the sandbox every agent could have written the run folder and the record, so nothing
 * is reused (as for the vote: ../vote/reuse.ts).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DistinguishStart, DistinguishState, TesterCall, TestRun } from '../../distinguish/types.js';

export type DistinguishReuse = { readonly call: TesterCall; readonly runs: readonly TestRun[] } | { readonly none: string };

function shape(start: DistinguishStart): string {
  return JSON.stringify([start.seed, start.finalists, start.commits, start.labels, start.tester, start.command, start.folder, start.crossTests ?? false]);
}

/** What `now` may take from `earlier`; `testsDir`: where the kept files are in the run folder. */
export async function reusableStep(
  earlier: DistinguishState | undefined,
  now: DistinguishStart,
  sandboxed: boolean,
  testsDir: string,
): Promise<DistinguishReuse> {
  if (!earlier?.start || !earlier.call) return { none: 'the tester had not answered' };
  if (!sandboxed) return { none: 'without the sandbox an agent could have written the record, so the tester is asked again' };
  if (earlier.call.error !== undefined || earlier.call.tests.length === 0) return { none: 'the tester wrote no test then' };
  if (shape(earlier.start) !== shape(now)) return { none: 'the finalists, their commits or the tester changed since' };
  for (const test of earlier.call.tests) {
    const bytes = await readFile(join(testsDir, ...test.file.split('/'))).catch(() => undefined);
    if (!bytes || createHash('sha256').update(bytes).digest('hex') !== test.digest) return { none: `the recorded test file ${test.file} is gone or changed` };
  }
  const ids = new Set(earlier.call.tests.map((t) => t.id));
  const runs = earlier.runs.filter((r) => ids.has(r.test));
  return { call: earlier.call, runs };
}
