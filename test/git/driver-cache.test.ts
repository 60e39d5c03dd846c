/**
 * bestof keeps its look-up of the repository's filter and diff drivers while the repo's config
 * files are unchanged: a filter an agent adds between two calls (directly, or through a file the
 * config includes) must still be switched off in the next call.
 */
import { existsSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runGit } from '../../src/git/running/exec.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

describe('the driver look-up of every git call', () => {
  it('sees a smudge filter added to .git/config after an earlier call, and never runs it', async () => {
    const r = repo({ 'a.txt': 'a\n', '.gitattributes': '*.txt filter=evil\n' });
    const marker = join(tempDir(), 'ran');
    expect((await runGit(r.dir, ['checkout', '--', 'a.txt'])).code).toBe(0);
    r.git('config', 'filter.evil.smudge', `sh -c 'touch ${marker}; cat'`);
    r.git('config', 'filter.evil.required', 'true');
    writeFileSync(join(r.dir, 'a.txt'), 'changed\n');
    expect((await runGit(r.dir, ['checkout', '--', 'a.txt'])).code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('sees a filter added to a file that the repo config includes, although the config itself did not change', async () => {
    const r = repo({ 'a.txt': 'a\n', '.gitattributes': '*.txt filter=evil\n' });
    const dir = tempDir();
    const included = join(dir, 'included.gitconfig');
    const marker = join(dir, 'ran');
    writeFileSync(included, '');
    r.git('config', 'include.path', included);
    expect((await runGit(r.dir, ['checkout', '--', 'a.txt'])).code).toBe(0);
    writeFileSync(included, `[filter "evil"]\n\tsmudge = sh -c 'touch ${marker}; cat'\n\trequired = true\n`);
    writeFileSync(join(r.dir, 'a.txt'), 'changed\n');
    expect((await runGit(r.dir, ['checkout', '--', 'a.txt'])).code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  it('write-tree of an index git cannot trust by its stat data (racily clean) runs no clean filter', async () => {
    // An entry whose file is as new as the index itself is "racily clean": git hashes the file again,
    // through the clean filter of the attributes, even for `write-tree`. So write-tree is not a
    // command that needs no driver look-up (it once was listed as one, and ran the agent's filter).
    const r = repo({ 'a.txt': 'a\n', '.gitattributes': '*.txt filter=evil\n' });
    const marker = join(tempDir(), 'ran');
    // The index records the file's mtime t, and the index file itself is from that same second.
    const t = new Date(Math.floor(Date.now() / 1000) * 1000 - 5000);
    writeFileSync(join(r.dir, 'a.txt'), 'b\n');
    utimesSync(join(r.dir, 'a.txt'), t, t);
    r.git('add', 'a.txt');
    utimesSync(join(r.dir, '.git', 'index'), t, t);
    r.git('config', 'filter.evil.clean', `sh -c 'touch ${marker}; cat'`);
    r.git('config', 'filter.evil.required', 'true');
    expect((await runGit(r.dir, ['write-tree'])).code).toBe(0);
    expect(existsSync(marker)).toBe(false);
  });

  describe('shared by the folders of one repository', () => {
    afterEach(() => {
      vi.unstubAllEnvs();
    });
    const lookUps = (calls: readonly string[]): number => calls.filter((c) => c.includes('config --show-scope')).length;

    it('a new worktree without a config of its own reuses the main checkout look-up, until the shared config changes', async () => {
      const r = repo({ 'a.txt': 'a\n', '.gitattributes': '*.txt filter=evil\n' });
      expect((await runGit(r.dir, ['status', '--porcelain'])).code).toBe(0);
      const wt = join(tempDir(), 'wt');
      r.git('worktree', 'add', '--quiet', '-b', 'other', wt);
      const first = await recordGitCalls(tempDir(), () => runGit(wt, ['status', '--porcelain']));
      expect(first.result.code).toBe(0);
      expect(lookUps(first.calls)).toBe(0);
      // An agent adds a filter to the shared config: asked again in the worktree, and switched off.
      const marker = join(tempDir(), 'ran');
      r.git('config', 'filter.evil.smudge', `sh -c 'touch ${marker}; cat'`);
      r.git('config', 'filter.evil.required', 'true');
      writeFileSync(join(wt, 'a.txt'), 'changed\n');
      const after = await recordGitCalls(tempDir(), () => runGit(wt, ['checkout', '--', 'a.txt']));
      expect(after.result.code).toBe(0);
      expect(lookUps(after.calls)).toBe(1);
      expect(existsSync(marker)).toBe(false);
    });

    it('is not shared when a config has a conditional include (it can read other files in another folder)', async () => {
      const global = join(tempDir(), 'global.gitconfig');
      writeFileSync(global, `[includeIf "gitdir:${join(tempDir(), 'elsewhere')}/"]\n\tpath = ${join(tempDir(), 'never.gitconfig')}\n`);
      vi.stubEnv('GIT_CONFIG_GLOBAL', global);
      const r = repo({ 'a.txt': 'a\n' });
      expect((await runGit(r.dir, ['status', '--porcelain'])).code).toBe(0);
      const wt = join(tempDir(), 'wt');
      r.git('worktree', 'add', '--quiet', '-b', 'other', wt);
      const first = await recordGitCalls(tempDir(), () => runGit(wt, ['status', '--porcelain']));
      expect(first.result.code).toBe(0);
      expect(lookUps(first.calls)).toBe(1);
    });
  });
});
