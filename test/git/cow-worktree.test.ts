import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, utimesSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ok } from '../../src/result.js';
import {
  addCowWorktree,
  addCowWorktreeOnBranch,
  detachCowBase,
  materializeCowWorktree,
  prepareCowBase,
  remountCowWorktree,
  removeCowBase,
  removeCowWorktree,
  type RunInside,
} from '../../src/git/worktrees/cow-worktree.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { gitDirsOf } from '../../src/git/running/exec.js';
import { recordGitCalls } from '../helpers/git-calls.js';
import { overlayAvailable, startOverlayHolder, type OverlayHolder } from '../../src/process/overlay-holder.js';
import { agentGitScratchDir, agentSandbox } from '../../src/engine/sandbox/agent-sandbox.js';
import { agentGitDirs } from '../../src/git/guards/agent-git-dirs.js';
import { prepareAgentGitScratch } from '../../src/git/guards/agent-git-scratch.js';
import { probeSandbox, wrapInSandbox } from '../../src/process/sandbox.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';
import { built, nodeAsNobody } from '../helpers/as-user.js';
import { processIsGone, waitUntil } from '../helpers/wait.js';

const { repo: tempRepo, tempDir, onCleanup } = tempRepos();

const FILES = {
  'README.md': '# hi\n',
  'src/a.txt': 'a\n',
  'src/b.txt': 'b\n',
  'src/c.txt': 'c\n',
  'docs/old-name.md': 'moved\n',
};

function repo(): TempRepo {
  const r = tempRepo(FILES);
  r.git('config', 'core.autocrlf', 'false');
  execFileSync('ln', ['-s', 'src/a.txt', 'link-to-a'], { cwd: r.dir });
  r.commitAll('a symlink');
  return r;
}

/**
 * overlayfs leaves `<layer>/work/work` without any permission: a user without root could not
 * delete the temp folder. Registered after the folder, so it runs before the folder goes.
 */
function openUpLayerAfterTest(layer: string): void {
  onCleanup(() => {
    try {
      chmodSync(join(layer, 'work', 'work'), 0o700);
    } catch {
      // never mounted, or already removed
    }
  });
}

async function holder(): Promise<OverlayHolder> {
  const started = await startOverlayHolder();
  if (!started.ok) throw new Error(started.error);
  onCleanup(() => void started.value.close());
  return started.value;
}

