/** progress.md's cost line: "–" for an agent that reports no cost (a command agent), never $0. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { appendProgress } from '../../src/engine/loop/progress.js';
import { candidateDir } from '../../src/engine/record/run-folder.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

describe('progress.md', () => {
  it('says "–" for a cost no agent reported, and the dollars of one that was', () => {
    const runDir = tempDir();
    const entry = { iteration: 1, score: 0, maxScore: 10, failedChecks: ['t'], outcome: 'success', costUsd: 0, totalCostUsd: 0 } as const;
    appendProgress(runDir, 'c1', { ...entry, costKnown: false });
    appendProgress(runDir, 'c2', { ...entry, iteration: 2, costUsd: 0.0123, totalCostUsd: 0.02 });
    expect(readFileSync(join(candidateDir(runDir, 'c1'), 'progress.md'), 'utf8')).toContain('- cost: – (this agent reports no cost)\n');
    expect(readFileSync(join(candidateDir(runDir, 'c1'), 'progress.md'), 'utf8')).not.toContain('$0');
    expect(readFileSync(join(candidateDir(runDir, 'c2'), 'progress.md'), 'utf8')).toContain('- cost: $0.0123 (candidate total $0.0200)\n');
  });
});
