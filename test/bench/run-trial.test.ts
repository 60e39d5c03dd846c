/**
 * runTrial when the trial's `bestof run` leaves no report: the record says how that bestof ended
 * (exit code or signal) and its last words, also when the bench was cancelled, so that a missing
 * report is never silently put down to the cancel. The real binary, started by runTrial itself.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTrial, type TrialRun } from '../../src/bench/run-trial.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

/** A trial of a spec file that is not a spec (bestof refuses it with exit 2); only what runTrial reads before a report. */
function brokenTrial(signal: AbortSignal): TrialRun {
  const dir = tempDir();
  const specFile = join(dir, 'trial.toml');
  writeFileSync(specFile, 'this is = = not toml\n');
  return {
    cell: { task: 't1', agent: 'a', trial: 1 },
    agent: { id: 'a', kind: 'script' },
    specFile,
    cwd: dir,
    signal,
  } as unknown as TrialRun;
}

describe('runTrial without a report', () => {
  it('a refused spec: failed, "refused", with what bestof said', async () => {
    const record = await runTrial(brokenTrial(new AbortController().signal));
    expect(record.outcome).toEqual({ status: 'failed', reason: 'refused' });
    expect(record.infraReason).toContain('not a valid spec');
  });

  it('cancelled before bestof started: cancelled, and says so', async () => {
    const record = await runTrial(brokenTrial(AbortSignal.abort()));
    expect(record.outcome).toEqual({ status: 'cancelled', reason: 'cancelled' });
    expect(record.infraReason).toBe('cancelled before its run recorded anything (bestof was not started)');
  });

  it('cancelled while bestof ran: cancelled, with how it ended and what it said', async () => {
    const controller = new AbortController();
    // bestof refuses the spec and exits 2 within a second; the cancel comes in the middle or after.
    setTimeout(() => controller.abort(), 50);
    const record = await runTrial(brokenTrial(controller.signal));
    expect(record.outcome).toEqual({ status: 'cancelled', reason: 'cancelled' });
    expect(record.infraReason).toMatch(/^cancelled before its run recorded anything \(bestof (was ended by SIGTERM|exited with 2: .*not a valid spec)/);
  });
});
