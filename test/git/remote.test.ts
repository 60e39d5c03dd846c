import { execFileSync } from 'node:child_process';
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { pushBranch } from '../../src/git/history/remote.js';
import { makeTempDir, tempRepos } from '../helpers/temp-repo.js';

const { repo, onCleanup } = tempRepos();
/** A bare repository to push to. */
function bareRemote(): string {
  const dir = realpathSync(makeTempDir());
  onCleanup(() => rmSync(dir, { recursive: true, force: true }));
  const bare = join(dir, 'origin.git');
  execFileSync('git', ['init', '--quiet', '--bare', bare], { stdio: 'ignore' });
  return bare;
}

describe('pushBranch', () => {
  it('pushes the branch to origin and tracks it, even with a ref of the same short name', async () => {
    const r = repo();
    const bare = bareRemote();
    r.git('remote', 'add', 'origin', bare);
    r.git('branch', 'bestof/run-1/a');
    r.git('update-ref', 'refs/bestof/run-1/a', 'HEAD');
    expect(await pushBranch(r.dir, 'bestof/run-1/a')).toEqual({ ok: true, value: undefined });
    const head = r.git('rev-parse', 'HEAD');
    expect(execFileSync('git', ['rev-parse', 'refs/heads/bestof/run-1/a'], { cwd: bare, encoding: 'utf8' }).trim()).toBe(head);
    expect(r.git('rev-parse', '--abbrev-ref', 'bestof/run-1/a@{upstream}')).toBe('origin/bestof/run-1/a');
  });

  it('says which branch could not be pushed, and why', async () => {
    const r = repo();
    r.git('branch', 'bestof/run-1/a');
    const pushed = await pushBranch(r.dir, 'bestof/run-1/a');
    expect(pushed.ok).toBe(false);
    expect(!pushed.ok && pushed.error).toMatch(/^git push of bestof\/run-1\/a to origin failed: .*origin/);
  });

  it('rejects with an AbortError when aborted', async () => {
    const r = repo();
    r.git('remote', 'add', 'origin', bareRemote());
    r.git('branch', 'b');
    const controller = new AbortController();
    controller.abort();
    await expect(pushBranch(r.dir, 'b', { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
  });
});
