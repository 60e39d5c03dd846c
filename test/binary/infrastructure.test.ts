/**
 * A candidate lost to a failure of git (not of the spec's setup, not of the candidate) is retried,
 * then reported as lost: the run merges nothing, says so in its closing line, and exits 4 rather
 * than crowning the next one (issue 9). The failure is injected at the edge: a `git` on PATH that
 * fails `git worktree add` for one candidate (the way git's worktree race fails it) and hands
 * every other call to the real git.
 */
import { chmodSync, readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

const REAL_GIT = execFileSync('which', ['git'], { encoding: 'utf8' }).trim();

/** A `git` that fails `worktree add` for c2 `failures` times (counted in a file), like git's own race does. */
function flakyGit(failures: number): string {
  const counter = project.writeOutside('git-failures', '0');
  const git = project.writeOutside(
    'fault-bin/git',
    `#!/bin/bash
if [[ " $* " == *" worktree add "* && " $* " == *"/c2 "* ]]; then
  n=$(cat ${JSON.stringify(counter)})
  if (( n < ${failures} )); then
    echo $((n + 1)) > ${JSON.stringify(counter)}
    echo "fatal: failed to read .git/worktrees/c2/commondir: Success" >&2
    exit 128
  fi
fi
exec ${JSON.stringify(REAL_GIT)} "$@"
`,
  );
  chmodSync(git, 0o755);
  return join(git, '..');
}

async function runTwo(faultBin: string, merge = 'merge') {
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[parallel]\ncandidates = 2\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "${merge}"\n`,
    ),
  );
  return runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { PATH: `${faultBin}:${process.env.PATH ?? ''}` } });
}

function report(): { status: string; winner: string | null; candidates: { id: string; reason: string }[] } {
  const runsDir = join(project.repo.dir, '.bestof', 'runs');
  return JSON.parse(readFileSync(join(runsDir, readdirSync(runsDir)[0] as string, 'report.json'), 'utf8'));
}

describe('a candidate lost to git during setup', () => {
  it('a failure that passes on retry loses nothing: both candidates run, the winner is merged', async () => {
    project = makeProject();
    const before = project.repo.git('rev-parse', 'HEAD');
    const result = await runTwo(flakyGit(2));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(readFileSync(join(project.outside, 'git-failures'), 'utf8').trim()).toBe('2'); // git did fail twice
    expect(report().candidates.map((c) => c.reason)).not.toContain('infrastructure_failed');
    expect(project.repo.git('rev-list', '--count', `${before}..HEAD`)).not.toBe('0');
  });

  it('a failure that persists: the candidate ends infrastructure_failed, nothing is merged, the run exits 4 and says why', async () => {
    project = makeProject();
    const before = project.repo.git('rev-parse', 'HEAD');
    const result = await runTwo(flakyGit(100));
    expect(result.code, result.stdout + result.stderr).toBe(4);
    const r = report();
    expect(r.candidates.find((c) => c.id === 'c2')?.reason).toBe('infrastructure_failed');
    expect(r.status).toBe('failed');
    expect(result.stdout).toMatch(/incomplete: c2 was lost during setup by a failure of git or bestof/);
    expect(result.stdout).toContain('c1 ranks first among the others');
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(before);
    expect(project.repo.git('status', '--porcelain')).toBe('');
  });
});

describe('a candidate stopped after its commit, before the commit is kept (an internal error, a cancel)', () => {
  /**
   * One fixing candidate, merge = "none", with a `git` on PATH that runs `onDetach` (bash) for the
   * detach of HEAD before the checks (`update-ref --no-deref HEAD`): the iteration's commit is made
   * then, and only its branch holds it (the kept ref comes after the scoring).
   */
  async function runWithDetach(onDetach: string): Promise<{ result: Awaited<ReturnType<typeof runCli>>; runId: string }> {
    const git = project.writeOutside(
      'fault-bin/git',
      `#!/bin/bash\nif [[ " $* " == *" update-ref --no-deref HEAD "* ]]; then\n${onDetach}\nfi\nexec ${JSON.stringify(REAL_GIT)} "$@"\n`,
    );
    chmodSync(git, 0o755);
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "none"\n`,
      ),
    );
    const result = await runCli(['run', spec], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
      env: { PATH: `${join(git, '..')}:${process.env.PATH ?? ''}` },
    });
    return { result, runId: readdirSync(join(project.repo.dir, '.bestof', 'runs'))[0] as string };
  }

  /** The commit on c1's branch is kept at its leftover ref, and the closing words say why it was never scored. */
  function expectLeftoverKept(stdout: string, runId: string, because: string): void {
    expect(stdout).toMatch(new RegExp(`c1: its last commit [0-9a-f]{10} was never scored \\(${because} first\\); kept at refs/bestof/${runId}/c1/leftover`));
    expect(project.repo.git('show', `refs/bestof/${runId}/c1/leftover:src/add.mjs`)).toContain('a + b');
    expect(project.repo.git('rev-parse', `refs/bestof/${runId}/c1/leftover`)).toBe(project.repo.git('rev-parse', `bestof/${runId}/c1`));
  }

  it('its commit is kept beside its kept ref (leftover, not scored), and the closing words say where', async () => {
    // git fails the detach.
    project = makeProject();
    const { result, runId } = await runWithDetach(`echo "fatal: cannot lock ref 'HEAD'" >&2; exit 128`);
    expect(result.code, result.stdout + result.stderr).toBe(1);
    expect(report().candidates.find((c) => c.id === 'c1')?.reason).toBe('internal_error');
    expect(result.stdout).toContain(`what it committed is kept under refs/bestof/${runId}/c1/`);
    expectLeftoverKept(result.stdout, runId, 'an internal error stopped it');
  });

  it('a cancel whose signal kills that git: the commit is kept beside the kept ref too, and the words say the run was cancelled first', async () => {
    // The detach sends bestof (its parent) a Ctrl-C and dies of SIGTERM, as a git in bestof's
    // process group does, the second time too: the candidate ends cancelled through that git's
    // failure (run/stages/candidates.ts), before anything kept its commit.
    project = makeProject();
    const sent = join(project.outside, 'ctrl-c-sent');
    const { result, runId } = await runWithDetach(`[ -e ${JSON.stringify(sent)} ] || { : > ${JSON.stringify(sent)}; kill -INT $PPID; }\nkill -TERM $$`);
    expect(result.code, result.stdout + result.stderr).toBe(130);
    expect(report().candidates.find((c) => c.id === 'c1')?.reason).toBe('cancelled');
    expectLeftoverKept(result.stdout, runId, 'the run was cancelled');
  });
});
