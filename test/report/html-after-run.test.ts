/**
 * report.html after the run (src/report/after-run.ts): a winner chosen in the compare view
 * rewrites it with the new verdict; when it cannot be written, the stale page goes and the
 * record says why (a run warning), and the choice itself stays recorded.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { recordAfterRun } from '../../src/report/after-run.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { finishedRun, winnerChosen } from '../ui/scripted-runs.js';

const { repo, tempDir } = tempRepos();

/** A run folder whose log is finishedRun() played against a real repo. */
function runFolder(): string {
  const r = repo();
  const runDir = join(tempDir(), 'run');
  mkdirSync(runDir);
  const events = finishedRun().map((e): RunEvent => (e.type === 'run.started' ? { ...e, repo: r.dir, baseCommit: r.git('rev-parse', 'HEAD'), runDir } : e));
  writeFileSync(join(runDir, 'events.jsonl'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));
  writeFileSync(join(runDir, 'report.html'), 'the page of the run, naming c1');
  return runDir;
}

describe('report.html after a winner is chosen in the compare view', () => {
  it('is rewritten with the new verdict', async () => {
    const runDir = runFolder();
    const state = await recordAfterRun(runDir, winnerChosen());
    expect(state.winner).toBe('c2');
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(html).toContain('data-rule="chosen"');
    expect(html).toContain('c2 won: chosen by you in the compare view, instead of c1');
  });

  it('that cannot be written is removed, and the run records a warning that says how to write it again', async () => {
    const runDir = runFolder();
    // A folder where the page should be: writing it fails.
    const pathAsFolder = join(runDir, 'report.html');
    rmSync(pathAsFolder);
    mkdirSync(pathAsFolder);
    const state = await recordAfterRun(runDir, winnerChosen());
    expect(state.winner).toBe('c2');
    expect(existsSync(pathAsFolder)).toBe(false);
    expect(state.warnings.at(-1)).toMatch(/^report\.html of run r1 was not written to .*report\.html: EISDIR.*; `bestof show r1 --html` writes it again$/);
    expect(readFileSync(join(runDir, 'report.md'), 'utf8')).toContain('`bestof show r1 --html` writes it again');
  });
});
