/**
 * A winner chosen in the compare view is recorded. The compare view's command (chooseWinner:
 * the engine's merge code on real git) appends winner.chosen to the finished run's
 * events.jsonl and rewrites state.json and the reports from the log, so that `bestof show`,
 * `bestof ls` and the reports name the winner the user chose, and say who chose it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { chooseWinner } from '../../src/cli/interactive-ui.js';
import { foldEventLog } from '../../src/report/event-log.js';
import { runCli } from '../helpers/cli.js';
import { onlyRunDir } from '../helpers/loop.js';
import { ADD_CHECKS, FIX_SCRIPT, IDLE_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { readEventLines, type ReportJson } from '../helpers/run-record.js';

let project: Project;
afterEach(() => project?.cleanup());

/** c1 fixes the code and wins; c2 only writes notes.txt (a commit, and no point). */
async function finishedRun(): Promise<string> {
  project = makeProject();
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
    ),
  );
  const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  expect(result.code).toBe(0);
  return onlyRunDir(project.repo.dir);
}

const cli = (args: string[]) => runCli(args, { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
const reportJson = (runDir: string): ReportJson & { winnerNote: string | null } => JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8'));

describe('a winner chosen in the compare view', () => {
  it('is appended to the event log, and state.json, the reports, `show` and `ls` name it', async () => {
    const runDir = await finishedRun();
    expect(reportJson(runDir).winner).toBe('c1');
    const before = await foldEventLog(runDir);

    const result = await chooseWinner(before, 'c2', 'squash', 'main');
    expect(result.ok).toBe(true);
    const head = project.repo.git('rev-parse', 'HEAD');
    expect(result.message).toContain(`into main (squash) as ${head.slice(0, 10)}`);

    const last = readEventLines(join(runDir, 'events.jsonl')).at(-1);
    expect(last).toMatchObject({ type: 'winner.chosen', candidate: 'c2', previous: 'c1', mode: 'squash', ok: true, commit: head, by: 'user' });
    expect(result.recorded).toEqual(last);

    const state = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8'));
    expect([state.winner, state.status, state.merge.candidate, state.chosen.previous]).toEqual(['c2', 'winner', 'c2', 'c1']);
    const report = reportJson(runDir);
    expect([report.winner, report.winnerNote, report.merge?.commit]).toEqual(['c2', 'chosen by you in the compare view, instead of c1', head]);
    const markdown = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(markdown).toMatch(/^- winner: \*\*c2\*\* \(.*\) — chosen by you in the compare view, instead of c1$/m);
    expect(markdown).toMatch(/^- merge \(squash\): done — merged .*c2/m);

    const listed = await cli(['ls']);
    expect(listed.stdout).toMatch(/ winner c2 /);
    const shown = await cli(['show', '--no-tui']);
    expect(shown.stdout).toContain('chosen by you in the compare view, instead of c1');
  });

  it('whose merge fails is recorded as an attempt: the run keeps its winner, and the report says so', async () => {
    const runDir = await finishedRun();
    const before = await foldEventLog(runDir);
    const head = project.repo.git('rev-parse', 'HEAD');
    // notes.txt, uncommitted in the checkout: a squash of c2 (which adds it) must not overwrite it.
    project.repo.write('notes.txt', 'my own notes\n');

    const result = await chooseWinner(before, 'c2', 'squash', 'main');
    expect(result.ok).toBe(false);
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(head);
    expect(readEventLines(join(runDir, 'events.jsonl')).at(-1)).toMatchObject({ type: 'winner.chosen', candidate: 'c2', previous: 'c1', ok: false });

    const report = reportJson(runDir);
    expect([report.winner, report.winnerNote, report.merge?.ok]).toEqual(['c1', null, true]);
    const markdown = readFileSync(join(runDir, 'report.md'), 'utf8');
    expect(markdown).toMatch(/^- chosen by you in the compare view: \*\*c2\*\* .*, but its merge \(squash\) was not done — .*; the winner is still c1$/m);
    expect((await cli(['ls'])).stdout).toMatch(/ winner c1 /);
  });
});
