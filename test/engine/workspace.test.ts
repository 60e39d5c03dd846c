/**
 * A candidate's workspace: created, set up, and on resume brought back from whatever state a
 * kill -9 left it in. Each broken state is built for real in a temp repository.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareWorkspace, type WorkspaceOptions } from '../../src/engine/workspace/workspace.js';
import { commitAll } from '../../src/git/history/commit.js';
import { distModule, runNodeScript } from '../helpers/lock-holder.js';
import { type TempRepo, tempRepos } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { WORKSPACE_BRANCH, WORKSPACE_KEPT_REF, workspaceFixture } from '../helpers/workspace-options.js';

const { repo, tempDir } = tempRepos();

interface Setup {
  readonly r: TempRepo;
  readonly base: string;
  readonly worktree: string;
  readonly runDir: string;
  options(overrides?: Partial<WorkspaceOptions>): WorkspaceOptions;
}

/** A repo with an untracked `.env` to copy, and a setup command that leaves a file and counts its runs. */
function project(files: Record<string, string> = { 'README.md': '# hi\n', 'src/a.txt': 'a\n' }): Setup {
  const r = repo(files);
  writeFileSync(join(r.dir, '.env'), 'TOKEN=local\n');
  r.write('.gitignore', '.env\nbuilt/\n');
  const base = r.commitAll('ignore .env');
  const fixture = workspaceFixture(r.dir, base, tempDir());
  const defaults = { copy: ['.env'], commands: [`mkdir -p built && echo ok > built/out.txt && echo run >> ${join(fixture.runDir, 'setup-runs')}`] };
  const options = (overrides: Partial<WorkspaceOptions> = {}): WorkspaceOptions => fixture.options({ ...defaults, ...overrides });
  return { r, base, worktree: fixture.worktree, runDir: fixture.runDir, options };
}

function setupRuns(s: Setup): number {
  return existsSync(join(s.runDir, 'setup-runs')) ? readFileSync(join(s.runDir, 'setup-runs'), 'utf8').trim().split('\n').length : 0;
}

/** A worktree fully set up and ready for an agent. */
function expectReady(s: Setup): void {
  expect(readFileSync(join(s.worktree, '.env'), 'utf8')).toBe('TOKEN=local\n');
  expect(readFileSync(join(s.worktree, 'built', 'out.txt'), 'utf8')).toBe('ok\n');
  expect(s.r.git('-C', s.worktree, 'symbolic-ref', 'HEAD')).toBe(`refs/heads/${WORKSPACE_BRANCH}`);
  expect(s.r.git('-C', s.worktree, 'status', '--porcelain')).toBe('');
  expect(JSON.parse(readFileSync(join(s.runDir, 'setup-paths.json'), 'utf8'))).toEqual(['.env', 'built']);
}

describe('prepareWorkspace, new', () => {
  it('creates the worktree on a new branch, copies, runs the setup commands and marks setup complete', async () => {
    const s = project();
    const made = await prepareWorkspace(s.options());
    expect(made).toEqual({ ok: true, value: { copied: ['.env'], warnings: [], setupPaths: ['.env', 'built'], reused: false } });
    expectReady(s);
    expect(s.r.git('rev-parse', WORKSPACE_BRANCH)).toBe(s.base);
  });

  it("a failing setup command or a bad setup.copy is the spec's failure: not retried, not infrastructure", async () => {
    const s = project();
    const failed = await prepareWorkspace(s.options({ commands: [`echo run >> ${join(s.runDir, 'setup-runs')}; echo broken >&2; exit 3`] }));
    expect(failed).toEqual({ ok: false, error: { message: expect.stringMatching(/setup command .* exited with code 3: .*broken/), infrastructure: false } });
    expect(setupRuns(s)).toBe(1);
    expect(existsSync(join(s.runDir, 'setup-paths.json'))).toBe(false);

    const t = project();
    const badCopy = await prepareWorkspace(t.options({ copy: ['../outside'] }));
    expect(badCopy).toEqual({ ok: false, error: { message: expect.stringMatching(/setup\.copy: "\.\.\/outside" leaves the repo/), infrastructure: false } });
  });

  it('a failure of git is retried, then reported as an infrastructure failure, leaving nothing behind', async () => {
    const s = project();
    writeFileSync(join(s.r.dir, '.git', 'worktrees'), 'in the way\n');
    const failed = await prepareWorkspace(s.options());
    expect(failed).toEqual({
      ok: false,
      error: { message: expect.stringMatching(/cannot create worktree .*c1 on branch bestof\/r1\/c1 .*\(tried 3 times\)/), infrastructure: true },
    });
    expect(existsSync(s.worktree)).toBe(false);
    expect(s.r.git('branch', '--list', WORKSPACE_BRANCH)).toBe('');
    expect(setupRuns(s)).toBe(0);
  });
});

