/**
 * git's runner (src/git/running/spawn-git.ts, through exec.ts's runGit): exit codes kept, output whole,
 * a clear error when git cannot start, and an abort that interrupts git.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { GitCommandError, runGit } from '../../src/git/running/exec.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const { repo } = tempRepos();

describe('spawnGit via runGit', () => {
  it('keeps a non-zero exit code and what git printed, without throwing', async () => {
    const r = repo();
    r.write('README.md', 'changed\n');
    const diff = await runGit(r.dir, ['diff', '--quiet']);
    expect(diff).toEqual({ code: 1, stdout: '', stderr: '' });
    const missing = await runGit(r.dir, ['rev-parse', '--verify', 'no-such-branch']);
    expect(missing.code).toBe(128);
    expect(missing.stderr).toContain('Needed a single revision');
  });

  it('gives git its input on stdin when asked, and an empty stdin otherwise', async () => {
    const r = repo();
    const hashed = await runGit(r.dir, ['hash-object', '--stdin'], { input: 'hello\n' });
    // The blob names of "hello\n" and of nothing (sha-1, the temp repos' format).
    expect(hashed.stdout.trim()).toBe('ce013625030ba8dba906f756967f9e9ca394464a');
    const empty = await runGit(r.dir, ['hash-object', '--stdin']);
    expect(empty.stdout.trim()).toBe('e69de29bb2d1d6434b8b29ae775ad8c2e48c5391');
  });

  it('collects the whole of a long output', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 3000; i++) files[`folder-${i % 30}/a-rather-long-file-name-${i}.txt`] = `${i}\n`;
    const r = repo(files);
    const listed = await runGit(r.dir, ['ls-files', '-z']);
    expect(listed.code).toBe(0);
    expect(listed.stdout.split('\0').filter(Boolean)).toHaveLength(3000);
  });

  it('says so when the folder does not exist', async () => {
    const r = repo();
    const gone = join(r.dir, 'gone');
    const error = await runGit(gone, ['status']).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitCommandError);
    expect((error as GitCommandError).message).toContain(`git could not be started in ${gone}: the folder does not exist`);
  });

  it('says so when git is not on PATH', async () => {
    const r = repo();
    const path = process.env.PATH;
    process.env.PATH = join(r.dir, 'no-bin');
    try {
      const error = await runGit(r.dir, ['status']).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(GitCommandError);
      expect((error as GitCommandError).message).toContain('git could not be started: it is not installed or not on PATH');
    } finally {
      process.env.PATH = path;
    }
  });

  it('an abort interrupts a running git and rejects with an AbortError naming the command', async () => {
    const r = repo();
    const controller = new AbortController();
    // An alias that runs a shell command which would outlive the test (and keeps git's output open).
    const pidFile = join(r.dir, 'wait.pid');
    const call = runGit(r.dir, ['-c', `alias.wait=!echo $$ > ${pidFile}; exec sleep 60`, 'wait'], { signal: controller.signal });
    await waitUntil(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').endsWith('\n'), 'the alias to start');
    controller.abort(new Error('stop'));
    const error = await call.then(
      () => undefined,
      (e: unknown) => e as Error,
    );
    // The `sleep 60` if it is still there; never a stranger that got its pid after git's SIGTERM ended it.
    const pid = Number(readFileSync(pidFile, 'utf8'));
    const cmdline = ((): string => {
      try {
        return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      } catch {
        return ''; // gone
      }
    })();
    if (cmdline.startsWith('sleep\0')) process.kill(pid, 'SIGKILL');
    expect(error?.name).toBe('AbortError');
    expect(error?.message).toBe('git wait was aborted');
  });

  // A git bestof was starting when a signal came to its whole group (src/git/running/spawn-git.ts
  // GROUP_STOP_SIGNALS) dies of it before it has run anything: made once more, once only. The
  // stand-in: an alias whose shell kills its git (the shell's parent) with the signal the first time.
  const killsItsGit = (marker: string, signal: string): string[] => [
    '-c',
    `alias.once=!if [ -e ${marker} ]; then echo second; else touch ${marker}; kill -${signal} $PPID; sleep 0.2; fi`,
    'once',
  ];

  it.each(['INT', 'TERM', 'HUP'])('a git killed by SIG%s, as a signal to the whole group kills it, is made once more', async (signal) => {
    const r = repo();
    const marker = join(r.dir, `killed-${signal}`);
    const run = await runGit(r.dir, killsItsGit(marker, signal));
    expect(existsSync(marker)).toBe(true);
    expect(run).toMatchObject({ code: 0, stdout: 'second\n' });
  });

  it('a git killed by another signal, or by the same one twice, is not made again: the call says it was killed', async () => {
    const r = repo();
    // runGit turns a killed git into a GitCommandError (a second start would have printed "second" and succeeded).
    await expect(runGit(r.dir, killsItsGit(join(r.dir, 'killed-kill'), 'KILL'))).rejects.toThrow('git was killed by SIGKILL');
    const starts = join(r.dir, 'starts');
    await expect(runGit(r.dir, ['-c', `alias.always=!echo started >> ${starts}; kill -TERM $PPID; sleep 0.2`, 'always'])).rejects.toThrow(
      'git was killed by SIGTERM',
    );
    expect(readFileSync(starts, 'utf8')).toBe('started\nstarted\n');
  });

  it('an abort before the call starts nothing', async () => {
    const r = repo();
    const controller = new AbortController();
    controller.abort();
    await expect(runGit(r.dir, ['update-ref', 'refs/heads/made', 'HEAD'], { signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' });
    // Nothing ran: the branch would exist.
    expect((await runGit(r.dir, ['rev-parse', '--verify', '--quiet', 'refs/heads/made'])).code).toBe(1);
    expect((await runGit(r.dir, ['update-ref', 'refs/heads/made', 'HEAD'])).code).toBe(0);
    expect((await runGit(r.dir, ['rev-parse', '--verify', '--quiet', 'refs/heads/made'])).code).toBe(0);
  });
});
