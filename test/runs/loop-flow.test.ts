/**
 * The loop's flow through the real binary: the gap-file example with a reviewer, phases and
 * curriculum checks, the channel (send / stop), and resume after kill -9.
 */
import { cpSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, startCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { onlyRunDir, promptOf, readLoopReport, scoreScript, TEN_CHECKS } from '../helpers/loop.js';
import { makeProject, type Project } from '../helpers/project.js';
import { readEventLines, type EventLine } from '../helpers/run-record.js';

let project: Project;
afterEach(() => project?.cleanup());

function events(): EventLine[] {
  return readEventLines(join(onlyRunDir(project.repo.dir), 'events.jsonl'));
}

function writeSpec(scripts: readonly string[], body: string, checks = TEN_CHECKS): string {
  const providers = scripts
    .map((script, i) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside(`agent-${i + 1}.toml`, script))}\n`)
    .join('\n');
  return project.writeOutside(
    'spec.toml',
    `name = "flow"\nrepo = ${JSON.stringify(project.repo.dir)}\n[prompt]\ntext = "Make the checks pass."\n${body}\n${providers}\n[select]\nmerge = "branch"\n${checks}`,
  );
}

/**
 * TEN_CHECKS with `test/**` frozen and p10's check also rewriting the frozen test and putting its
 * bytes back, as a cheater's code would (the kept-files watch must see it); `extra` is appended to p10.
 */
function checksThatRewriteAFrozenTest(extra = ''): string {
  const rewrites = 'cp test/add.test.mjs "$HOME/saved" && echo gutted > test/add.test.mjs && cat "$HOME/saved" > test/add.test.mjs && test -f p10';
  const p10 = 'name = "p10"\ncommand = "test -f p10"\nscore = 10\n';
  // A TEN_CHECKS whose p10 reads otherwise would leave the checks honest, and the cases above vacuous.
  if (!TEN_CHECKS.includes(p10)) throw new Error("checksThatRewriteAFrozenTest: TEN_CHECKS's p10 check changed: update it");
  return `[checks]\nfrozen = ["test/**"]\n${TEN_CHECKS.replace(p10, `name = "p10"\ncommand = ${JSON.stringify(rewrites)}\nscore = 10\n${extra}`)}`;
}

describe('the gap-file loop (configs/examples/gap-loop.toml)', () => {
  it('keeps going while the reviewer refuses, even at full score, and stops when it says LGTM', async () => {
    project = makeProject();
    cpSync(join(PROJECT_ROOT, 'configs'), join(project.repo.dir, 'configs'), { recursive: true });
    project.repo.commitAll('add the examples');
    const result = await runCli(['run', 'configs/examples/gap-loop.toml'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code).toBe(0);
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    expect([c1?.reason, c1?.iterations, c1?.score]).toEqual(['threshold_reached', 3, 100]);
    expect(c1?.history.map((h) => [h.score, h.review?.verdict])).toEqual([
      [0, 'refuse'],
      [100, 'refuse'],
      [100, 'lgtm'],
    ]);
    const retry = readFileSync(join(PROJECT_ROOT, 'configs/examples/gap-loop/retry.md'), 'utf8').trimEnd();
    const third = promptOf(project.repo.dir, 'c1', 3);
    expect(third.startsWith(retry)).toBe(true);
    expect(third).toContain('The reviewer refused your previous attempt: the Retry-After section is a stub');
    expect(third).toContain('Output file: artifacts/draft.md');
    expect(project.repo.git('show', `${c1?.ref}:artifacts/draft.md`)).toContain('wait at least that long');
  });
});

describe('the review', () => {
  it('asks again once when the answer has no verdict line, then records no verdict; LGTM adds its points', async () => {
    project = makeProject();
    const reviewer = project.writeOutside(
      'reviewer.toml',
      '[[iterations]]\n[[iterations.steps]]\nsay = "Looks fine to me, LGTM overall."\n[[iterations]]\n[[iterations.steps]]\nsay = "Checked.\\nVERDICT: LGTM"\n',
    );
    const spec = writeSpec(
      [scoreScript([100, 100])],
      `[loop]\nmax_iterations = 2\n[review]\nkind = "script"\nscript = ${JSON.stringify(reviewer)}\nscore = 25\n`,
    );
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.stdout).toContain('c1 review: no verdict (the last line is not a verdict: "Looks fine to me, LGTM overall.")');
    expect(result.stdout).toContain('c1 review: LGTM (+25)');
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    // Iteration 1: 100 of 125 without a verdict; iteration 2: LGTM reaches the full 125.
    expect(c1?.history.map((h) => [h.score, h.review?.verdict])).toEqual([
      [100, 'none'],
      [125, 'lgtm'],
    ]);
    expect(c1?.reason).toBe('threshold_reached');
    const events = readFileSync(join(onlyRunDir(project.repo.dir), 'events.jsonl'), 'utf8');
    expect(events).toMatch(/"type":"review.finished","candidate":"c1","iteration":1,"verdict":"none".*"attempts":2/);
  });

  it("an iteration during whose checks a frozen file changed counts no point, the review's LGTM neither", async () => {
    project = makeProject();
    const reviewer = project.writeOutside('reviewer.toml', '[[iterations]]\n[[iterations.steps]]\nsay = "Fine.\\nVERDICT: LGTM"\n');
    const spec = writeSpec(
      [scoreScript([100])],
      `[loop]\nmax_iterations = 1\n[review]\nkind = "script"\nscript = ${JSON.stringify(reviewer)}\nscore = 25\n`,
      checksThatRewriteAFrozenTest(),
    );
    await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    expect(c1?.history.map((h) => [h.score, h.review?.verdict])).toEqual([[0, 'lgtm']]);
    expect(c1?.tamperedPaths.map((t) => t.path)).toEqual(['test/add.test.mjs']);
  });
});

describe('phases and curriculum', () => {
  it('runs the phases in order with their own prompt and ends a phase at its threshold; a later check counts from its iteration and in the final score', async () => {
    project = makeProject();
    const checks = `${TEN_CHECKS.replace('name = "p10"\ncommand = "test -f p10"\nscore = 10\n', 'name = "p10"\ncommand = "test -f p10"\nscore = 10\nfrom_iteration = 3\n')}`;
    const spec = writeSpec(
      [scoreScript([50, 90, 100])],
      `[loop]\nscore_threshold = 100\n[[prompts]]\nname = "draft"\ntext = "Get the basics right."\niterations = 3\nscore_threshold = 50\n[[prompts]]\nname = "finish"\ntext = "Finish everything."\niterations = 2\n`,
      checks,
    );
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code).toBe(0);
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    // Iteration 1 reaches the draft phase's 50 (p10 does not count yet), so iteration 2 is "finish".
    expect(c1?.history.map((h) => [h.phase, h.score])).toEqual([
      ['draft', 50],
      ['finish', 90],
      ['finish', 100],
    ]);
    expect(promptOf(project.repo.dir, 'c1', 1)).toContain('## Phase: draft\n\nGet the basics right.');
    expect(promptOf(project.repo.dir, 'c1', 2)).toContain('## Phase: finish\n\nFinish everything.');
    expect(c1?.reason).toBe('threshold_reached');
  });

  it('a check that only counts from a later iteration still counts in the final score', async () => {
    project = makeProject();
    const checks = `${TEN_CHECKS.replace('name = "p10"\ncommand = "test -f p10"\nscore = 10\n', 'name = "p10"\ncommand = "test -f p10"\nscore = 10\nfrom_iteration = 5\n')}`;
    const spec = writeSpec([scoreScript([100])], '[loop]\nmax_iterations = 2\nscore_threshold = 90\n', checks);
    await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    // Iteration 1 scores 90 (p10 not counted) and reaches the threshold; the final scoring counts p10.
    expect(c1?.history[0]?.score).toBe(90);
    expect([c1?.iterations, c1?.score]).toEqual([1, 100]);
  });

  it('a final scoring during which a frozen file changed counts no point and flags the candidate', async () => {
    project = makeProject();
    // The rewriting check counts from iteration 5: only the final scoring runs it.
    const spec = writeSpec([scoreScript([100])], '[loop]\nmax_iterations = 2\nscore_threshold = 90\n', checksThatRewriteAFrozenTest('from_iteration = 5\n'));
    await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    expect(c1?.history[0]?.score).toBe(90);
    expect(c1?.score).toBe(0);
    expect(c1?.tamperedPaths.map((t) => t.path)).toEqual(['test/add.test.mjs']);
  });
});