describe('prepareWorkspace, resume from any instant', () => {
  it('killed before the branch was made: the branch is made at the base (or the kept ref) and setup runs', async () => {
    const s = project();
    // The normal path after `bestof clean` (or a kill before the branch): said as a setup step, not a warning.
    const steps: string[] = [];
    const resumed = await prepareWorkspace(s.options({ mode: 'resume', onProgress: (p) => steps.push(p.text) }));
    expect(resumed.ok && resumed.value.reused).toBe(false);
    expect(resumed.ok && resumed.value.warnings).toEqual([]);
    expect(steps.join('\n')).toMatch(/branch bestof\/r1\/c1 made again at the base commit/);
    expectReady(s);
    expect(s.r.git('rev-parse', WORKSPACE_BRANCH)).toBe(s.base);

    const t = project();
    t.r.write('src/a.txt', 'kept work\n');
    const kept = t.r.commitAll('kept work');
    t.r.git('update-ref', WORKSPACE_KEPT_REF, kept);
    t.r.git('reset', '--quiet', '--hard', t.base);
    const fromKept: string[] = [];
    expect((await prepareWorkspace(t.options({ mode: 'resume', onProgress: (p) => fromKept.push(p.text) }))).ok).toBe(true);
    expect(fromKept.join('\n')).toContain(`made again at its kept commit (${WORKSPACE_KEPT_REF})`);
    expect(t.r.git('rev-parse', WORKSPACE_BRANCH)).toBe(kept);
    expect(readFileSync(join(t.worktree, 'src/a.txt'), 'utf8')).toBe('kept work\n');
  });

  it('stale index.lock, HEAD.lock and ref locks of the dead run are removed; the worktree and its work are reused', async () => {
    const s = project();
    expect((await prepareWorkspace(s.options())).ok).toBe(true);
    writeFileSync(join(s.worktree, 'src/a.txt'), 'the agent was here\n');
    const admin = join(s.r.dir, '.git', 'worktrees', 'c1');
    const locks = [
      join(admin, 'index.lock'),
      join(admin, 'HEAD.lock'),
      join(s.r.dir, '.git', 'refs', 'heads', 'bestof', 'r1', 'c1.lock'),
      join(s.r.dir, '.git', 'refs', 'bestof', 'r1', 'c1', 'kept.lock'),
    ];
    for (const lock of locks) {
      mkdirSync(join(lock, '..'), { recursive: true });
      writeFileSync(lock, '');
    }
    const resumed = await prepareWorkspace(s.options({ mode: 'resume' }));
    expect(resumed.ok && resumed.value).toMatchObject({ reused: true, setupPaths: ['.env', 'built'] });
    expect(resumed.ok && resumed.value.warnings.join('\n')).toMatch(/removed git locks the interrupted run left/);
    for (const lock of locks) expect(existsSync(lock)).toBe(false);
    expect(setupRuns(s)).toBe(1);
    const committed = await commitAll(s.worktree, { message: 'saved', excludePaths: ['.env', 'built'] });
    expect(committed.commit).toBeDefined();
    expect(s.r.git('show', `${WORKSPACE_BRANCH}:src/a.txt`)).toBe('the agent was here');
    s.r.git('update-ref', WORKSPACE_KEPT_REF, committed.commit as string);
  });

  it('a worktree made with --no-checkout and never checked out is made again, and nothing is committed as deleted', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 50; i++) files[`src/f${i}.txt`] = `${i}\n`;
    const s = project(files);
    // What a kill -9 during the checkout leaves: the branch, the admin entry, a folder with only `.git`, no marker.
    s.r.git('branch', WORKSPACE_BRANCH);
    mkdirSync(join(s.worktree, '..'), { recursive: true });
    s.r.git('worktree', 'add', '--quiet', '--no-checkout', s.worktree, WORKSPACE_BRANCH);
    const before = s.r.git('-C', s.worktree, 'status', '--porcelain').split('\n');
    expect(before.filter((line) => line.startsWith('D '))).toHaveLength(51);

    const resumed = await prepareWorkspace(s.options({ mode: 'resume' }));
    expect(resumed.ok && resumed.value.reused).toBe(false);
    expect(resumed.ok && resumed.value.warnings.join('\n')).toMatch(/was left half made .* made again/);
    expectReady(s);
    expect(readdirSync(join(s.worktree, 'src'))).toHaveLength(50);
    expect((await commitAll(s.worktree, { message: 'nothing', excludePaths: ['.env', 'built'] })).commit).toBeUndefined();
    expect(s.r.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2);
  });

  it('a half-made worktree is made again from its branch, whose tip is kept, with stale locks and half its files', async () => {
    const s = project({ 'README.md': '# hi\n', 'src/a.txt': 'a\n', 'src/b.txt': 'b\n' });
    s.r.git('branch', WORKSPACE_BRANCH);
    mkdirSync(join(s.worktree, '..'), { recursive: true });
    s.r.git('worktree', 'add', '--quiet', s.worktree, WORKSPACE_BRANCH);
    // A commit on the branch that is neither base nor kept: it must stay.
    writeFileSync(join(s.worktree, 'extra.txt'), 'extra\n');
    s.r.git('-C', s.worktree, 'add', 'extra.txt');
    s.r.git('-C', s.worktree, 'commit', '--quiet', '-m', 'extra');
    const tip = s.r.git('rev-parse', WORKSPACE_BRANCH);
    rmSync(join(s.worktree, 'src'), { recursive: true });
    writeFileSync(join(s.r.dir, '.git', 'worktrees', 'c1', 'index.lock'), '');

    const resumed = await prepareWorkspace(s.options({ mode: 'resume' }));
    expect(resumed.ok && resumed.value.reused).toBe(false);
    expect(s.r.git('rev-parse', WORKSPACE_BRANCH)).toBe(tip);
    expectReady(s);
    expect(readFileSync(join(s.worktree, 'src/b.txt'), 'utf8')).toBe('b\n');
    expect(readFileSync(join(s.worktree, 'extra.txt'), 'utf8')).toBe('extra\n');
  });

  it('a worktree folder that is gone is made again and set up again: copies and commands', async () => {
    const s = project();
    expect((await prepareWorkspace(s.options())).ok).toBe(true);
    rmSync(s.worktree, { recursive: true });
    const resumed = await prepareWorkspace(s.options({ mode: 'resume' }));
    expect(resumed.ok && resumed.value).toMatchObject({ reused: false, copied: ['.env'] });
    expectReady(s);
    expect(setupRuns(s)).toBe(2);
  });

  it.each([
    ['its .git file deleted', (s: Setup) => rmSync(join(s.worktree, '.git')), /its \.git file is missing; repaired/],
    [
      'its .git replaced by `git init`',
      (s: Setup) => {
        rmSync(join(s.worktree, '.git'));
        s.r.git('-C', s.worktree, 'init', '--quiet');
      },
      /a `git init` inside the worktree.*repaired.*moved to .*c1\.agent-dot-git/,
    ],
    ['its admin entry deleted', (s: Setup) => rmSync(join(s.r.dir, '.git', 'worktrees', 'c1'), { recursive: true }), /admin entry .* is missing; repaired/],
  ])('a worktree with %s is repaired and reused, its files and uncommitted edits intact', async (_name, breakIt, warning) => {
    const s = project();
    expect((await prepareWorkspace(s.options())).ok).toBe(true);
    writeFileSync(join(s.worktree, 'src/a.txt'), 'edited by the agent\n');
    writeFileSync(join(s.worktree, 'new.txt'), 'new from the agent\n');
    breakIt(s);

    const resumed = await prepareWorkspace(s.options({ mode: 'resume' }));
    expect(resumed.ok && resumed.value).toMatchObject({ reused: true, setupPaths: ['.env', 'built'] });
    expect(resumed.ok && resumed.value.warnings.join('\n')).toMatch(warning);
    expect(readFileSync(join(s.worktree, 'src/a.txt'), 'utf8')).toBe('edited by the agent\n');
    expect(readFileSync(join(s.worktree, 'new.txt'), 'utf8')).toBe('new from the agent\n');
    expect(readFileSync(join(s.worktree, '.env'), 'utf8')).toBe('TOKEN=local\n');
    const committed = await commitAll(s.worktree, { message: 'saved', excludePaths: ['.env', 'built'] });
    expect(
      s.r
        .git('diff', '--name-status', s.base, committed.commit as string)
        .split('\n')
        .sort(),
    ).toEqual(['A\tnew.txt', 'M\tsrc/a.txt']);
  });

  it.each([
    ['git begins to make the worktree', (s: Setup) => existsSync(join(s.r.dir, '.git', 'worktrees'))],
    ['the checkout has begun', (s: Setup) => existsSync(join(s.worktree, 'src'))],
  ])('killed with SIGKILL once %s, the worktree is made whole on resume', async (_when, killNow) => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`src/d${i % 30}/f${i}.txt`] = `file ${i}\n`;
    const s = project(files);
    const creator = runNodeScript(
      `import { addWorktree } from ${distModule('worktrees/worktree.js')};
       await addWorktree(process.argv[1], { path: process.argv[2], branch: process.argv[3], base: 'HEAD' });`,
      [s.r.dir, s.worktree, WORKSPACE_BRANCH],
    );
    let ended = false;
    void creator.done.then(() => (ended = true));
    // Kill it at that instant (or at its end, should it be that quick).
    await waitUntil(() => ended || killNow(s), 'the creation to reach the instant of the kill');
    try {
      process.kill(creator.pid, 'SIGKILL');
    } catch (error) {
      // It ended on its own, before the poll saw the instant or between the poll and the kill: a
      // whole worktree to resume, which must work too. (This kill threw ESRCH then, and failed the test.)
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
    await creator.done;

    const resumed = await prepareWorkspace(s.options({ mode: 'resume' }));
    expect(resumed.ok ? 'ok' : resumed.error.message).toBe('ok');
    expectReady(s);
    expect(s.r.git('-C', s.worktree, 'ls-files').split('\n')).toHaveLength(3001);
    expect((await commitAll(s.worktree, { message: 'nothing', excludePaths: ['.env', 'built'] })).commit).toBeUndefined();
  });
});

describe('prepareWorkspace, the setup paths', () => {
  it('a new worktree without any setup step: no setup paths, and no git walk to find them', async () => {
    const s = project();
    const { result, calls } = await recordGitCalls(tempDir(), () => prepareWorkspace(s.options({ copy: [], commands: [] })));
    expect(result).toEqual({ ok: true, value: { copied: [], warnings: [], setupPaths: [], reused: false } });
    expect(JSON.parse(readFileSync(join(s.runDir, 'setup-paths.json'), 'utf8'))).toEqual([]);
    expect(calls.filter((call) => / ls-files /.test(` ${call} `))).toEqual([]);
    // Whatever is in it is the candidate's work then: the listing is right to be empty.
    expect(s.r.git('-C', s.worktree, 'status', '--porcelain', '--ignored')).toBe('');
  });

  it('with a setup command, the files it makes are listed (the walk runs)', async () => {
    const s = project();
    const made = await prepareWorkspace(s.options({ copy: [], commands: ['mkdir -p built && echo ok > built/out.txt && echo hi > scratch.txt'] }));
    expect(made.ok && [...made.value.setupPaths].sort()).toEqual(['built', 'scratch.txt']);
  });
});
