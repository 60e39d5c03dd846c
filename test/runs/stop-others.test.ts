/**
 * `[select] stop_others` end to end (issue 48): three scripted candidates through the real binary in
 * a real repo. c1 reaches the threshold in iteration 1; c2 and c3 need three iterations. With
 * `"on_threshold"` they finish the step they are in and start no new one, their work kept on their
 * refs, and every report says how many agent calls that spared; with `"never"` (the default) all
 * three iterate as before.
 *
 * No timing: the scripted agents wait on the run's own event log (the sandbox is off so they can
 * read it). c1 works only once c2 and c3 are inside their iteration 1, so they are mid-step when c1
 * ends; c2 and c3 end their iteration 1 only once the run has said whom it stops (with the key) or
 * once c1 has finished (without it), so that without the key they are known to go on after c1.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';
import type { ReportJson } from '../helpers/run-record.js';

let project: Project;
afterEach(() => {
  if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
});

type Report = ReportJson & {
  stoppedOthers: { candidate: string; score: number; stopped: string[]; callsNotMade: number } | null;
};

const CHECKS = `
[[checks.items]]
name = "step1"
command = "grep -qx step1 steps.txt"
score = 10
[[checks.items]]
name = "step2"
command = "grep -qx step2 steps.txt"
score = 10
[[checks.items]]
name = "step3"
command = "grep -qx step3 steps.txt"
score = 10
`;

/** A step that waits (at most a minute, then goes on: the test then fails on what it sees) until the run's event log holds `needle`. */
function waitForEvent(repoDir: string, needles: readonly string[]): string {
  const log = `${repoDir}/.bestof/runs/$BESTOF_RUN/events.jsonl`;
  const all = needles.map((n) => `grep -qF '${n}' "${log}"`).join(' && ');
  return `[[iterations.steps]]\nrun = ${JSON.stringify(`for i in $(seq 600); do if ${all}; then exit 0; fi; sleep 0.1; done; exit 0`)}\n`;
}

function writeSteps(count: number): string {
  const lines = Array.from({ length: count }, (_, i) => `step${i + 1}`).join('\\n');
  return `[[iterations.steps]]\nwrite = "steps.txt"\ncontent = "${lines}\\n"\n`;
}

const running = (id: string) => `"type":"candidate.status","candidate":"${id}","status":"running"`;

/** c1: once the others are in their iteration 1, the whole task at once. */
function fastScript(repoDir: string, others: readonly string[]): string {
  return `[[iterations]]\n${waitForEvent(repoDir, others.map(running))}${writeSteps(3)}`;
}

/** c2, c3: one step per iteration; iteration 1 ends only after `needle` is in the log. */
function slowScript(repoDir: string, needle: string): string {
  return `[[iterations]]\n${waitForEvent(repoDir, [needle])}${writeSteps(1)}[[iterations]]\n${writeSteps(2)}[[iterations]]\n${writeSteps(3)}`;
}

/** c1 as above, and it also rewrites the frozen test: it reaches the threshold (the checks run on base's test) but cannot win. */
function cheatingScript(repoDir: string, others: readonly string[]): string {
  return `${fastScript(repoDir, others)}[[iterations.steps]]\nwrite = "test/add.test.mjs"\ncontent = "// nothing to test\\n"\n`;
}

