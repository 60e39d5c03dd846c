/**
 * The git processes a resume or a clean waits for before it touches a worktree folder
 * (src/git/worktrees/worktree-users.ts), found through /proc: a stand-in program named `git` (a perl script:
 * /proc/<pid>/comm is then `git`) that only waits, started the ways bestof starts git. Not a shell
 * script: its `sleep` would be a second `git` between its fork and its exec (bash's child bears its
 * name until then), which the scan counts, on purpose, and which would make the sets below race. Not
 * a node script: Node 24 names its main thread, so its comm is `MainThread`, not `git`.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitProcessesWorkingIn, waitForGitToLeave, waitForGitToLeaveEach } from '../../src/git/worktrees/worktree-users.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();
const PERL = execFileSync('sh', ['-c', 'command -v perl'], { encoding: 'utf8' }).trim();

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) child.kill('SIGKILL');
});

/** A `git` that sleeps `seconds`, started in `cwd` with `args`; resolves once /proc says it is `git`. */
async function fakeGit(cwd: string, args: string[], seconds = 5): Promise<ChildProcess> {
  const bin = tempDir();
  // perl's select() waits the fraction of a second in the process itself (no child). perl named on
  // the #! line itself: through `/usr/bin/env perl` the comm would be `perl`.
  writeFileSync(join(bin, 'git'), `#!${PERL}\nselect(undef, undef, undef, ${seconds});\n`);
  chmodSync(join(bin, 'git'), 0o755);
  const child = spawn(join(bin, 'git'), args, { cwd, stdio: 'ignore' });
  started.push(child);
  for (let i = 0; i < 200; i++) {
    try {
      if (readFileSync(`/proc/${child.pid}/comm`, 'utf8').startsWith('git')) return child;
    } catch {
      // not there yet
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the stand-in git did not start');
}

describe.runIf(process.platform === 'linux')('git processes working in a worktree folder', () => {
  it('finds a git run from elsewhere that names the folder (`-C <folder>`, `worktree add <folder>`), not one that names a sibling', async () => {
    const root = tempDir();
    const folder = join(root, 'c1');
    mkdirSync(folder);
    const minusC = await fakeGit(root, ['-C', folder, 'reset', '--hard']);
    const add = await fakeGit(root, ['worktree', 'add', '--no-checkout', join(folder, 'sub'), 'b']);
    const sibling = await fakeGit(root, ['-C', `${folder}-other`, 'status']);
    const inside = await fakeGit(folder, ['status']);
    const found = gitProcessesWorkingIn(folder).sort();
    expect(found).toEqual([minusC.pid, add.pid, inside.pid].sort());
    expect(found).not.toContain(sibling.pid);
  });

  it('waits for such a git to end, and says the folder is free only once it has', async () => {
    const root = tempDir();
    const folder = join(root, 'c1');
    mkdirSync(folder);
    const git = await fakeGit(root, ['-C', folder, 'reset', '--hard'], 0.5);
    let exited = false;
    git.on('exit', () => (exited = true));
    expect(await waitForGitToLeave(folder, { timeoutMs: 30_000 })).toEqual([]);
    expect(exited).toBe(true);
  });

  it('waits for many folders together and says, per folder, which git is still there when the time is up', async () => {
    const root = tempDir();
    const [quick, slow, idle] = [join(root, 'c1'), join(root, 'c2'), join(root, 'c3')] as const;
    for (const folder of [quick, slow, idle]) mkdirSync(folder);
    const ends = await fakeGit(root, ['-C', quick, 'reset', '--hard'], 0.3);
    const stays = await fakeGit(slow, ['status'], 30);
    let exited = false;
    ends.on('exit', () => (exited = true));
    const busy = await waitForGitToLeaveEach([quick, slow, idle], { timeoutMs: 1_000 });
    expect(exited).toBe(true);
    expect(busy).toEqual(
      new Map([
        [quick, []],
        [slow, [stays.pid]],
        [idle, []],
      ]),
    );
  });
});
