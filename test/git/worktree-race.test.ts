/**
 * Concurrent `git worktree add` calls race inside git ("failed to read .git/worktrees/cN/commondir:
 * Success"): without the worktrees lock, 16 at once lose some in most rounds on a 2-core machine.
 * No candidate may be lost that way, inside one bestof or between two.
 */
import { cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { addWorktree, listWorktrees } from '../../src/git/worktrees/worktree.js';
import { distModule, runNodeScript } from '../helpers/lock-holder.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** Fresh repositories of a small project: copies of one made once (no git process needed to make one). */
function projects(): () => { dir: string } {
  const files: Record<string, string> = {};
  for (let i = 0; i < 40; i++) files[`src/file-${i}.txt`] = `line ${i}\n`;
  const template: TempRepo = repo(files);
  return () => {
    const dir = join(tempDir(), 'repo');
    cpSync(template.dir, dir, { recursive: true });
    return { dir };
  };
}

/** A bestof of its own: adds `count` worktrees at once to the repo, prints one JSON result per worktree. */
const ADDER = `
import { addWorktree } from ${distModule('worktrees/worktree.js')};
const [repo, dir, prefix, count] = process.argv.slice(1);
const results = await Promise.all(Array.from({ length: Number(count) }, (_, i) =>
  addWorktree(repo, { path: dir + '/' + prefix + '-c' + i, branch: 'bestof/' + prefix + '/c' + i, base: 'main' })));
process.stdout.write(JSON.stringify(results));
`;

describe('creating worktrees at the same time', () => {
  it('loses none of 16 created at once, 20 times over', { timeout: 120_000 }, async () => {
    const smallProject = projects();
    for (let round = 0; round < 20; round++) {
      const r = smallProject();
      const dir = tempDir();
      const results = await Promise.all(
        Array.from({ length: 16 }, (_, i) => addWorktree(r.dir, { path: join(dir, `c${i}`), branch: `bestof/run-${round}/c${i}`, base: 'main' })),
      );
      const failed = results.flatMap((result, i) => (result.ok ? [] : [`c${i}: ${result.error}`]));
      expect(failed, `round ${round}`).toEqual([]);
      expect(await listWorktrees(r.dir)).toHaveLength(17);
      for (let i = 0; i < 16; i++) expect(existsSync(join(dir, `c${i}`, 'src', 'file-39.txt')), `round ${round}, c${i}`).toBe(true);
    }
  });

  it('loses none when two bestof processes add worktrees to one repository at once', async () => {
    const smallProject = projects();
    for (let round = 0; round < 3; round++) {
      const r = smallProject();
      const dir = tempDir();
      const runs = ['a', 'b'].map((prefix) => runNodeScript(ADDER, [r.dir, dir, `${prefix}${round}`, '8']));
      const outputs = await Promise.all(runs.map((run) => run.done));
      for (const output of outputs) {
        expect(output.stderr).toBe('');
        const results = JSON.parse(output.stdout) as { ok: boolean; error?: string }[];
        expect(results.filter((result) => !result.ok)).toEqual([]);
      }
      expect(await listWorktrees(r.dir)).toHaveLength(17);
    }
  });
});
