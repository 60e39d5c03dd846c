/**
 * The trust tier's picture of the user's repository (harness.ts userState) sees its index: a flag
 * set on an entry, an entry's blob changed, the stat data rewritten where nothing was merged, and
 * after a merge an index that is not the merged tree. Without it, an adversary that left
 * skip-worktree on the user's test (the user's own `git status` then blind to it) would pass
 * every "the user's repo is unchanged" check of the tier.
 */
import { utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTrustProject, safeGit, userState, userStateDiff, type TrustProject } from './harness.js';

let project: TrustProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

describe("the user's index in the trust picture", () => {
  it('an untouched repository: no difference', () => {
    project = makeTrustProject();
    expect(userStateDiff(userState(project), userState(project))).toEqual([]);
  });

  it('a skip-worktree bit on the test, or an entry pointed at another blob, is a difference', () => {
    project = makeTrustProject();
    const before = userState(project);
    safeGit(project.repo.dir, ['update-index', '--skip-worktree', 'test/add.test.js']);
    expect(userStateDiff(before, userState(project))).toEqual([
      expect.stringMatching(/^\.git\/index: changed \(- H .*test\/add\.test\.js; \+ S .*test\/add\.test\.js\)$/),
    ]);
    safeGit(project.repo.dir, ['update-index', '--no-skip-worktree', 'test/add.test.js']);
    const readme = safeGit(project.repo.dir, ['rev-parse', 'HEAD:README.md']);
    safeGit(project.repo.dir, ['update-index', '--cacheinfo', `100644,${readme},test/add.test.js`]);
    expect(userStateDiff(before, userState(project))[0]).toMatch(/^\.git\/index: changed \(- H .*; \+ H 100644 [0-9a-f]+ 0\ttest\/add\.test\.js\)$/);
  });

  it('the stat data rewritten, the entries the same: a difference where nothing was merged', () => {
    project = makeTrustProject();
    const before = userState(project);
    utimesSync(join(project.repo.dir, 'README.md'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    safeGit(project.repo.dir, ['update-index', '--refresh']);
    expect(userStateDiff(before, userState(project))).toEqual(['.git/index: changed (stat data only)']);
  });

  it('after a merge: the index must be the merged tree, with no flag', () => {
    project = makeTrustProject();
    const before = userState(project);
    project.repo.write('src/add.js', 'module.exports = (a, b) => a + b;\n');
    const main = project.repo.commitAll('the fix');
    const expected = { mainMovedTo: main, checkoutChanged: ['src/add.js'] };
    expect(userStateDiff(before, userState(project), expected)).toEqual([]);
    safeGit(project.repo.dir, ['update-index', '--assume-unchanged', 'src/add.js']);
    expect(userStateDiff(before, userState(project), expected)).toEqual([
      expect.stringMatching(/^\.git\/index: not the merged tree \(- H .*src\/add\.js; \+ h .*src\/add\.js\)$/),
    ]);
  });
});
