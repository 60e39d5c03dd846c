/**
 * `bestof clean` after a run that left trouble behind: stale git locks, a worktree whose work
 * cannot be committed, a destroyed `.git` link, a half-made worktree. Nothing is lost, and what
 * cannot be saved is kept and said.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, IDLE_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

let project: Project;
const standIns: ChildProcess[] = [];
afterEach(() => {
  for (const child of standIns.splice(0)) child.kill('SIGKILL');
  project?.cleanup();
});

function cli(args: string[]) {
  return runCli(args, { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
}

/** A finished run whose two worktrees were kept (c1 fixes, c2 writes notes.txt); as a killed run leaves them. */
async function runWithWorktrees(): Promise<{ runId: string; c1: string; c2: string }> {
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n[git]\nkeep_worktrees = true\n`,
    ),
  );
  const result = await cli(['run', spec, '--json']);
  expect(result.code, result.stderr).toBe(0);
  const { runId } = JSON.parse(result.stdout) as { runId: string };
  return { runId, c1: join(project.worktreesDir, runId, 'c1'), c2: join(project.worktreesDir, runId, 'c2') };
}

function worktreeCount(): number {
  return project.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)?.length ?? 0;
}

describe('bestof clean after a killed run', () => {
  it("removes the agents' and the checks' HOMEs and review exports a killed run left (copies of logins), never a running run's", async () => {
    project = makeProject();
    const { runId } = await runWithWorktrees();
    const runFolder = join(project.worktreesDir, runId);
    const plant = (): string[] => {
      const login = join(runFolder, '.homes', 'c1', '.codex', 'auth.json');
      const exported = join(runFolder, '.review', 'c2', 'src', 'add.js');
      // A scoring's HOME for the checks, which a kill -9 during the checks leaves (src/engine/scoring/score.ts).
      const checkHome = join(runFolder, '.homes', 'c2-checks-Ab12Cd', '.npmrc');
      for (const file of [login, exported, checkHome]) {
        mkdirSync(join(file, '..'), { recursive: true });
        writeFileSync(file, 'copied\n');
      }
      return [login, exported, checkHome];
    };
    // While the run is alive (its run.pid names a live process other than bestof clean): kept.
    const planted = plant();
    const alive = join(project.repo.dir, '.bestof', 'runs', runId, 'run.pid');
    writeFileSync(alive, `${process.pid}\n`);
    const whileAlive = await cli(['clean']);
    expect(whileAlive.code, whileAlive.stderr).toBe(0);
    expect(planted.every((file) => existsSync(file))).toBe(true);
    // Dead: --dry-run says so and removes nothing; clean removes both, and the run's folder with them.
    rmSync(alive);
    const dry = await cli(['clean', '--dry-run']);
    expect(dry.stdout).toContain(
      `remove what the agents of the interrupted run ${runId} left: ${runId}/.homes, ${runId}/.review (the agents' HOMEs, which hold copies of their logins, the checks' HOMEs and review exports; no candidate's work is there)`,
    );
    expect(planted.every((file) => existsSync(file))).toBe(true);
    const clean = await cli(['clean']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(clean.stdout).toContain(`remove what the agents of the interrupted run ${runId} left`);
    expect(existsSync(join(runFolder, '.homes')) || existsSync(join(runFolder, '.review'))).toBe(false);
    expect(existsSync(runFolder)).toBe(false);
  });

  it('clears a stale index.lock, commits the work left in the worktree and keeps it at the kept ref: exit 0', async () => {
    project = makeProject();
    const { runId, c2 } = await runWithWorktrees();
    writeFileSync(join(c2, 'late.txt'), 'written after the last commit\n');
    const lock = join(project.repo.dir, '.git', 'worktrees', 'c2', 'index.lock');
    writeFileSync(lock, '');

    const clean = await cli(['clean']);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain(`remove c2's git locks left by the dead run: ${lock}`);
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:late.txt`)).toBe('written after the last commit');
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:notes.txt`)).toBe('I looked at it.');
    expect(existsSync(c2)).toBe(false);
    expect(worktreeCount()).toBe(1);
  });

  it('keeps a worktree whose work cannot be committed, says where and why, and exits 1; the others are cleaned', async () => {
    project = makeProject();
    const { runId, c1, c2 } = await runWithWorktrees();
    const keptBefore = project.repo.git('rev-parse', `refs/bestof/${runId}/c2/kept`);
    writeFileSync(join(c2, 'late.txt'), 'must not be lost\n');
    // A repository inside the worktree: no commit can hold it (src/git/guards/escapes.ts), and the worktree must not go with it.
    mkdirSync(join(c2, 'vendor'));
    project.repo.git('-C', join(c2, 'vendor'), 'init', '--quiet');
    writeFileSync(join(c2, 'vendor', 'lib.txt'), 'x\n');

    const clean = await cli(['clean']);
    expect(clean.code).toBe(1);
    expect(clean.stderr).toContain(`keep worktree ${c2}: it holds what no commit can hold: vendor (a nested git repository)`);
    expect(clean.stderr).toMatch(/1 worktree was kept with work that could not be saved/);
    expect(existsSync(join(c2, 'late.txt'))).toBe(true);
    expect(existsSync(join(c2, 'vendor', 'lib.txt'))).toBe(true);
    // What a commit can hold is saved all the same, on top of the kept commit.
    const keptNow = project.repo.git('rev-parse', `refs/bestof/${runId}/c2/kept`);
    expect(project.repo.git('rev-parse', `${keptNow}^`)).toBe(keptBefore);
    expect(project.repo.git('show', `${keptNow}:late.txt`)).toBe('must not be lost');
    expect(project.repo.git('branch', '--list', `bestof/${runId}/c2`)).not.toBe('');
    // c1 was cleaned as usual.
    expect(existsSync(c1)).toBe(false);
    expect(worktreeCount()).toBe(2);

    // Fixed, a second clean saves it and removes the worktree.
    rmSync(join(c2, 'vendor'), { recursive: true });
    const again = await cli(['clean']);
    expect(again.code).toBe(0);
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:late.txt`)).toBe('must not be lost');
    expect(existsSync(c2)).toBe(false);
  });

  it('repairs a worktree whose .git file was deleted, then saves its work and removes it', async () => {
    project = makeProject();
    const { runId, c2 } = await runWithWorktrees();
    writeFileSync(join(c2, 'late.txt'), 'after the link was cut\n');
    rmSync(join(c2, '.git'));

    const clean = await cli(['clean']);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain("repair c2's worktree (its .git file is missing)");
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:late.txt`)).toBe('after the link was cut');
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:notes.txt`)).toBe('I looked at it.');
    expect(existsSync(c2)).toBe(false);
    expect(worktreeCount()).toBe(1);
  });

  it('removes a half-made worktree (its setup never completed) without committing anything of it, and the trash of a killed removal', async () => {
    project = makeProject();
    const { runId, c1, c2 } = await runWithWorktrees();
    const keptBefore = project.repo.git('rev-parse', `refs/bestof/${runId}/c2/kept`);
    // As a kill -9 during its checkout leaves it: a worktree never checked out, no setup mark.
    project.repo.git('worktree', 'remove', '--force', c2);
    project.repo.git('worktree', 'add', '--quiet', '--no-checkout', c2, `bestof/${runId}/c2`);
    rmSync(join(project.repo.dir, '.bestof', 'runs', runId, 'candidates', 'c2', 'setup-paths.json'));
    // And what a removal of c1 killed midway leaves: its folder renamed aside, half deleted.
    mkdirSync(join(`${c1}.removing`, 'src'), { recursive: true });
    // And the empty folder the candidates' leftovers waited in during the checks, which runs left
    // behind until 2026-12-05 (and so their whole folder under the worktrees root).
    mkdirSync(join(project.worktreesDir, runId, '.bestof-aside'), { recursive: true });

    const clean = await cli(['clean']);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    expect(clean.stdout).toContain(`remove ${c2}: c2's setup never completed, so no agent worked in it`);
    expect(clean.stdout).toContain(`remove ${c1}.removing (a removed worktree's files, left being deleted)`);
    expect(existsSync(c2)).toBe(false);
    // The run's folder under the worktrees root, empty now, goes too (they used to pile up).
    expect(existsSync(join(project.worktreesDir, runId))).toBe(false);
    expect(clean.stdout).toContain(`remove the empty folder ${join(project.worktreesDir, runId)}`);
    expect(project.repo.git('rev-parse', `refs/bestof/${runId}/c2/kept`)).toBe(keptBefore);
    expect(worktreeCount()).toBe(1);
  });

  it('waits for the git commands the dead run left working in its worktrees, all together, then saves what they wrote', async () => {
    project = makeProject();
    const { runId, c1, c2 } = await runWithWorktrees();
    // Stand-ins for a killed bestof's git still checking out (a program named `git`: /proc says so):
    // each writes a file into its worktree as it ends, 1.5 s from now.
    const bin = tempDir();
    writeFileSync(join(bin, 'git'), '#!/bin/sh\nsleep 1.5\necho "written by a git of the dead run" > "$2/late-by-git.txt"\n');
    chmodSync(join(bin, 'git'), 0o755);
    const exited: boolean[] = [];
    for (const [i, folder] of [c1, c2].entries()) {
      const child = spawn(join(bin, 'git'), ['-C', folder, 'reset', '--hard'], { cwd: project.repo.dir, stdio: 'ignore' });
      standIns.push(child);
      exited[i] = false;
      child.on('exit', () => (exited[i] = true));
      for (let tries = 0; tries < 200 && !readFileSync(`/proc/${child.pid}/comm`, 'utf8').startsWith('git'); tries++)
        await new Promise((resolve) => setTimeout(resolve, 10));
    }

    const clean = await cli(['clean']);
    expect(clean.stderr).toBe('');
    expect(clean.code).toBe(0);
    // Cleaned only once each git had ended: what they wrote is in the kept refs, the worktrees are gone.
    expect(exited).toEqual([true, true]);
    for (const id of ['c1', 'c2']) expect(project.repo.git('show', `refs/bestof/${runId}/${id}/kept:late-by-git.txt`)).toBe('written by a git of the dead run');
    expect(existsSync(c1) || existsSync(c2)).toBe(false);
  });
});

