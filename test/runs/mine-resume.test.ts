/**
 * A mining killed with kill -9 goes on where it was: the commits its journal holds are not
 * validated again, and the folder it writes at the end is the one an uninterrupted mining writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { minedHistory } from '../helpers/mined-history.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const journalLines = (out: string): Array<{ sha?: string; outcome?: string; validationMs?: number }> => {
  try {
    return readFileSync(join(out, '.mine', 'journal.jsonl'), 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .flatMap((l) => {
        try {
          return [JSON.parse(l)];
        } catch {
          return [];
        }
      });
  } catch {
    return [];
  }
};

it('killed with kill -9 after some verdicts, it validates none of them again when run again, and ends as a whole mining does', async () => {
  // Each test run sleeps a second first: the kill lands while commits are still being validated.
  const { repo, commits } = minedHistory({ slowCheck: 1 });
  cleanups.push(() => repo.cleanup());
  const out = join(makeTempDir('bestof-mined-'), 'bench');

  const first = startCli(['bench', 'mine', '--out', out, '--jobs', '1'], { cwd: repo.dir });
  await waitUntil(() => journalLines(out).some((l) => (l.validationMs ?? 0) > 0), 'a validated commit in the journal', { attempts: 600 });
  first.child.kill('SIGKILL');
  await first.done;
  const before = journalLines(out).filter((l) => l.sha !== undefined);
  expect(before.length).toBeLessThan(7);

  const second = await runCli(['bench', 'mine', '--out', out, '--jobs', '1'], { cwd: repo.dir });
  expect(second.code, second.stderr).toBe(0);
  for (const verdict of before) expect(second.stderr).toContain(`(journal) ${verdict.outcome === 'kept' ? 'kept' : `rejected ${verdict.sha?.slice(0, 10)}`}`);
  const after = journalLines(out).filter((l) => l.sha !== undefined);
  // Every commit once: none of the first run's verdicts was made again.
  expect(after.map((l) => l.sha).sort()).toEqual([...new Set(after.map((l) => l.sha))].sort());
  expect(after).toHaveLength(7);
  const mined = JSON.parse(readFileSync(join(out, 'mined.json'), 'utf8')) as { kept: Array<{ sha: string }>; rejected: unknown[] };
  expect(mined.kept.map((k) => k.sha)).toEqual([commits.fix]);
  expect(mined.rejected).toHaveLength(6);
});
