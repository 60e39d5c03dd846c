/**
 * The watch around an agent call, counted in git processes: each one is a spawn (about 10 ms of
 * bestof's own main thread on a loaded machine) and a git start-up, paid by every candidate at
 * every iteration.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { watchAgentCall } from '../../src/engine/loop/agent-call.js';
import type { LoopContext } from '../../src/engine/loop/loop-context.js';
import { branchTips } from '../../src/git/history/commit.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

function watchContext(worktree: string): Pick<LoopContext, 'candidate' | 'emit'> {
  return { candidate: { id: 'c1', worktree } as LoopContext['candidate'], emit: () => undefined };
}

describe('watchAgentCall', () => {
  it('reads the replace refs and the branches in one for-each-ref before the call and one after it, and never the git dirs of a worktree bestof made', async () => {
    const r = repo({ 'README.md': '# r\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.git('branch', 'feature');
    const wt = join(tempDir(), 'run', 'c1');
    expect((await addWorktree(r.dir, { path: wt, branch: 'bestof/t/c1', base })).ok).toBe(true);
    const ctx = watchContext(wt);

    const bare = (call: string): string => call.replace(/^(-c \S+ )+/, '');
    const bothRefs = 'for-each-ref --format=%(refname) %(objectname) refs/replace/ refs/heads/';
    for (let i = 0; i < 2; i++) {
      const watching = await recordGitCalls(tempDir(), () => watchAgentCall(ctx));
      const watch = watching.result;
      expect(watch.branchesBefore).toEqual(await branchTips(wt));
      expect([...watch.branchesBefore.keys()].sort()).toEqual(
        ['refs/heads/bestof/t/c1', 'refs/heads/feature', 'refs/heads/main', ...(i === 1 ? ['refs/heads/agent-0'] : [])].sort(),
      );
      // What an agent does during its call: a branch of its own (the commit step adopts such a one).
      r.git('-C', wt, 'branch', `agent-${i}`);
      const restoring = await recordGitCalls(tempDir(), () => watch.restore(i + 1));
      expect(restoring.result.tampered).toEqual([]);
      // After the call: the branches as the agent left them, its new one included.
      expect(restoring.result.branchesAfter).toEqual(await branchTips(wt));
      expect(restoring.result.branchesAfter.get(`refs/heads/agent-${i}`)).toBe(base);
      expect(restoring.calls.map(bare)).toEqual([bothRefs]);
      // The git dirs are known since the worktree was made: never asked.
      expect(watching.calls.map(bare)).toEqual([bothRefs]);
    }
  });
});
