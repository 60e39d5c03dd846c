/** The selection's check that a candidate's kept ref and branch still point at its scored commit, in git processes. */
import { describe, expect, it } from 'vitest';
import type { UnstampedEvent } from '../../src/engine/events.js';
import type { RunContext } from '../../src/engine/run-context.js';
import { verifyRefs } from '../../src/engine/run-phases/selection.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

function refsContext(repoRoot: string): { ctx: Pick<RunContext, 'plan' | 'emit'>; events: UnstampedEvent[] } {
  const events: UnstampedEvent[] = [];
  return { ctx: { plan: { repoRoot } as RunContext['plan'], emit: (event) => events.push(event) }, events };
}

const subcommands = (calls: readonly string[]): string[] => calls.map((c) => c.replace(/^(-c \S+ )+/, '').split(' ')[0] ?? '');

describe('verifyRefs', () => {
  it('refs at the scored commit: one rev-parse for both, and no cat-file to ask whether the commit exists', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    r.git('checkout', '--quiet', '-b', 'bestof/r1/c1');
    r.write('b.txt', 'b\n');
    const scored = r.commitAll('bestof: c1 iteration 1, score 1');
    r.git('checkout', '--quiet', 'main');
    r.git('update-ref', 'refs/bestof/r1/c1/kept', scored);
    const { ctx, events } = refsContext(r.dir);
    const { result, calls } = await recordGitCalls(tempDir(), () => verifyRefs(ctx, { id: 'c1', ref: 'refs/bestof/r1/c1/kept', branch: 'bestof/r1/c1' }, scored));
    expect(result).toBeUndefined();
    expect(events).toEqual([]);
    expect(subcommands(calls)).toEqual(['rev-parse']);
  });

  it('a scored commit that is gone: it cannot win, and the warning says so', async () => {
    const r = repo({ 'a.txt': 'a\n' });
    const gone = 'f'.repeat(40);
    const { ctx, events } = refsContext(r.dir);
    const { result, calls } = await recordGitCalls(tempDir(), () => verifyRefs(ctx, { id: 'c1', ref: 'refs/bestof/r1/c1/kept', branch: 'bestof/r1/c1' }, gone));
    expect(result).toBe('its scored commit ffffffffff is gone from the repository');
    expect(events).toEqual([{ type: 'run.warning', candidate: 'c1', message: 'its scored commit ffffffffff is gone from the repository: it cannot win' }]);
    expect(subcommands(calls)).toContain('cat-file');
  });
});