describe('the channel', () => {
  it('bestof send puts a message into the next prompt; bestof stop stops the candidate at the next boundary', async () => {
    project = makeProject();
    const slow = scoreScript([10, 20, 30, 40], {
      0: '[[iterations.steps]]\nsleep = "2s"\n',
      1: '[[iterations.steps]]\nsleep = "2s"\n',
      2: '[[iterations.steps]]\nsleep = "2s"\n',
      3: '[[iterations.steps]]\nsleep = "2s"\n',
    });
    const spec = writeSpec([slow], '[loop]\nmax_iterations = 4\n[breaker]\nsame_failure_iterations = 10\n');
    const { done } = startCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    const running = (iteration: number) => () => events().some((e) => e.type === 'candidate.status' && e.status === 'running' && e.iteration === iteration);
    await waitUntil(running(1), 'iteration 1', { ended: () => ended });
    const runId = onlyRunDir(project.repo.dir).split('/').pop() as string;
    const sent = await runCli(['send', runId, 'c1', 'Use tabs, not spaces.'], { cwd: project.repo.dir });
    expect(sent.stdout).toContain('sent to c1');
    await waitUntil(running(2), 'iteration 2', { ended: () => ended });
    const stopped = await runCli(['stop', runId, 'c1'], { cwd: project.repo.dir });
    expect(stopped.stdout).toContain('asked c1 to stop');
    const result = await done;
    expect(result.code).toBe(0);
    expect(promptOf(project.repo.dir, 'c1', 2)).toContain('Messages from the user:\n- Use tabs, not spaces.');
    const c1 = readLoopReport(project.repo.dir).candidates[0];
    expect([c1?.reason, c1?.status, c1?.iterations]).toEqual(['stopped_by_user', 'stopped', 2]);
  });
});