describe('a run stopped before its first event (kill -9, a full disk)', () => {
  /** A run folder as such a run leaves it: the spec's copy, the run's key, run.pid, no event log (or an empty one). */
  function unrecordedRun(runId: string, opts: { pid: number; ageMs: number; emptyLog?: boolean }): string {
    const dir = join(project.repo.dir, '.bestof', 'runs', runId);
    mkdirSync(join(dir, 'candidates'), { recursive: true });
    writeFileSync(join(dir, 'spec.toml'), '[prompt]\ntext = "x"\n');
    writeFileSync(join(dir, 'run-key'), 'k\n');
    writeFileSync(join(dir, 'run.pid'), `${opts.pid}\n`);
    if (opts.emptyLog) writeFileSync(join(dir, 'events.jsonl'), '');
    const then = new Date(Date.now() - opts.ageMs);
    utimesSync(dir, then, then);
    return dir;
  }

  it('ls names it, show and resume say it recorded nothing (exit 2), and clean deletes its folder, never a run starting now', async () => {
    project = makeProject();
    const dead = spawnSync('true').pid as number; // a pid no process has now
    const killed = unrecordedRun('20261205-000001-dead', { pid: dead, ageMs: 120_000 });
    const fullDisk = unrecordedRun('20261205-000002-full', { pid: dead, ageMs: 120_000, emptyLog: true });
    const starting = spawn('sleep', ['30']);
    standIns.push(starting);
    const young = unrecordedRun('20261205-000003-live', { pid: starting.pid as number, ageMs: 0 });

    const listed = await cli(['ls']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain('no runs yet');
    expect(listed.stdout).toMatch(/^20261205-000001-dead {2}recorded nothing: stopped before its first event/m);
    expect(listed.stdout).toMatch(/^20261205-000002-full {2}recorded nothing/m);
    expect(listed.stdout).toMatch(/^20261205-000003-live {2}starting$/m);

    for (const command of [
      ['show', 'dead', '--no-tui'],
      ['resume', '20261205-000002-full'],
    ]) {
      const said = await cli(command);
      expect(said.code, said.stdout + said.stderr).toBe(2);
      expect(said.stderr).toMatch(
        /run 20261205-00000[12]-(dead|full) recorded nothing: it was stopped before its first event .*`bestof clean` without a run id deletes its folder/,
      );
    }

    const dry = await cli(['clean', '--dry-run']);
    expect(dry.stdout).toContain(`would remove the run folder ${killed}: the run recorded nothing`);
    expect(dry.stdout).toContain(`would remove the run folder ${fullDisk}`);
    expect(dry.stdout).not.toContain(young);
    expect([killed, fullDisk, young].every((dir) => existsSync(dir))).toBe(true);

    const cleaned = await cli(['clean']);
    expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
    expect(existsSync(killed)).toBe(false);
    expect(existsSync(fullDisk)).toBe(false);
    expect(existsSync(young)).toBe(true);
  });
});
