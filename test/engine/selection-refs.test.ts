/** The selection's check that a candidate's kept ref and branch still point at its scored commit, in git processes. */
import { describe, expect, it } from 'vitest';
import type { UnstampedEvent } from '../../src/engine/record/events.js';
import type { RunContext } from '../../src/engine/run/run-context.js';
import { foldEvents, type RunState } from '../../src/engine/record/run-state.js';
import type { RunEvent } from '../../src/engine/record/events.js';
import { selection, verifyRefs } from '../../src/engine/run/stages/selection.js';
import { changedPaths } from '../../src/git/history/diff.js';
import { frozenPathspecs, keptAsInBase } from '../../src/checks/frozen.js';
import { finishedRun } from '../ui/scripted-runs.js';
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
    const { result, calls } = await recordGitCalls(tempDir(), () =>
      verifyRefs(ctx, { id: 'c1', ref: 'refs/bestof/r1/c1/kept', branch: 'bestof/r1/c1' }, scored),
    );
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

describe('selection: git processes', () => {
  it("every candidate's kept ref and branch in one rev-parse; the frozen-path diff the scoring already asked is not asked again", async () => {
    const r = repo({ 'src/a.js': 'old\n', 'test/a.test.js': 'test\n' });
    const base = r.git('rev-parse', 'HEAD');
    const commits: Record<string, string> = {};
    for (const id of ['c1', 'c2', 'c3']) {
      r.git('checkout', '--quiet', '-b', `bestof/r1/${id}`, base);
      r.write('src/a.js', `from ${id}\n`);
      commits[id] = r.commitAll(`bestof: ${id} iteration 1, score 1`);
      r.git('update-ref', `refs/bestof/r1/${id}/kept`, commits[id]!);
      // What the scoring tree asked of each commit, in this process (src/checks/frozen.ts findTampering).
      await changedPaths(r.dir, base, commits[id]!, frozenPathspecs(keptAsInBase({ frozen: ['test/**'], protected: [] })));
      await changedPaths(r.dir, base, commits[id]!, [':(top,literal)test']);
    }
    r.git('checkout', '--quiet', 'main');
    const state: RunState = foldEvents(
      finishedRun()
        .filter((e) => e.type !== 'selection.finished' && e.type !== 'merge.finished' && e.type !== 'run.finished')
        .map((e): RunEvent => {
          if (e.type === 'run.started') return { ...e, repo: r.dir, baseCommit: base };
          const commit = 'candidate' in e && e.candidate !== undefined ? commits[e.candidate] : undefined;
          return commit !== undefined && (e.type === 'candidate.committed' || e.type === 'candidate.finished') ? { ...e, commit } : e;
        }),
    );
    const events: UnstampedEvent[] = [];
    const plan = {
      repoRoot: r.dir,
      baseCommit: base,
      maxScore: 100,
      candidates: state.order.map((id) => ({ id, ref: `refs/bestof/r1/${id}/kept`, branch: `bestof/r1/${id}` })),
      spec: {
        select: { min_score: 0, tie_break: ['score'], allow_tampered: false, allow_autorun: true },
        checks: { frozen: ['test/**'], protected: [], editable: [] },
      },
    } as unknown as RunContext['plan'];
    const ctx = { plan, state: () => state, emit: (event: UnstampedEvent) => events.push(event) } as unknown as RunContext;
    const { calls } = await recordGitCalls(tempDir(), () => selection(ctx));
    expect(events.filter((e) => e.type === 'run.warning')).toEqual([]);
    expect(events.find((e) => e.type === 'selection.finished')).toMatchObject({ winner: 'c1' });
    const asked = calls.map((c) => c.replace(/^(-c \S+ )+/, ''));
    // Besides, one diff per candidate for the files that run code in the user's checkout (src/engine/select/autorun-files.ts), which no scoring asks.
    const autorun = asked.filter((c) => c.includes('.envrc'));
    expect(autorun).toHaveLength(3);
    expect(asked.filter((c) => !autorun.includes(c))).toEqual([
      `rev-parse ${['c1', 'c2', 'c3'].flatMap((id) => [`refs/bestof/r1/${id}/kept^{commit}`, `refs/heads/bestof/r1/${id}^{commit}`]).join(' ')} --`,
    ]);
  });
});
