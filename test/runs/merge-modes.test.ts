/**
 * What happens to the winner, per `[select] merge`, through the real binary and real git.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

async function runWithMerge(mode: string, extra = '', env: Record<string, string> = {}) {
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "${mode}"\n${extra}`,
    ),
  );
  return runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env });
}

function report(): {
  merge: { ok: boolean; message: string; commit?: string } | null;
  winner: string | null;
  candidates: { branch: string; commit: string }[];
} {
  const runsDir = join(project.repo.dir, '.bestof', 'runs');
  return JSON.parse(readFileSync(join(runsDir, readdirSync(runsDir)[0] as string, 'report.json'), 'utf8'));
}

describe('[select] merge', () => {
  it('merge: a merge commit on the checked-out branch', async () => {
    project = makeProject();
    const before = project.repo.git('rev-parse', 'HEAD');
    const result = await runWithMerge('merge');
    expect(result.code).toBe(0);
    expect(project.repo.git('rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(3);
    expect(project.repo.git('rev-parse', 'HEAD^1')).toBe(before);
    expect(readFileSync(join(project.repo.dir, 'src/add.mjs'), 'utf8')).toContain('a + b');
    expect(project.repo.git('status', '--porcelain')).toBe('');
    expect(report().merge?.ok).toBe(true);
  });

  it('squash: one new commit with a single parent', async () => {
    project = makeProject();
    const before = project.repo.git('rev-parse', 'HEAD');
    expect((await runWithMerge('squash')).code).toBe(0);
    expect(project.repo.git('rev-parse', 'HEAD^')).toBe(before);
    expect(project.repo.git('rev-list', '--parents', '-n', '1', 'HEAD').split(' ')).toHaveLength(2);
    expect(project.repo.git('show', 'HEAD:src/add.mjs')).toContain('a + b');
  });

  it("ff: the branch moves to the winner's commit", async () => {
    project = makeProject();
    expect((await runWithMerge('ff')).code).toBe(0);
    const winner = report().candidates[0];
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(winner?.commit);
  });

  it("branch and none: the checkout does not move, the winner's branch stays", async () => {
    for (const mode of ['branch', 'none']) {
      project = makeProject();
      const before = project.repo.git('rev-parse', 'HEAD');
      const result = await runWithMerge(mode);
      expect(result.code).toBe(0);
      expect(project.repo.git('rev-parse', 'HEAD')).toBe(before);
      const winner = report().candidates[0];
      expect(project.repo.git('rev-parse', winner?.branch as string)).toBe(winner?.commit);
      project.cleanup();
    }
  });

  it("refuses to merge into a dirty checkout, touches nothing, leaves the winner's branch and exits 3", async () => {
    project = makeProject();
    const before = project.repo.git('rev-parse', 'HEAD');
    project.repo.write('README.md', '# my own unsaved edit\n');
    const result = await runWithMerge('merge');
    expect(result.code).toBe(3);
    expect(result.stdout).toMatch(/merge NOT done \(merge\): .*README\.md/);
    expect(result.stdout).toContain('won, but the merge did not happen');
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(before);
    expect(readFileSync(join(project.repo.dir, 'README.md'), 'utf8')).toBe('# my own unsaved edit\n');
    const winner = report().candidates[0];
    expect(project.repo.git('rev-parse', winner?.branch as string)).toBe(winner?.commit);
    expect(report().merge?.ok).toBe(false);
  });

  it('pr: when the pull request fails at the end (gh logged in, origin there), the run says why and keeps the branch', async () => {
    project = makeProject();
    // validate's checks pass (src/engine/plan/merge-preflight.ts: gh on PATH and logged in, an origin);
    // the pull request itself fails at the end: exit 3, the winner's branch pushed and kept.
    const origin = join(project.writeOutside('origin/.keep', ''), '..', 'repo.git');
    execFileSync('git', ['init', '--quiet', '--bare', origin]);
    project.repo.git('remote', 'add', 'origin', origin);
    const gh = project.writeOutside(
      'bin/gh',
      '#!/bin/sh\nif [ "$1" = auth ]; then exit 0; fi\necho "GraphQL: could not create the pull request" >&2\nexit 1\n',
    );
    execFileSync('chmod', ['+x', gh]);
    const result = await runWithMerge('pr', '', { PATH: `${join(gh, '..')}:${process.env.PATH ?? ''}` });
    expect(result.code, result.stdout + result.stderr).toBe(3);
    expect(result.stdout).toContain('gh pr create failed: GraphQL: could not create the pull request');
    const winner = report().candidates[0];
    expect(project.repo.git('rev-parse', winner?.branch as string)).toBe(winner?.commit);
    expect(execFileSync('git', ['--git-dir', origin, 'rev-parse', winner?.branch as string], { encoding: 'utf8' }).trim()).toBe(winner?.commit);
  });

  it('refuses a spec whose `into` is not the checked-out branch before creating anything', async () => {
    project = makeProject();
    const result = await runWithMerge('merge', 'into = "release"\n');
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('select.into: "release" is not the checked-out branch');
    expect(project.repo.git('branch', '--list')).toBe('* main');
  });
});

describe('a run killed during or after its merge, then resumed, never merges twice', () => {
  /** The run's event log cut right after its last event of `type` (what a kill -9 at that instant leaves), and its liveness mark of a dead process. */
  function cutLogAfter(type: string): string {
    const runsDir = join(project.repo.dir, '.bestof', 'runs');
    const runId = readdirSync(runsDir)[0] as string;
    const log = join(runsDir, runId, 'events.jsonl');
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    const last = lines.map((l) => (JSON.parse(l) as { type: string }).type).lastIndexOf(type);
    expect(last).toBeGreaterThan(0);
    writeFileSync(log, `${lines.slice(0, last + 1).join('\n')}\n`);
    rmSync(join(runsDir, runId, 'state.json'), { force: true });
    rmSync(join(runsDir, runId, 'report.json'), { force: true });
    return runId;
  }

  for (const mode of ['squash', 'merge']) {
    it(`${mode}: killed after git merged but before merge.finished was written: resume records the merge and exits 0`, async () => {
      project = makeProject();
      const before = project.repo.git('rev-parse', 'HEAD');
      expect((await runWithMerge(mode)).code).toBe(0);
      const merged = project.repo.git('rev-parse', 'HEAD');
      const runId = cutLogAfter('merge.started');
      const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(resumed.code).toBe(0);
      expect(resumed.stdout).toContain('before the run was interrupted; not merged again');
      expect(project.repo.git('rev-parse', 'HEAD')).toBe(merged);
      expect(project.repo.git('rev-list', '--count', `${before}..HEAD`)).toBe(mode === 'squash' ? '1' : '2');
      expect(report().merge).toMatchObject({ ok: true, commit: merged });
      expect(project.repo.git('status', '--porcelain')).toBe('');
    });
  }

  for (const [mode, hook] of [
    ['squash', 'pre-commit'],
    ['merge', 'pre-merge-commit'],
  ] as const) {
    it(`${mode}: killed half-way through git's merge (the checkout written, the branch not moved): resume undoes it, merges once and exits 0`, async () => {
      project = makeProject();
      const before = project.repo.git('rev-parse', 'HEAD');
      // The user's hook runs inside bestof's merge (a merge into the user's branch runs them): once,
      // it kills bestof (the parent of its git) with SIGKILL and fails, which leaves git's merge half-made.
      writeFileSync(join(project.repo.dir, '.git', 'hooks', hook), `#!/bin/sh\nrm -f "$0"\nkill -9 "$(cut -d' ' -f4 /proc/$PPID/stat)"\nexit 1\n`, {
        mode: 0o755,
      });
      const first = await runWithMerge(mode);
      expect(first.signal, first.stdout + first.stderr).toBe('SIGKILL');
      expect(project.repo.git('rev-parse', 'HEAD')).toBe(before);
      expect(project.repo.git('status', '--porcelain')).not.toBe('');
      const runId = readdirSync(join(project.repo.dir, '.bestof', 'runs'))[0] as string;
      const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(resumed.code, resumed.stdout + resumed.stderr).toBe(0);
      expect(resumed.stdout + resumed.stderr).toContain(
        `into main was cut off half-way when the run was interrupted (your checkout held it, main had not moved); bestof undid it with \`git reset --merge\` and merges again`,
      );
      expect(project.repo.git('rev-list', '--count', `${before}..HEAD`)).toBe(mode === 'squash' ? '1' : '2');
      expect(project.repo.git('show', 'HEAD:src/add.mjs')).toContain('a + b');
      expect(report().merge).toMatchObject({ ok: true });
      expect(project.repo.git('status', '--porcelain')).toBe('');
    });
  }

  it('killed after merge.finished was written: resume does not touch the branch and closes as the run did', async () => {
    project = makeProject();
    expect((await runWithMerge('squash')).code).toBe(0);
    const merged = project.repo.git('rev-parse', 'HEAD');
    const runId = cutLogAfter('merge.finished');
    const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(resumed.code).toBe(0);
    expect(resumed.stdout).not.toContain('merge NOT done');
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(merged);
  });

  it('killed after merge.started but before git merged: resume merges once', async () => {
    project = makeProject();
    const before = project.repo.git('rev-parse', 'HEAD');
    expect((await runWithMerge('squash')).code).toBe(0);
    const runId = cutLogAfter('merge.started');
    project.repo.git('reset', '--quiet', '--hard', before); // as if the kill came before git made the squash
    const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(resumed.code).toBe(0);
    expect(project.repo.git('rev-list', '--count', `${before}..HEAD`)).toBe('1');
    expect(project.repo.git('show', 'HEAD:src/add.mjs')).toContain('a + b');
  });
});

