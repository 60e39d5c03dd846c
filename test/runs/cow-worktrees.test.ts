/**
 * `[git] worktrees = "copy-on-write"` with the real binary: the run goes on inside a mount
 * namespace of its own (src/process/namespace.ts), every candidate on the one shared base
 * checkout with an overlay layer of its own. What must hold is what holds for plain worktrees:
 * the honest candidate wins over one that edits the frozen tests, every candidate's work is on its
 * branch, nothing is left behind; `keep_worktrees` leaves real folders; a `kill -9` loses nothing
 * (`bestof resume` mounts the layers again and goes on; `bestof clean` saves and removes them);
 * where the namespace cannot be had, plain worktrees and a warning.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, signalAtExitEntry, startCli } from '../helpers/cli.js';
import { killAll, processesWithEnv, SeenProcesses } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { startWithWrappedGit, wrappedGitBin } from '../helpers/git-wrapper.js';
import { runIsAlive } from '../../src/engine/record/run-lock.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { bestofAsUser, CAN_RUN_AS_USER, giveToUser } from '../helpers/as-user.js';
import { makeTempDir } from '../helpers/temp-repo.js';

let project: Project;
const seen = new SeenProcesses();
/** Folders a test made outside a project (given to another user: removed as root can). */
const made: string[] = [];
afterEach(() => {
  killAll(seen);
  project?.cleanup();
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const runsDir = (): string => join(project.repo.dir, '.bestof', 'runs');
const onlyRunId = (): string | undefined => (existsSync(runsDir()) ? readdirSync(runsDir())[0] : undefined);
const events = (runId: string): Array<Record<string, unknown>> =>
  readFileSync(join(runsDir(), runId, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/**
 * Rewrites the frozen test so that it passes without a fix: must not gain a point. First it tries
 * the shared base checkout every candidate's tree lies on (`../.cow/base`): written there, the
 * honest candidate would see a changed test and be flagged for it. The sandbox hides it.
 */
const CHEAT_SCRIPT = `
[[steps]]
run = "printf 'test(1)' > ../.cow/base/test/add.test.mjs 2>/dev/null; printf 'x' > ../.cow/base/framed.txt 2>/dev/null; true"
[[steps]]
write = "test/add.test.mjs"
content = "import { test } from 'node:test';\\ntest('adds', () => {});\\n"
`;

function cowSpec(body: string, git = ''): string {
  return project.writeOutside('spec.toml', specToml(project.repo.dir, `[git]\nworktrees = "copy-on-write"\n${git}\n${body}\n${ADD_CHECKS}`));
}

function twoCandidates(git = ''): string {
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const cheat = project.writeOutside('cheat.toml', CHEAT_SCRIPT);
  return cowSpec(
    `[parallel]
candidates = 2
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(fix)}
label = "honest"
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(cheat)}
label = "cheater"
[select]
merge = "none"
# bubblewrap inside bestof's namespace: the agents are sandboxed there too.
[sandbox]
mode = "required"`,
    git,
  );
}

describe('copy-on-write worktrees', () => {
  it('a run on one shared base: the honest candidate wins over the cheater, each branch holds its work, nothing is left behind', async () => {
    project = makeProject();
    const result = await runCli(['run', twoCandidates(), '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.stderr + result.stdout).not.toMatch(/cannot be used here/);
    expect(result.code).toBe(0);
    const runId = onlyRunId() as string;
    const log = events(runId);
    // The shared checkout was made, and each candidate's worktree was not a checkout of its own.
    expect(log.filter((e) => e.type === 'candidate.setup_progress' && e.step === 'checkout')).toHaveLength(2);
    const finished = log.find((e) => e.type === 'run.finished') as { winner?: string };
    expect(finished.winner).toBe('c1');
    expect(log.find((e) => e.type === 'candidate.tampered' && e.candidate === 'c2')).toBeDefined();
    // The honest one was not framed through the shared base: not flagged, full score.
    expect(log.find((e) => e.type === 'candidate.tampered' && e.candidate === 'c1')).toBeUndefined();
    expect(git(project.repo.dir, 'ls-tree', '--name-only', `bestof/${runId}/c1`)).not.toContain('framed.txt');
    expect(git(project.repo.dir, 'show', `bestof/${runId}/c1:src/add.mjs`)).toContain('a + b');
    expect(git(project.repo.dir, 'show', `bestof/${runId}/c2:test/add.test.mjs`)).not.toContain('assert');
    // Nothing left: no worktree but the main checkout, no layer, no base checkout.
    expect(git(project.repo.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
    expect(existsSync(join(project.worktreesDir, runId, 'c1'))).toBe(false);
    // The base checkout's files are deleted by a process of their own after the run, the trash folder with them.
    const trash = join(project.worktreesDir, '.bestof-trash');
    await waitUntil(() => !existsSync(trash), 'the shared base checkout to be deleted after the run');
  });

  it("a SIGTERM in the instant before the outer bestof exits (the inner one has exited with the run's code) ends it with that code, not 143", async () => {
    project = makeProject();
    const marker = join(project.outside, 'signalled');
    const entry = signalAtExitEntry(project.outside, 'SIGTERM', marker);
    const result = await runCli(['run', twoCandidates(), '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, entry });
    expect(result.stderr + result.stdout).not.toMatch(/cannot be used here/);
    // Sent by both: the bestof in the namespace, then the outer one.
    expect(readFileSync(marker, 'utf8').trim().split('\n'), 'the signal was sent').toHaveLength(2);
    expect(result.signal).toBeNull();
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect((events(onlyRunId() as string).find((e) => e.type === 'run.finished') as { winner?: string }).winner).toBe('c1');
  });

  it('clean deletes what a killed background deletion left in the trash', async () => {
    project = makeProject();
    const left = join(project.worktreesDir, '.bestof-trash', '20261203-000000-abcd-base-0a1b2c');
    mkdirSync(join(left, 'src'), { recursive: true });
    writeFileSync(join(left, 'src', 'file.txt'), 'x\n');
    const dry = await runCli(['clean', '--dry-run'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(dry.stdout).toContain(`remove ${left} (a shared base checkout left being deleted)`);
    expect(existsSync(left)).toBe(true);
    const cleaned = await runCli(['clean'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain(`remove ${left} (a shared base checkout left being deleted)`);
    expect(existsSync(join(project.worktreesDir, '.bestof-trash'))).toBe(false);
  });

  it('keep_worktrees: each kept worktree is a real folder outside the namespace, clean as git sees it', async () => {
    project = makeProject();
    const result = await runCli(['run', twoCandidates('keep_worktrees = true'), '--no-tui'], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
    });
    expect(result.code).toBe(0);
    const runId = onlyRunId() as string;
    const worktree = join(project.worktreesDir, runId, 'c1');
    // Seen from here, outside the run's namespace: the files themselves, not an empty mount point.
    expect(readFileSync(join(worktree, 'src/add.mjs'), 'utf8')).toContain('a + b');
    expect(readFileSync(join(worktree, 'README.md'), 'utf8')).toBe('# project\n');
    expect(git(worktree, 'status', '--porcelain')).toBe('');
    expect(git(worktree, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe(`bestof/${runId}/c1`);
    expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
    // And clean removes them as plain worktrees.
    const cleaned = await runCli(['clean'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(cleaned.code).toBe(0);
    expect(existsSync(worktree)).toBe(false);
  });

  it('bad input, found inside the namespace: exit 2 with the problem, nothing created', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(project.repo.dir, `[git]\nworktrees = "copy-on-write"\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}`).replace(
        '[prompt]',
        'base = "no-such-branch"\n\n[prompt]',
      ),
    );
    const result = await runCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code, result.stdout + result.stderr).toBe(2);
    expect(result.stderr).toMatch(/base: "no-such-branch" is not a commit/);
    expect(result.stderr).toMatch(/nothing was run or created/);
    expect(existsSync(runsDir())).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);
    expect(git(project.repo.dir, 'branch', '--list', 'bestof/*')).toBe('');
  });

  it('run from a subfolder: the spec found up the tree is named once, not again by the bestof inside the namespace', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    writeFileSync(
      join(project.repo.dir, 'bestof.toml'),
      `name = "t"\n[prompt]\ntext = "Fix."\n[git]\nworktrees = "copy-on-write"\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[select]\nmerge = "none"\n${ADD_CHECKS}`,
    );
    const result = await runCli(['run', '--no-tui'], { cwd: join(project.repo.dir, 'src'), worktreesDir: project.worktreesDir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stderr.match(/bestof: using .*bestof\.toml/g)).toHaveLength(1);
    expect(events(onlyRunId() as string).some((e) => e.type === 'candidate.setup_progress' && e.step === 'checkout')).toBe(true);
  });

  it('BESTOF_OVERLAY=off: plain worktrees, and the run says so', async () => {
    project = makeProject();
    const result = await runCli(['run', twoCandidates(), '--no-tui'], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
      env: { BESTOF_OVERLAY: 'off' },
    });
    expect(result.code).toBe(0);
    expect(result.stdout + result.stderr).toMatch(
      /git\.worktrees = "copy-on-write" cannot be used here \(overlay worktrees are switched off \(BESTOF_OVERLAY=off\)\): plain worktrees instead/,
    );
    const runId = onlyRunId() as string;
    expect(events(runId).some((e) => e.type === 'candidate.setup_progress' && e.step === 'checkout')).toBe(false);
    expect(git(project.repo.dir, 'show', `bestof/${runId}/c1:src/add.mjs`)).toContain('a + b');
  });

  it.runIf(CAN_RUN_AS_USER)('as a user without root, with `[sandbox] mode = "required"`: the agents are sandboxed inside the namespace too', async () => {
    // Inside bestof's namespace every process inherits the capabilities that let it mount there, and
    // bwrap run by a user without root refused them ("Unexpected capabilities but not setuid"): the
    // run refused mode "required", and with "auto" its agents ran without a sandbox. (As root, as the
    // other tests run, bwrap takes them for root's and works.) bwrap is started through setpriv there.
    const root = makeTempDir('bestof-cow-user-');
    made.push(root);
    const repo = join(root, 'repo');
    mkdirSync(repo);
    writeFileSync(join(repo, 'README.md'), '# r\n');
    git(repo, 'init', '--quiet', '--initial-branch=main');
    git(repo, 'add', '-A');
    git(repo, '-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '--quiet', '-m', 'base');
    // The agent tries to write the user's checkout; what it could do is its answer.
    writeFileSync(
      join(root, 'agent.sh'),
      `#!/bin/sh\nif echo x > ${JSON.stringify(join(repo, 'PWNED'))} 2>/dev/null; then echo escaped > answer.txt; else echo sandboxed > answer.txt; fi\n`,
      { mode: 0o755 },
    );
    writeFileSync(
      join(root, 'spec.toml'),
      `repo = ${JSON.stringify(repo)}\n[prompt]\ntext = "x"\n[provider]\nkind = "command"\ncommand = ${JSON.stringify(join(root, 'agent.sh'))}\n[[checks.items]]\nname = "answer"\ncommand = "test -f answer.txt"\n[select]\nmerge = "none"\n[sandbox]\nmode = "required"\n[git]\nworktrees = "copy-on-write"\n`,
    );
    mkdirSync(join(root, 'home'));
    mkdirSync(join(root, 'tmp'));
    giveToUser(root);
    const result = await bestofAsUser(['run', join(root, 'spec.toml'), '--json'], repo, {
      HOME: join(root, 'home'),
      BESTOF_WORKTREES_DIR: join(root, 'worktrees'),
      TMPDIR: join(root, 'tmp'),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).not.toMatch(/WITHOUT a sandbox|Unexpected capabilities/);
    const { runId } = JSON.parse(result.stdout) as { runId: string };
    expect(execFileSync('git', ['-c', 'safe.directory=*', 'show', `refs/bestof/${runId}/c1/kept:answer.txt`], { cwd: repo, encoding: 'utf8' }).trim()).toBe(
      'sandboxed',
    );
    expect(existsSync(join(repo, 'PWNED'))).toBe(false);
    // The overlay probe's folder is gone, though overlayfs left its work/work without any permission (src/owned-tree.ts removeTree).
    expect(readdirSync(join(root, 'tmp')).filter((name) => name.startsWith('bestof-overlay-probe-'))).toEqual([]);
  });

  describe('kill -9 of bestof mid-run', () => {
    /** Writes wip.txt on its first call and hangs; on a resumed call appends to it and ends. */
    const RESUMABLE_SCRIPT = `
[[steps]]
run = "if [ -f wip.txt ]; then echo resumed >> wip.txt; else echo started > wip.txt; sleep 120; fi"
`;

    /** A one-candidate copy-on-write run (no sandbox) of RESUMABLE_SCRIPT, once its agent has written wip.txt into its layer. */
    async function slowRunUnderWay(
      ownProcessGroup = false,
    ): Promise<{ runId: string; child: ReturnType<typeof startCli>['child']; done: ReturnType<typeof startCli>['done'] }> {
      project = makeProject();
      const script = project.writeOutside('slow.toml', RESUMABLE_SCRIPT);
      const spec = cowSpec(`[parallel]
candidates = 1
[provider]
kind = "script"
script = ${JSON.stringify(script)}
[select]
merge = "none"
[sandbox]
mode = "off"`);
      const { child, done } = startCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, ownProcessGroup });
      let runId = '';
      await waitUntil(
        () => {
          runId = onlyRunId() ?? '';
          return runId !== '' && existsSync(join(project.worktreesDir, runId, '.cow', 'layers', 'c1', 'upper', 'wip.txt'));
        },
        'the agent wrote wip.txt into its layer',
        { attempts: 600 },
      );
      return { runId, child, done };
    }

    async function killedMidRun(): Promise<{ runId: string; worktree: string }> {
      const { runId, child, done } = await slowRunUnderWay();
      const key = readFileSync(join(runsDir(), runId, 'run-key'), 'utf8').trim();
      for (const pid of processesWithEnv('BESTOF_RUN_KEY', key)) seen.add(pid);
      child.kill('SIGKILL');
      await done;
      const worktree = join(project.worktreesDir, runId, 'c1');
      // The inner bestof died with the outer one (--pdeathsig): the run is not alive any more.
      await waitUntil(() => !runIsAlive(join(runsDir(), runId)), 'the inner bestof ended with the outer one', { attempts: 100 });
      // Outside the namespace: the mount point holds only git's link; the work is in the layer.
      expect(readdirSync(worktree)).toEqual(['.git']);
      expect(readFileSync(join(project.worktreesDir, runId, '.cow', 'layers', 'c1', 'upper', 'wip.txt'), 'utf8')).toBe('started\n');
      return { runId, worktree };
    }

    it('resume mounts the layer again: the agent finds its file, and the run ends with it committed', async () => {
      const { runId } = await killedMidRun();
      const resumed = await runCli(['resume', runId, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(resumed.stderr).not.toMatch(/cannot be used here/);
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(1); // no winner: the agent never fixes add()
      expect(git(project.repo.dir, 'show', `refs/bestof/${runId}/c1/kept:wip.txt`)).toBe('started\nresumed');
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
      expect(git(project.repo.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    });

    it('Ctrl-C (SIGINT to the outer bestof) cancels the run inside; resume makes the worktree again on the branch over a new base', async () => {
      const { runId, child, done } = await slowRunUnderWay();
      child.kill('SIGINT');
      const cancelled = await done;
      expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(130);
      // The work is committed and the worktree, its layer and the base are gone, as with plain worktrees.
      expect(git(project.repo.dir, 'show', `refs/bestof/${runId}/c1/kept:wip.txt`)).toBe('started');
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
      expect(existsSync(join(project.worktreesDir, runId, 'c1'))).toBe(false);

      const resumed = await runCli(['resume', runId, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(1); // no winner: the agent never fixes add()
      // The agent found its file from the branch (checked out over the base), not a bare base.
      expect(git(project.repo.dir, 'show', `refs/bestof/${runId}/c1/kept:wip.txt`)).toBe('started\nresumed');
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
    });

    it('SIGTERM to the whole process group (systemd stopping it, a CI runner cancelling the job) is one cancel, not a second signal that quits at once: the work is committed, exit 130', async () => {
      // The outer bestof passes its signal on, and the inner one gets the group's own: before, the two
      // read as "Ctrl-C twice" and it quit at once, leaving the work uncommitted in the layer.
      const { runId, child, done } = await slowRunUnderWay(true);
      process.kill(-(child.pid as number), 'SIGTERM');
      const cancelled = await done;
      expect(cancelled.stderr).not.toContain('bestof: quit at once');
      expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(130);
      expect(git(project.repo.dir, 'show', `refs/bestof/${runId}/c1/kept:wip.txt`)).toBe('started');
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
    });

    it('a cancel while the shared base is being checked out: exit 130, every candidate cancelled before it started, the base removed (not an internal error)', async () => {
      // Found by sending SIGTERM to the group at random instants: 3 times in 100 the base's git call
      // was aborted, and its AbortError ended bestof with exit 70 ("internal error"), no finish run.
      // Here git behind a wrapper holds the base's `worktree add --detach --lock` until the cancel.
      project = makeProject();
      const holding = join(project.outside, 'base-checkout-started');
      const bin = wrappedGitBin(project.outside, `case " $* " in *" --detach --lock "*) : > '${holding}'; sleep 30 ;; esac`);
      const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
      const spec = cowSpec(`[parallel]\ncandidates = 2\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[select]\nmerge = "none"`);
      const { child, done, ended } = startWithWrappedGit(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, bin });
      await waitUntil(() => existsSync(holding), 'the shared base checkout to start', { ended });
      process.kill(-(child.pid as number), 'SIGTERM');
      const cancelled = await done;

      expect(cancelled.stderr).not.toMatch(/internal error|AbortError/);
      expect(cancelled.code, cancelled.stdout + cancelled.stderr).toBe(130);
      const runId = onlyRunId() as string;
      const finished = events(runId).filter((e) => e.type === 'candidate.finished');
      expect(finished.map((e) => [e.candidate, e.reason])).toEqual([
        ['c1', 'cancelled'],
        ['c2', 'cancelled'],
      ]);
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
      expect(git(project.repo.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    });

    // Without the sandbox the finished candidate is scored again (the record is not trusted); with it, its
    // record stands and only the finish looks into its worktree, which must not look all-deleted then.
    it.each(['off', 'required'])(
      'resume mounts the layers of candidates that had finished too (sandbox %s): the finished one wins, nothing saved as left over',
      async (sandbox) => {
        project = makeProject();
        const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
        const slow = project.writeOutside('slow.toml', RESUMABLE_SCRIPT);
        const spec = cowSpec(`[parallel]
candidates = 2
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(fix)}
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(slow)}
[select]
merge = "none"
[sandbox]
mode = "${sandbox}"`);
        const { child, done } = startCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
        let runId = '';
        await waitUntil(
          () => {
            runId = onlyRunId() ?? '';
            return (
              runId !== '' &&
              existsSync(join(project.worktreesDir, runId, '.cow', 'layers', 'c2', 'upper', 'wip.txt')) &&
              events(runId).some((e) => e.type === 'candidate.finished' && e.candidate === 'c1')
            );
          },
          'c1 finished and c2 wrote wip.txt',
          { attempts: 600 },
        );
        child.kill('SIGKILL');
        await done;
        await waitUntil(() => !runIsAlive(join(runsDir(), runId)), 'the inner bestof ended with the outer one', { attempts: 100 });

        const resumed = await runCli(['resume', runId, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
        expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
        const log = events(runId);
        const finalC1 = log.filter((e) => e.type === 'candidate.scored' && e.candidate === 'c1').at(-1);
        expect(finalC1?.score).toBe(10);
        expect(log.some((e) => e.type === 'run.warning' && e.candidate === 'c1' && String(e.message).includes('no commit had'))).toBe(false);
        expect((log.findLast((e) => e.type === 'run.finished') as { winner?: string }).winner).toBe('c1');
        // Nothing saved as "work left in the worktree": c1's worktree was whole when the run ended.
        expect(() => git(project.repo.dir, 'rev-parse', '--verify', '--quiet', `refs/bestof/${runId}/c1/leftover`)).toThrow();
        expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
      },
    );

    it('clean removes a shared base that no layer lies on any more (a run killed while it removed its worktrees)', async () => {
      const { runId, worktree } = await killedMidRun();
      // What the finish phase had done before the kill: the candidate's worktree and layer gone, the base not yet.
      const layer = join(project.worktreesDir, runId, '.cow', 'layers', 'c1');
      execFileSync('sh', ['-c', `chmod -R u+rwx ${JSON.stringify(layer)} && rm -rf ${JSON.stringify(layer)}`]);
      execFileSync('git', ['worktree', 'remove', '--force', worktree], { cwd: project.repo.dir });
      expect(git(project.repo.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(2); // main and the base
      const cleaned = await runCli(['clean'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
      expect(cleaned.stdout).toMatch(/remove .*shared base checkout/);
      expect(git(project.repo.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
    });

    it('clean mounts the layer again, saves the uncommitted file at the kept ref, and removes layer and base', async () => {
      const { runId, worktree } = await killedMidRun();
      const cleaned = await runCli(['clean'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(cleaned.code).toBe(0);
      expect(cleaned.stdout).toMatch(/commit c1's uncommitted changes/);
      // Saved as the agent left it: one new file, every tracked file still there (not "all deleted").
      expect(git(project.repo.dir, 'show', `refs/bestof/${runId}/c1/kept:wip.txt`)).toBe('started');
      expect(git(project.repo.dir, 'show', `refs/bestof/${runId}/c1/kept:README.md`)).toBe('# project');
      expect(git(project.repo.dir, 'diff', '--name-status', 'HEAD', `refs/bestof/${runId}/c1/kept`)).toBe('A\twip.txt');
      expect(existsSync(worktree)).toBe(false);
      expect(existsSync(join(project.worktreesDir, runId, '.cow'))).toBe(false);
      expect(git(project.repo.dir, 'worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    });
  });
});