describe('resume', () => {
  it('after kill -9 mid-iteration, resume keeps every commit made before the kill and finishes with a winner; a second resume redoes nothing', async () => {
    project = makeProject();
    const slow = scoreScript([10, 20, 30, 40], {
      0: '[[iterations.steps]]\nsleep = "1s"\n',
      1: '[[iterations.steps]]\nsleep = "1s"\n',
      2: '[[iterations.steps]]\nsleep = "1s"\n',
      3: '[[iterations.steps]]\nsleep = "1s"\n',
    });
    const spec = writeSpec([slow, slow], '[loop]\nmax_iterations = 4\nscore_threshold = 40\n[breaker]\nsame_failure_iterations = 10\n');
    const { child, done } = startCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    await waitUntil(
      () =>
        events().some((e) => e.type === 'candidate.scored' && e.iteration === 2) &&
        events().some((e) => e.type === 'candidate.status' && e.status === 'running' && e.iteration === 3),
      'iteration 3 to start',
      { ended: () => ended },
    );
    child.kill('SIGKILL');
    await done;
    const runId = onlyRunDir(project.repo.dir).split('/').pop() as string;
    const before = ['c1', 'c2'].flatMap((id) => project.repo.git('rev-list', `refs/bestof/${runId}/${id}/kept`).split('\n'));
    expect(before.length).toBeGreaterThanOrEqual(4);

    const resumed = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(resumed.stdout + resumed.stderr).toContain('resuming c1, c2');
    expect(resumed.code).toBe(0);
    const report = readLoopReport(project.repo.dir);
    expect(report.status).toBe('winner');
    for (const c of report.candidates) {
      expect([c.reason, c.score]).toEqual(['threshold_reached', 40]);
      // Iterations 1 and 2 were not run again.
      expect(c.history.filter((h) => h.iteration <= 2).length).toBe(2);
    }
    for (const commit of before) {
      const kept = report.candidates.some((c) => {
        try {
          project.repo.git('merge-base', '--is-ancestor', commit, c.ref);
          return true;
        } catch {
          return false;
        }
      });
      expect(kept).toBe(true);
    }
    const eventCount = events().length;
    const again = await runCli(['resume', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(again.stdout).toContain('already finished');
    expect(again.code).toBe(0);
    expect(events().length).toBe(eventCount);
    expect(readdirSync(join(project.repo.dir, '.bestof', 'runs'))).toEqual([runId]);
  });
});
