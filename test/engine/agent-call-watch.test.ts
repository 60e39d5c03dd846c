/**
 * The watch around an agent call, counted in git processes: each one is a spawn (about 10 ms of
 * bestof's own main thread on a loaded machine) and a git start-up, paid by every candidate at
 * every iteration.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchAgentCall } from '../../src/engine/agent-call.js';
import type { LoopContext } from '../../src/engine/iteration.js';
import { branchTips } from '../../src/git/commit.js';
import { addWorktree } from '../../src/git/worktree.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

function watchContext(worktree: string): Pick<LoopContext, 'candidate' | 'emit'> {
  return { candidate: { id: 'c1', worktree } as LoopContext['candidate'], emit: () => undefined };
}

describe('watchAgentCall', () => {
  it('reads the replace refs and the branches in one for-each-ref, and the git dirs once per worktree', async () => {
    const r = repo({ 'README.md': '# r\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.git('branch', 'feature');
    const wt = join(tempDir(), 'run', 'c1');
    expect((await addWorktree(r.dir, { path: wt, branch: 'bestof/t/c1', base })).ok).toBe(true);
    const ctx = watchContext(wt);

    const calls: string[][] = [];
    for (let i = 0; i < 2; i++) {
      const around = await recordGitCalls(tempDir(), async () => {
        const watch = await watchAgentCall(ctx);
        return { branchesBefore: watch.branchesBefore, tampered: await watch.restore(i + 1) };
      });
      expect(around.result.branchesBefore).toEqual(await branchTips(wt));
      expect([...around.result.branchesBefore.keys()].sort()).toEqual(['refs/heads/bestof/t/c1', 'refs/heads/feature', 'refs/heads/main']);
      expect(around.result.tampered).toEqual([]);
      calls.push(around.calls);
    }
    const bare = (call: string): string => call.replace(/^(-c \S+ )+/, '');
    // The first watch may ask where the git dirs are (once per worktree); the second never does.
    expect(calls[1]?.map(bare)).toEqual(['for-each-ref --format=%(refname) %(objectname) refs/replace/ refs/heads/', 'for-each-ref --format=%(refname) %(objectname) refs/replace/']);
    expect(calls[0]?.filter((c) => c.includes('for-each-ref')).map(bare)).toEqual(calls[1]?.map(bare));
  });
});