/** Runs a command inside the holder's namespace, in `cwd` (as bestof and the agent must). */
function inside(h: OverlayHolder, cwd: string, command: string, ...args: string[]): string {
  const argv = h.inside(command, args, cwd);
  return execFileSync(argv.command, argv.args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The RunInside of bestof's cow functions, for mounts held by `h` (bestof itself runs in its namespace). */
function execInside(h: OverlayHolder): RunInside {
  return async (command, args, cwd) => {
    try {
      return { code: 0, output: inside(h, cwd, command, ...args) };
    } catch (error) {
      return { code: 1, output: String((error as { stderr?: unknown }).stderr ?? (error as Error).message) };
    }
  };
}

/** What an agent does to a worktree: edit, delete, add, rename, a new symlink, a changed one. */
const AGENT_WORK = [
  'printf "a changed\\n" > src/a.txt',
  'rm src/b.txt',
  'mkdir -p new && printf "new\\n" > new/file.txt',
  'git mv docs/old-name.md docs/new-name.md',
  'ln -s new/file.txt link-to-new',
  'rm link-to-a && ln -s src/c.txt link-to-a',
].join(' && ');

interface Setup {
  r: TempRepo;
  h: OverlayHolder;
  lower: string;
  path: string;
  layer: string;
}

/** The run's base checkout of `r` at HEAD, and where candidate `a`'s worktree and layer go. */
async function cowBase(r: { readonly dir: string }): Promise<{ lower: string; path: string; layer: string }> {
  const root = tempDir();
  const lower = join(root, '.base');
  const path = join(root, 'a');
  const layer = join(root, '.layers', 'a');
  openUpLayerAfterTest(layer);
  expect(await prepareCowBase(r.dir, lower, 'HEAD')).toEqual(ok());
  return { lower, path, layer };
}

async function cowWorktree(branch = 'bestof/run/a'): Promise<Setup> {
  const r = repo();
  const h = await holder();
  const { lower, path, layer } = await cowBase(r);
  expect(await addCowWorktree(r.dir, { path, branch, lower, layer, holder: h })).toEqual(ok());
  return { r, h, lower, path, layer };
}

describe('overlay worktrees: the probe', () => {
  it('says overlay worktrees work on this machine (Linux, unshare, overlayfs in a user namespace)', async () => {
    expect(await overlayAvailable()).toEqual({ ok: true });
  });

  it('says why they are not available when switched off (the fallback names the reason)', async () => {
    const probe = await overlayAvailable({ ...process.env, BESTOF_OVERLAY: 'off' });
    expect(probe).toEqual({ ok: false, reason: 'overlay worktrees are switched off (BESTOF_OVERLAY=off)' });
  });

  it('says why when unshare is not on PATH', async () => {
    const probe = await overlayAvailable({ PATH: tempDir() });
    expect(probe.ok).toBe(false);
    expect(probe.ok ? '' : probe.reason).toBe('unshare or nsenter (util-linux) is not installed');
  });

  it('deletes the probe folders that bestofs killed during their probe left (their pid is gone), and no other', async () => {
    const temp = tempDir();
    const gone = spawn('true');
    await new Promise((resolve) => gone.once('close', resolve));
    const folder = (name: string, ageSeconds = 0): string => {
      const path = join(temp, name);
      mkdirSync(join(path, 'work', 'work'), { recursive: true });
      chmodSync(join(path, 'work', 'work'), 0o000); // as overlayfs leaves it
      const at = Date.now() / 1000 - ageSeconds;
      utimesSync(path, at, at);
      return path;
    };
    const killed = folder(`bestof-overlay-probe-${gone.pid}-a1B2c3`);
    const running = folder(`bestof-overlay-probe-${process.pid}-d4E5f6`);
    const oldNameLongAgo = folder('bestof-overlay-probe-g7H8i9', 7200);
    const oldNameRecent = folder('bestof-overlay-probe-j1K2l3');
    const notAProbe = folder('bestof-overlay-probe-notes');
    // Another PATH: a probe of its own, not the one cached for this process's PATH.
    expect(await overlayAvailable({ ...process.env, TMPDIR: temp, PATH: `${process.env.PATH ?? ''}:${temp}` })).toEqual({ ok: true });
    expect([killed, running, oldNameLongAgo, oldNameRecent, notAProbe].map((path) => existsSync(path))).toEqual([false, true, false, true, true]);
    // And its own folder is gone.
    expect(readdirSync(temp).sort()).toEqual(
      ['bestof-overlay-probe-j1K2l3', 'bestof-overlay-probe-notes', `bestof-overlay-probe-${process.pid}-d4E5f6`].sort(),
    );
    for (const path of [running, oldNameRecent, notAProbe]) chmodSync(join(path, 'work', 'work'), 0o700);
  });

  it.runIf(process.getuid?.() === 0)('works for a user without root (run as nobody through setpriv)', () => {
    // The other user runs plain node: the probe comes from the build.
    const module = built('process/overlay-holder');
    const out = nodeAsNobody(`const m = await import(${JSON.stringify(module)}); console.log(JSON.stringify(await m.overlayAvailable()), process.getuid());`, {
      HOME: '/nonexistent',
    });
    expect(out).toBe('{"ok":true} 65534');
  });
});

describe('overlay worktrees behave like plain ones', () => {
  it('starts clean: a real worktree on its branch whose index matches the files without rehashing them', async () => {
    const { r, h, path } = await cowWorktree();
    const base = r.git('rev-parse', 'HEAD');
    expect(inside(h, path, 'git', 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('bestof/run/a');
    expect(inside(h, path, 'git', 'rev-parse', 'HEAD')).toBe(base);
    expect(inside(h, path, 'git', 'rev-parse', '--show-toplevel')).toBe(path);
    // diff-files compares stat data without refreshing: a file whose inode, size, mtime or ctime
    // differ from the index's would be listed (and rehashed by `git status`).
    expect(inside(h, path, 'git', 'diff-files', '--name-only')).toBe('');
    expect(inside(h, path, 'git', 'status', '--porcelain')).toBe('');
    expect(inside(h, path, 'cat', 'src/a.txt')).toBe('a');
    expect(r.git('worktree', 'list', '--porcelain')).toContain(`worktree ${path}\nHEAD ${base}\nbranch refs/heads/bestof/run/a`);
    // Its git dirs are known from its creation (no git process), and they are what git says inside.
    const known = await recordGitCalls(tempDir(), () => gitDirsOf(path));
    expect(known.calls).toEqual([]);
    const [commonDir, gitDir] = inside(h, path, 'git', 'rev-parse', '--path-format=absolute', '--git-common-dir', '--git-dir').split('\n');
    expect(known.result).toEqual({ commonDir, gitDir });
  });

  it('edit, delete, add, rename and symlinks: the same status, diff and commit as in a plain worktree', async () => {
    const { r, h, path, lower, layer } = await cowWorktree();
    const plain = join(tempDir(), 'plain');
    expect(await addWorktree(r.dir, { path: plain, branch: 'bestof/run/plain', base: 'HEAD' })).toEqual(ok());

    inside(h, path, 'sh', '-c', AGENT_WORK);
    execFileSync('sh', ['-c', AGENT_WORK], { cwd: plain });

    const plainGit = (...args: string[]): string => execFileSync('git', args, { cwd: plain, encoding: 'utf8' }).trim();
    expect(inside(h, path, 'git', 'status', '--porcelain')).toBe(plainGit('status', '--porcelain'));
    expect(inside(h, path, 'git', 'diff')).toBe(plainGit('diff'));
    expect(inside(h, path, 'git', 'status', '--porcelain')).toContain('R  docs/old-name.md -> docs/new-name.md');

    // The agent's own commit, in the namespace (as it runs, through the holder): the same tree.
    inside(h, path, 'git', 'add', '-A');
    inside(h, path, 'git', 'commit', '--quiet', '-m', 'agent');
    plainGit('add', '-A');
    plainGit('commit', '--quiet', '-m', 'agent');
    expect(r.git('rev-parse', 'bestof/run/a^{tree}')).toBe(r.git('rev-parse', 'bestof/run/plain^{tree}'));
    expect(inside(h, path, 'git', 'status', '--porcelain')).toBe('');

    // The changes are in the candidate's layer; the shared base and the mount point outside are untouched.
    expect(readFileSync(join(layer, 'upper', 'src', 'a.txt'), 'utf8')).toBe('a changed\n');
    expect(readFileSync(join(lower, 'src', 'a.txt'), 'utf8')).toBe('a\n');
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: lower, encoding: 'utf8' })).toBe('');
    expect(readdirSync(path)).toEqual(['.git']);
  });

  it('whole folders: deleted and made again (empty), moved with mv, as in a plain worktree (overlayfs with userxattr)', async () => {
    const { r, h, path } = await cowWorktree();
    const plain = join(tempDir(), 'plain');
    expect(await addWorktree(r.dir, { path: plain, branch: 'bestof/run/plain', base: 'HEAD' })).toEqual(ok());
    // Without userxattr, an unprivileged overlay cannot mark a folder opaque: `rm -rf src` fails with EIO.
    const work = 'rm -rf src && mkdir src && printf "only\\n" > src/only.txt && mv docs documents';
    inside(h, path, 'sh', '-c', work);
    execFileSync('sh', ['-c', work], { cwd: plain });
    const plainGit = (...args: string[]): string => execFileSync('git', args, { cwd: plain, encoding: 'utf8' }).trim();
    expect(inside(h, path, 'ls', 'src')).toBe('only.txt');
    expect(inside(h, path, 'git', 'status', '--porcelain', '--untracked-files=all')).toBe(plainGit('status', '--porcelain', '--untracked-files=all'));
    inside(h, path, 'git', 'add', '-A');
    plainGit('add', '-A');
    expect(inside(h, path, 'git', 'write-tree')).toBe(plainGit('write-tree'));
  });

  it("bestof's commit and frozen restore, run inside the namespace: reset --hard + clean put the scored commit back", async () => {
    const { r, h, path } = await cowWorktree();
    inside(h, path, 'sh', '-c', 'printf "scored\\n" > src/a.txt && printf "x\\n" > extra.txt');
    inside(h, path, 'git', 'add', '-A');
    inside(h, path, 'git', 'commit', '--quiet', '-m', 'work');
    const work = r.git('rev-parse', 'bestof/run/a');
    // After a check wrote into the tree, the frozen commit is put back (reset --hard + clean).
    inside(h, path, 'sh', '-c', 'printf "check wrote this\\n" > src/a.txt && printf "junk\\n" > junk.txt && rm extra.txt');
    inside(h, path, 'git', 'reset', '--hard', '--quiet', work);
    inside(h, path, 'git', 'clean', '-fdq');
    expect(inside(h, path, 'git', 'status', '--porcelain')).toBe('');
    expect(inside(h, path, 'cat', 'src/a.txt')).toBe('scored');
    expect(inside(h, path, 'cat', 'extra.txt')).toBe('x');
    expect(inside(h, path, 'sh', '-c', 'test -e junk.txt && echo there || echo gone')).toBe('gone');
  });

  it('an agent in the bubblewrap sandbox (bwrap run inside the namespace) works in the overlay worktree with git', async () => {
    const sandbox = await probeSandbox();
    if (!sandbox.ok) throw new Error(`this test needs bubblewrap: ${sandbox.reason}`);
    const { r, h, path } = await cowWorktree();
    // The candidate's layout as bestof makes it (every git dir read-only, a git scratch of its own writable).
    const layout = agentSandbox({ repoRoot: r.dir, sandbox: { enabled: true, bwrap: sandbox.bwrap } }, { id: 'a', worktree: path }, { PATH: process.env.PATH });
    if (!layout) throw new Error('no sandbox layout');
    mkdirSync(layout.home, { recursive: true });
    const git = agentGitDirs(path);
    if (!git) throw new Error('no git dirs');
    const scratch = await prepareAgentGitScratch(agentGitScratchDir({ id: 'a', worktree: path }), git);
    const wrapped = wrapInSandbox('sh', ['-c', 'printf "from the sandbox\\n" > src/a.txt && git add src/a.txt && git status --porcelain'], layout);
    expect(inside(h, '/', wrapped.command, ...wrapped.args)).toBe('M  src/a.txt');
    // Staged in the agent's own index (the scratch's copy of the admin dir); the worktree's index (bestof's) is as it was.
    expect(inside(h, path, 'env', `GIT_INDEX_FILE=${join(scratch.admin, 'index')}`, 'git', 'diff', '--cached', '--name-only')).toBe('src/a.txt');
    expect(inside(h, path, 'git', 'diff', '--cached', '--name-only')).toBe('');
    expect(inside(h, path, 'cat', 'src/a.txt')).toBe('from the sandbox');
  });

  it("a second candidate on the same base sees none of the first one's changes", async () => {
    const { r, h, path, lower } = await cowWorktree();
    const other = join(tempDir(), 'b');
    const layer = join(tempDir(), 'layer-b');
    openUpLayerAfterTest(layer);
    expect(await addCowWorktree(r.dir, { path: other, branch: 'bestof/run/b', lower, layer, holder: h })).toEqual(ok());
    inside(h, path, 'sh', '-c', 'rm src/c.txt && printf "only a\\n" > mine.txt');
    expect(inside(h, other, 'git', 'status', '--porcelain')).toBe('');
    expect(inside(h, other, 'cat', 'src/c.txt')).toBe('c');
  });

  it('refuses a branch that exists, and leaves no admin entry, layer or mount point behind', async () => {
    const { r, h, lower } = await cowWorktree();
    const root = tempDir();
    const made = await addCowWorktree(r.dir, { path: join(root, 'again'), branch: 'bestof/run/a', lower, layer: join(root, 'layer'), holder: h });
    expect(made.ok).toBe(false);
    expect(made.ok ? '' : made.error).toContain('cannot create branch bestof/run/a');
    expect(existsSync(join(root, 'again'))).toBe(false);
    expect(r.git('worktree', 'list')).not.toContain('again');
  });

  it('removal: unmounted, admin entry and layer gone, the branch and its commits kept; then the base goes', async () => {
    const { r, h, path, lower, layer } = await cowWorktree();
    inside(h, path, 'sh', '-c', 'printf "kept\\n" > kept.txt && git add -A && git commit --quiet -m kept');
    const tip = r.git('rev-parse', 'bestof/run/a');
    expect(await removeCowWorktree(r.dir, { path, layer, holder: h })).toEqual(ok());
    expect(existsSync(path)).toBe(false);
    expect(existsSync(layer)).toBe(false);
    expect(r.git('worktree', 'list')).not.toContain(`${path} `);
    expect(r.git('rev-parse', 'bestof/run/a')).toBe(tip);
    expect(await removeCowBase(r.dir, lower)).toEqual(ok());
    expect(existsSync(lower)).toBe(false);
    expect(r.git('worktree', 'list').split('\n')).toHaveLength(1);
  });

  it("detaching the base: out of git's worktrees and renamed aside at once, its files untouched for whoever deletes them", async () => {
    const r = repo();
    const { lower } = await cowBase(r);
    const trash = join(dirname(lower), '.trash', 'base-1');
    expect(await detachCowBase(r.dir, lower, trash)).toEqual(ok(true));
    expect(existsSync(lower)).toBe(false);
    expect(existsSync(`${lower}.ready`)).toBe(false);
    expect(readFileSync(join(trash, 'README.md'), 'utf8')).toBe(readFileSync(join(r.dir, 'README.md'), 'utf8'));
    // git no longer knows it (no admin entry left to prune), and a new base can be made where it was.
    expect(r.git('worktree', 'list').split('\n')).toHaveLength(1);
    expect(readdirSync(join(r.dir, '.git', 'worktrees'))).toEqual([]);
    expect(await prepareCowBase(r.dir, lower, 'HEAD')).toEqual(ok());
    // Nothing there any more: nothing to do.
    expect(await detachCowBase(r.dir, join(dirname(lower), 'none'), join(dirname(lower), '.trash', 'none'))).toEqual(ok(true));
  });

  it('git worktree prune keeps a mounted overlay worktree (its mount point keeps the .git file)', async () => {
    const { r, h, path } = await cowWorktree();
    r.git('worktree', 'prune');
    expect(inside(h, path, 'git', 'status', '--porcelain')).toBe('');
  });
});

describe('overlay worktrees after a kill -9', () => {
  it('the holder ends with the process that started it, and a new one mounts the layer again with nothing lost', async () => {
    const holderModule = built('process/overlay-holder');
    const r = repo();
    const { lower, path, layer } = await cowBase(r);
    // The first "bestof": a real process that makes the worktree, writes through it, then is killed.
    const first = await holder();
    expect(await addCowWorktree(r.dir, { path, branch: 'bestof/run/a', lower, layer, holder: first })).toEqual(ok());
    await first.close();
    const pidFile = join(tempDir(), 'holder.pid');
    const script = [
      `const m = await import(${JSON.stringify(holderModule)});`,
      'const h = await m.startOverlayHolder();',
      `const mounted = await h.value.mount(${JSON.stringify({ lower, upper: join(layer, 'upper'), work: join(layer, 'work'), target: path })});`,
      'if (!mounted.ok) { console.error(mounted.error); process.exit(3); }',
      `const { writeFileSync } = await import('node:fs');`,
      `writeFileSync(h.value.viewPath(${JSON.stringify(join(path, 'src', 'a.txt'))}), 'agent work\\n');`,
      `writeFileSync(${JSON.stringify(pidFile)}, String(h.value.pid));`,
      'setInterval(() => {}, 1000);',
    ].join('\n');
    const bestof = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') !== '', 'the first process mounted and wrote through the overlay');
    const holderPid = Number(readFileSync(pidFile, 'utf8'));
    expect(processIsGone(holderPid)).toBe(false);
    bestof.kill('SIGKILL');
    await waitUntil(() => processIsGone(holderPid), 'the holder ended with the process that started it');

    const second = await holder();
    expect(await remountCowWorktree(r.dir, { path, branch: 'bestof/run/a', lower, layer, holder: second })).toEqual(ok());
    expect(inside(second, path, 'cat', 'src/a.txt')).toBe('agent work');
    expect(inside(second, path, 'git', 'status', '--porcelain')).toBe('M src/a.txt');
  });

  it('a worktree whose admin entry was lost is linked again on its branch, its changes shown as changes', async () => {
    const { r, h, path, lower, layer } = await cowWorktree();
    inside(h, path, 'sh', '-c', 'printf "committed\\n" > src/a.txt && git commit --quiet -am one && printf "uncommitted\\n" > src/b.txt');
    await h.close();
    execFileSync('rm', ['-rf', join(r.dir, '.git', 'worktrees')]);
    const second = await holder();
    expect(await remountCowWorktree(r.dir, { path, branch: 'bestof/run/a', lower, layer, holder: second })).toEqual(ok());
    expect(inside(second, path, 'git', 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('bestof/run/a');
    expect(inside(second, path, 'git', 'status', '--porcelain')).toBe('M src/b.txt');
    expect(inside(second, path, 'cat', 'src/a.txt')).toBe('committed');
  });
});

describe('overlay worktrees for runs: resume and worktrees that outlive the run', () => {
  it('a base checkout killed half-way (no ready mark) is made again, never used with files missing', async () => {
    const r = repo();
    const { lower } = await cowBase(r);
    // What a kill -9 during the checkout leaves: HEAD set, files missing, no ready mark.
    execFileSync('rm', ['-f', join(lower, 'src/a.txt'), `${lower}.ready`]);
    expect(await prepareCowBase(r.dir, lower, 'HEAD')).toEqual(ok());
    expect(readFileSync(join(lower, 'src/a.txt'), 'utf8')).toBe('a\n');
    expect(existsSync(`${lower}.ready`)).toBe(true);
    // A complete one is kept as it is (a resumed run's candidates stand on it).
    execFileSync('touch', [join(lower, 'kept-marker')]);
    expect(await prepareCowBase(r.dir, lower, 'HEAD')).toEqual(ok());
    expect(existsSync(join(lower, 'kept-marker'))).toBe(true);
  });

  it('on an existing branch ahead of the base: the tip checked out over the base, only what differs written to the layer', async () => {
    const r = repo();
    const h = await holder();
    const { lower, path, layer } = await cowBase(r);
    // The branch a cancelled candidate left: one commit past the base.
    const plain = join(tempDir(), 'plain');
    expect(await addWorktree(r.dir, { path: plain, branch: 'bestof/run/a', base: 'HEAD' })).toEqual(ok());
    execFileSync(
      'sh',
      ['-c', 'printf "from the branch\\n" > src/a.txt && rm src/b.txt && git add -A && git -c user.name=t -c user.email=t@t commit -qm work'],
      { cwd: plain },
    );
    const tip = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: plain, encoding: 'utf8' }).trim();
    execFileSync('git', ['worktree', 'remove', '--force', plain], { cwd: r.dir });

    expect(await addCowWorktreeOnBranch(r.dir, { path, branch: 'bestof/run/a', lower, layer, holder: h, exec: execInside(h) })).toEqual(ok());
    expect(inside(h, path, 'git', 'rev-parse', 'HEAD')).toBe(tip);
    expect(inside(h, path, 'git', 'status', '--porcelain')).toBe('');
    expect(inside(h, path, 'cat', 'src/a.txt')).toBe('from the branch');
    expect(inside(h, path, 'sh', '-c', 'test -e src/b.txt && echo there || echo gone')).toBe('gone');
    // Only the changed file and the deletion's whiteout are in the layer, not the 6 others.
    const upper = join(layer, 'upper');
    expect(readdirSync(upper).sort()).toEqual(['.git', 'src']);
    expect(readdirSync(join(upper, 'src')).sort()).toEqual(['a.txt', 'b.txt']);
  });

  it('materialized: a mounted worktree becomes a plain folder at the same path, its uncommitted work in it, its layer gone', async () => {
    const { r, h, path, layer } = await cowWorktree();
    inside(h, path, 'sh', '-c', 'printf "edited\\n" > src/a.txt && printf "untracked\\n" > notes.txt && rm src/c.txt');
    expect(await materializeCowWorktree({ path, layer, holder: h, exec: execInside(h) })).toEqual(ok());
    // Seen from outside the namespace, without it: the files themselves.
    expect(readFileSync(join(path, 'src/a.txt'), 'utf8')).toBe('edited\n');
    expect(readFileSync(join(path, 'notes.txt'), 'utf8')).toBe('untracked\n');
    expect(readFileSync(join(path, 'README.md'), 'utf8')).toBe('# hi\n');
    expect(existsSync(join(path, 'src/c.txt'))).toBe(false);
    expect(r.git('-C', path, 'status', '--porcelain')).toBe('M src/a.txt\n D src/c.txt\n?? notes.txt'); // (the helper trims the first space)
    expect(existsSync(layer)).toBe(false);
  });
});
