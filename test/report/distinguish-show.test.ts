/**
 * `bestof show <run>` of a run with distinguishing tests, through the built binary: the run's
 * record is an event log in a real repo's run folder (the step's events as the engine writes them,
 * test/ui/distinguish-runs.ts), and show prints the decided sentence and the matrix from it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDirOf } from '../../src/engine/record/run-folder.js';
import { runCli } from '../helpers/cli.js';
import { makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { distinguishRun } from '../ui/distinguish-runs.js';

let repo: TempRepo;

beforeAll(() => {
  repo = makeTempRepo();
  const runDir = runDirOf(repo.dir, 'r1');
  mkdirSync(runDir, { recursive: true });
  const events = distinguishRun().map((e) => (e.type === 'run.started' ? { ...e, repo: repo.dir, runDir } : e));
  writeFileSync(`${runDir}/events.jsonl`, events.map((e) => `${JSON.stringify(e)}\n`).join(''));
});

afterAll(() => repo?.cleanup());

describe('bestof show of a run with distinguishing tests', () => {
  it('prints the decided sentence and the matrix (report.md), and the step in --json', async () => {
    const shown = await runCli(['show', 'r1', '--no-tui'], { cwd: repo.dir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('## Distinguishing tests\n\n**c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1**\n');
    expect(shown.stdout).toContain('| **c2** (winner) | pass | pass | timed out | FAIL | 2 of 2 |');
    const json = await runCli(['show', 'r1', '--json'], { cwd: repo.dir });
    expect(json.code, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toMatchObject({
      distinguish: { decided: 'c2 won: passed 2 of 2 distinguishing tests, c1 and c3 passed 1', order: ['c2', 'c1', 'c3'] },
      picks: { tie_break: 'c1', distinguish: 'c2' },
    });
  });
});
