/**
 * `bestof resume` after a run stopped while a candidate's checks ran: its agent had finished (with
 * real agents, paid for) and its work was committed, but not scored. The resumed run scores that
 * commit as that iteration and does not call the agent again; the agent logs each call to a file
 * outside the repo, so the test counts them. Two ways to stop: Ctrl-C (the run keeps the commit and
 * ends cancelled) and kill -9 of bestof from inside the check (the commit is on the candidate's
 * branch, not yet kept). Without the sandbox, so that the agent can write its log outside the repo.
 * On that normal path (Ctrl-C, then `bestof clean`, then resume) the resumed run says what it
 * makes again as setup's steps, never as warnings.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';
import type { ReportJson } from '../helpers/run-record.js';
import { waitUntil } from '../helpers/wait.js';

let project: Project;
afterEach(() => project?.cleanup());

/**
 * One candidate: its agent fixes add() and logs the call; its check, until `release` exists, says
 * it started and then waits (for a Ctrl-C) or kills bestof, its parent (kill -9); once released,
 * it runs the real test.
 */
function resumeProject(whenChecking: 'wait' | 'kill-9') {
  project = makeProject();
  const calls = project.writeOutside('calls.log', '');
  const checking = join(project.writeOutside('marks/.keep', ''), '..', 'checking');
  const release = join(checking, '..', 'release');
  const stall = whenChecking === 'wait' ? 'sleep 120' : 'kill -9 $PPID; sleep 10';
  const agent = `echo call >> ${JSON.stringify(calls)}; printf 'export const add = (a, b) => a + b;\\n' > src/add.mjs`;
  const check = `if [ ! -e ${JSON.stringify(release)} ]; then touch ${JSON.stringify(checking)}; ${stall}; fi; node --test test/add.test.mjs`;
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[parallel]
candidates = 1
[provider]
kind = "command"
command = "sh"
args = ["-c", ${JSON.stringify(agent)}]
[loop]
max_iterations = 3
[sandbox]
mode = "off"
[checks]
frozen = ["test/**"]
[[checks.items]]
name = "tests"
command = ${JSON.stringify(check)}
score = 100
[select]
merge = "none"
`,
    ),
  );
  return { spec, calls, checking, release };
}

async function resumeAndRead(p: ReturnType<typeof resumeProject>) {
  project.writeOutside('marks/release', '');
  const resumed = await runCli(['resume', '--no-tui', '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  const output = resumed.stdout + resumed.stderr;
  const report = JSON.parse(resumed.stdout) as ReportJson;
  return { resumed, output, report, calls: readFileSync(p.calls, 'utf8').split('\n').filter(Boolean).length };
}

describe('resume after a stop while the checks ran', () => {
  it('Ctrl-C: scores the committed iteration without calling its agent again', async () => {
    const p = resumeProject('wait');
    const { child, done } = startCli(['run', p.spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, ownProcessGroup: true });
    let ended: string | undefined;
    void done.then((result) => (ended = `exit ${result.code}: ${result.stdout}${result.stderr}`));
    await waitUntil(() => existsSync(p.checking), 'the check to start', { ended: () => ended });
    process.kill(-(child.pid as number), 'SIGINT');
    const first = await done;
    expect(first.code, first.stdout + first.stderr).toBe(130);
    expect(readFileSync(p.calls, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    // The user cleans up before resuming: the branch goes, the work stays under refs/bestof.
    const cleaned = await runCli(['clean'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(cleaned.stdout).toMatch(/^delete branch bestof\/[^/]+\/c1 \(kept at refs\/bestof\/[^)]+\/c1\/kept\)$/m);

    const { resumed, output, report, calls } = await resumeAndRead(p);
    expect(resumed.code, output).toBe(0);
    expect(calls, output).toBe(1);
    const c1 = report.candidates[0]!;
    expect(c1.score).toBe(100);
    expect(c1.iterations).toBe(1);
    expect(c1.history.map((it) => [it.iteration, it.score])).toEqual([[1, 100]]);
    expect(output).toContain('c1 | scoring iteration 1, committed before the run stopped: its agent is not called again for it');
    // The normal path: no warning, not even for the worktree the cancelled run removed.
    expect(output).not.toMatch(/^warning: c1/m);
    // What clean and the cancel removed comes back, said as setup's steps.
    expect(output).toMatch(/^c1 setup: branch bestof\/\S+\/c1 made again at its kept commit \(refs\/bestof\/\S+\/c1\/kept\)$/m);
    expect(output).toContain('c1 setup: worktree made again from bestof/');
  });

  it('kill -9 of bestof in the middle of the checks: the commit not yet kept is scored as that iteration', async () => {
    const p = resumeProject('kill-9');
    const first = await runCli(['run', p.spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(first.signal, first.stdout + first.stderr).toBe('SIGKILL');
    expect(existsSync(p.checking)).toBe(true);

    const { resumed, output, report, calls } = await resumeAndRead(p);
    expect(resumed.code, output).toBe(0);
    expect(calls, output).toBe(1);
    const c1 = report.candidates[0]!;
    expect(c1.score).toBe(100);
    expect(c1.history.map((it) => [it.iteration, it.score])).toEqual([[1, 100]]);
    // The scored commit is the agent's work, kept.
    expect(project.repo.git('show', `${c1.ref}:src/add.mjs`)).toContain('a + b');
  });
});
