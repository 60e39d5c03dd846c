/**
 * The checks score the commit, not what escapes it (src/git/guards/escapes.ts): a symbolic link out of
 * the worktree and a nested git repository, left out of bestof's commit, are not on disk while the
 * checks run either (moved aside with the other leftovers), and are back afterwards. Real git, a
 * real worktree, real checks.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../src/git/history/commit.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { scoreCommit, type Scoring } from '../../src/engine/scoring/score.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** The frozen check passes when `add` adds. */
const CHECK = 'node -e \'const add = require("./src/add.js"); process.exit(add(2, 3) === 5 ? 0 : 1)\'';
const BROKEN = 'module.exports = (a, b) => a - b;\n';
const FIXED = 'module.exports = (a, b) => a + b;\n';

async function world(): Promise<{ wt: string; base: string; logs: string }> {
  const r = repo({ 'src/add.js': BROKEN, 'test/check.sh': `#!/bin/sh\n${CHECK}\n`, 'README.md': '# r\n' });
  const base = r.git('rev-parse', 'HEAD');
  const wt = join(tempDir(), 'run', 'c1');
  expect((await addWorktree(r.dir, { path: wt, branch: 'bestof/t/c1', base })).ok).toBe(true);
  return { wt, base, logs: tempDir() };
}

/** The commit step, then the scoring, as the engine runs them right after it (src/engine/loop/commit-step.ts, iteration.ts). */
async function commitAndScore(w: { wt: string; base: string; logs: string }): Promise<{ scoring: Scoring; skipped: string[] }> {
  const committed = await commitAll(w.wt, { message: 'work' });
  const commit = committed.commit ?? execFileSync('git', ['rev-parse', 'HEAD'], { cwd: w.wt, encoding: 'utf8' }).trim();
  const scoring = await scoreCommit({
    worktree: w.wt,
    baseCommit: w.base,
    commit,
    frozen: ['test/**'],
    editable: [],
    checks: [{ name: 'adds', command: 'sh test/check.sh', score: 10, timeout: 30_000, from_iteration: 1, kind: 'score' }],
    keepPaths: [],
    env: { ...process.env },
    logDir: w.logs,
    signal: new AbortController().signal,
    justCommitted: { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit: committed.skipped.length === 0 },
  });
  return { scoring, skipped: committed.skipped.map((file) => `${file.path} ${file.reason}`) };
}

describe('the checks do not read through what escapes the commit', () => {
  it('src/add.js made a link to a fixed file outside the worktree: the check runs the committed (broken) file and fails', async () => {
    const w = await world();
    const outside = join(tempDir(), 'add.js');
    writeFileSync(outside, FIXED);
    rmSync(join(w.wt, 'src/add.js'));
    symlinkSync(outside, join(w.wt, 'src/add.js'));
    const { scoring, skipped } = await commitAndScore(w);
    expect(skipped).toEqual(['src/add.js link_out']);
    expect(scoring.checks[0]?.passed).toBe(false);
    // An edit of a tracked file that the commit left out is undone by the scoring tree's reset, as
    // for a file grown too large (src/git/history/commit.ts, CommitAllResult): the commit's version stays.
    expect(lstatSync(join(w.wt, 'src/add.js')).isFile()).toBe(true);
  });

  it('a new module that is a link out, required by the committed code: not on disk for the check, back after', async () => {
    const w = await world();
    const outside = join(tempDir(), 'impl.js');
    writeFileSync(outside, FIXED);
    symlinkSync(outside, join(w.wt, 'src/impl.js'));
    writeFileSync(join(w.wt, 'src/add.js'), 'module.exports = require("./impl.js");\n');
    const { scoring, skipped } = await commitAndScore(w);
    expect(skipped).toEqual(['src/impl.js link_out']);
    expect(scoring.checks[0]?.passed).toBe(false);
    expect(lstatSync(join(w.wt, 'src/impl.js')).isSymbolicLink()).toBe(true);
  });

  it('the fix committed inside a nested repository (git init lib): not committed, not on disk for the check, back after', async () => {
    const w = await world();
    const lib = join(w.wt, 'lib');
    mkdirSync(lib);
    writeFileSync(join(lib, 'add.js'), FIXED);
    const git = (...args: string[]): string => execFileSync('git', args, { cwd: lib, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    git('init', '--quiet');
    git('add', '-A');
    git('-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', 'commit', '--quiet', '-m', 'fix');
    writeFileSync(join(w.wt, 'src/add.js'), 'module.exports = require("../lib/add.js");\n');
    const { scoring, skipped } = await commitAndScore(w);
    expect(skipped).toEqual(['lib nested_repo']);
    expect(scoring.checks[0]?.passed).toBe(false);
    expect(existsSync(join(lib, '.git'))).toBe(true);
    expect(existsSync(join(lib, 'add.js'))).toBe(true);
  });

  it('a link between two files of the worktree is committed and scored', async () => {
    const w = await world();
    writeFileSync(join(w.wt, 'src/impl.js'), FIXED);
    rmSync(join(w.wt, 'src/add.js'));
    symlinkSync('impl.js', join(w.wt, 'src/add.js'));
    const { scoring, skipped } = await commitAndScore(w);
    expect(skipped).toEqual([]);
    expect(scoring.checks[0]?.passed).toBe(true);
  });
});
