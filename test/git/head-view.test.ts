/** One git process for a worktree's top level, HEAD and branch tips, with the answers of the separate calls it replaces. */
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readHeadView } from '../../src/git/history/head-view.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** What the separate calls say: `rev-parse --show-toplevel`, `symbolic-ref --quiet HEAD`, `rev-parse --verify HEAD^{commit}`. */
function separately(r: ReturnType<typeof repo>, cwd = r.dir): { topLevel: string; headRef: string | undefined; head: string } {
  const headRef = (() => {
    try {
      return r.git('-C', cwd, 'symbolic-ref', '--quiet', 'HEAD');
    } catch {
      return undefined;
    }
  })();
  return { topLevel: r.git('-C', cwd, 'rev-parse', '--show-toplevel'), headRef, head: r.git('-C', cwd, 'rev-parse', '--verify', 'HEAD^{commit}') };
}

describe('readHeadView', () => {
  it('on a branch, from a subfolder: the same answers as the separate calls, in one git process', async () => {
    const r = repo({ 'src/a.txt': 'a\n' });
    r.git('branch', 'bestof/r1/c1');
    const { result, calls } = await recordGitCalls(tempDir(), () => readHeadView(join(r.dir, 'src'), ['refs/heads/bestof/r1/c1', 'refs/heads/main']));
    expect(calls).toHaveLength(1);
    const head = r.git('rev-parse', 'HEAD');
    expect(result).toEqual({
      ...separately(r, join(r.dir, 'src')),
      tips: new Map([
        ['refs/heads/bestof/r1/c1', head],
        ['refs/heads/main', head],
      ]),
    });
    expect(result?.headRef).toBe('refs/heads/main');
    expect(result?.topLevel).toBe(realpathSync(r.dir));
  });

  it('detached: no ref, HEAD at its commit', async () => {
    const r = repo();
    r.write('b.txt', 'b\n');
    const second = r.commitAll('second');
    r.git('checkout', '--quiet', '--detach', 'HEAD~1');
    const view = await readHeadView(r.dir);
    expect(view).toEqual({ ...separately(r), tips: new Map() });
    expect(view?.headRef).toBeUndefined();
    expect(view?.head).not.toBe(second);
  });

  it('a file named HEAD or like a ref in the folder does not stand in for the revision', async () => {
    const r = repo();
    writeFileSync(join(r.dir, 'HEAD'), 'not a ref\n');
    mkdirSync(join(r.dir, 'refs', 'heads'), { recursive: true });
    writeFileSync(join(r.dir, 'refs', 'heads', 'main'), 'nor this\n');
    expect(await readHeadView(r.dir, ['refs/heads/main'])).toEqual({ ...separately(r), tips: new Map([['refs/heads/main', r.git('rev-parse', 'HEAD')]]) });
  });

  it('a ref HEAD is on with no commit yet, or a missing ref: no view (the callers ask each question on its own)', async () => {
    const r = repo();
    expect(await readHeadView(r.dir, ['refs/heads/nope'])).toBeUndefined();
    r.git('checkout', '--quiet', '--orphan', 'unborn');
    expect(await readHeadView(r.dir)).toBeUndefined();
  });

  it('refuses a name that is not a full ref (it could be read as an option)', async () => {
    const r = repo();
    await expect(readHeadView(r.dir, ['--output=x'])).rejects.toThrow(/full ref names/);
  });
});