async function runRace(
  stopOthers: 'on_threshold' | undefined,
  options: { readonly c1Cheats?: boolean; readonly slow?: number } = {},
): Promise<{ report: Report; stderr: string; code: number | null }> {
  const dir = project.repo.dir;
  const others = Array.from({ length: options.slow ?? 2 }, (_, i) => `c${i + 2}`);
  const fast = project.writeOutside('fast.toml', options.c1Cheats ? cheatingScript(dir, others) : fastScript(dir, others));
  const needle = stopOthers && !options.c1Cheats ? '"type":"run.stopping_others"' : '"type":"candidate.finished","candidate":"c1"';
  const slow = project.writeOutside('slow.toml', slowScript(dir, needle));
  const providers = [fast, ...others.map(() => slow)].map((script) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(script)}\n`).join('');
  const spec = specToml(
    dir,
    `[loop]\nmax_iterations = 3\n\n[sandbox]\nmode = "off"\n\n${providers}\n[checks]\nfrozen = ["test/**"]\n${CHECKS}\n[select]\nmerge = "branch"\n${stopOthers ? `stop_others = "${stopOthers}"\n` : ''}`,
  );
  const result = await runCli(['run', project.writeOutside('spec.toml', spec), '--json'], { cwd: dir, worktreesDir: project.worktreesDir });
  return { report: JSON.parse(result.stdout) as Report, stderr: result.stderr, code: result.code };
}

function runDir(report: Report): string {
  return join(project.repo.dir, '.bestof', 'runs', report.runId);
}

const summary = (report: Report) => report.candidates.map((c) => [c.id, c.status, c.reason, c.iterations]);

describe('[select] stop_others', () => {
  it('"on_threshold": once c1 reaches the threshold the others stop after their current step, their work kept, and the reports say what it saved', async () => {
    project = makeProject();
    const { report, stderr, code } = await runRace('on_threshold');
    expect(code, stderr).toBe(0);
    expect(summary(report)).toEqual([
      ['c1', 'done', 'threshold_reached', 1],
      ['c2', 'stopped', 'other_reached_threshold', 1],
      ['c3', 'stopped', 'other_reached_threshold', 1],
    ]);
    expect(report.winner).toBe('c1');
    for (const c of report.candidates.slice(1)) {
      expect(c.message).toContain('stopped: c1 reached the threshold (30 points) and select.stop_others = "on_threshold"');
      // Their step was committed and is kept where every stopped candidate's work is.
      expect(c.commit).not.toBeNull();
      expect(project.repo.git('rev-parse', c.ref)).toBe(c.commit);
      expect(project.repo.git('show', `${c.ref}:steps.txt`)).toBe('step1');
    }
    // Each stopped candidate had 2 of its 3 iterations left.
    expect(report.stoppedOthers).toEqual({ candidate: 'c1', score: 30, stopped: ['c2', 'c3'], callsNotMade: 4 });
    expect(stderr).toContain('c1 reached the threshold with 30 points and can win: c2, c3 finish their current step and start no new iteration');

    const words =
      'c1 reached the threshold first (30 points, select.stop_others = "on_threshold"): c2 and c3 were stopped after their current step; up to 4 agent calls not made';
    const dir = runDir(report);
    expect(readFileSync(join(dir, 'report.md'), 'utf8')).toContain(`- stopped early: ${words}`);
    expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('up to 4 agent calls not made');
    expect(JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8')).stoppingOthers).toEqual({ candidate: 'c1', score: 30, stopping: ['c2', 'c3'] });
    const shown = await runCli(['show', report.runId, '--no-tui'], { cwd: project.repo.dir });
    expect(shown.stdout).toContain(words);
    expect(shown.stdout).toMatch(/\| c2 .*\| stopped \(other_reached_threshold\) \| .*stopped: c1 reached the threshold/);
  });

  it('"never" (the default): every candidate runs its loop to its end, as before', async () => {
    project = makeProject();
    const { report, stderr, code } = await runRace(undefined);
    expect(code, stderr).toBe(0);
    expect(summary(report)).toEqual([
      ['c1', 'done', 'threshold_reached', 1],
      ['c2', 'done', 'threshold_reached', 3],
      ['c3', 'done', 'threshold_reached', 3],
    ]);
    expect(report.stoppedOthers).toBeNull();
    expect(readFileSync(join(runDir(report), 'report.md'), 'utf8')).not.toContain('stopped early');
    expect(readdirSync(join(project.repo.dir, '.bestof', 'runs'))).toHaveLength(1);
  });

  it('a candidate that reaches the threshold but cannot win (it changed a frozen test) stops no one', async () => {
    project = makeProject();
    // One honest rival only: two would race each other to the threshold.
    const { report, stderr, code } = await runRace('on_threshold', { c1Cheats: true, slow: 1 });
    expect(code, stderr).toBe(0);
    expect(summary(report)).toEqual([
      ['c1', 'done', 'threshold_reached', 1],
      ['c2', 'done', 'threshold_reached', 3],
    ]);
    expect(report.candidates[0]?.tampered).toBe(true);
    expect(report.stoppedOthers).toBeNull();
    expect(report.winner).toBe('c2');
  });

  it('a bad value names the key, the value and the values it takes, and exits 2', async () => {
    project = makeProject();
    const spec = specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = "x.toml"\n[select]\nstop_others = "always"\n`);
    const result = await runCli(['validate', project.writeOutside('spec.toml', spec)], { cwd: project.repo.dir });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('select.stop_others');
    expect(result.stderr).toContain('expected one of "on_threshold", "never", got "always"');
  });
});