describe('two runs merging into one checkout at once', () => {
  it('3 pairs of concurrent runs: both merges land every time, exit 0, and the checkout stays clean', async () => {
    project = makeProject();
    const spec = (name: string): string => {
      // Each run fixes add() (already fixed after the first pair) and adds a file of its own, so that
      // every run has work to merge and the two never conflict.
      const script = project.writeOutside(`${name}.script.toml`, `${FIX_SCRIPT}\n[[steps]]\nwrite = "${name}.txt"\ncontent = "${name}\\n"\n`);
      return project.writeOutside(
        `${name}.toml`,
        specToml(
          project.repo.dir,
          `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(script)}\n${ADD_CHECKS}\n[select]\nmerge = "merge"\n`,
        ),
      );
    };
    for (let pair = 0; pair < 3; pair++) {
      const before = project.repo.git('rev-parse', 'HEAD');
      const specs = [spec(`a${pair}`), spec(`b${pair}`)];
      const results = await Promise.all(specs.map((s) => runCli(['run', s], { cwd: project.repo.dir, worktreesDir: project.worktreesDir })));
      expect(
        results.map((r) => r.code),
        results.map((r) => r.stdout + r.stderr).join('\n'),
      ).toEqual([0, 0]);
      // Two merge commits on top of `before`, one per run, and both runs' files.
      expect(project.repo.git('rev-list', '--merges', '--count', `${before}..HEAD`)).toBe('2');
      expect(project.repo.git('ls-tree', '--name-only', 'HEAD')).toMatch(new RegExp(`a${pair}\\.txt[\\s\\S]*b${pair}\\.txt`));
      expect(project.repo.git('status', '--porcelain')).toBe('');
    }
  }, 240_000);
});
