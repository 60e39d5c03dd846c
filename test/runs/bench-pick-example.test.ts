/**
 * The offline example of the pick against an oracle (configs/bench/pick/bench.toml), run by the
 * real `bestof bench`: two tasks, three scripted candidates per trial, a scripted tester, a hidden
 * oracle per task. Every figure of its bench.md is worked by hand here.
 *
 * Per trial one candidate of three passes the oracle. median: the tie-break (equal costs, then
 * the smallest diff) picks c1, which is wrong on an even count; the distinguishing tests pick c2,
 * the right one. clamp: c1 is right and the smallest diff; both pick it. 2 trials per task.
 *
 * Wilson 95% (z = 1.96, z^2 = 3.8416), center (p + z^2/2n) / (1 + z^2/n), half-width
 * z sqrt(p(1 - p)/n + z^2/4n^2) / (1 + z^2/n):
 *   random   4 of 12 candidates: p = 1/3, z^2/n = 0.3201; center (0.3333 + 0.1601) / 1.3201 = 0.3738,
 *            half 1.96 x sqrt(0.018519 + 0.006669) / 1.3201 = 0.2356: [13.8%, 60.9%]
 *   2 of 4   p = 0.5, z^2/n = 0.9604; center 0.5, half 1.96 x sqrt(0.0625 + 0.060025) / 1.9604 = 0.3500: [15.0%, 85.0%]
 *   4 of 4   center (1 + 0.4802) / 1.9604 = 0.7551, half 1.96 x sqrt(0.060025) / 1.9604 = 0.2449: [51.0%, 100.0%]
 * Paired, tie_break minus distinguish over the 4 trials: only the first right 0, only the second 2;
 * mean (0 - 2) / 4 = -0.5; variance (0 + 2) / 4 - 0.25 = 0.25; standard error sqrt(0.25 / 4) = 0.25;
 * -0.5 +- 1.96 x 0.25 = [-0.99, -0.01].
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchFile } from '../../src/bench/types.js';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

describe('configs/bench/pick/bench.toml: the pick against an oracle, offline', () => {
  it("shows the random pick below distinguish's, the tie-break picking the small wrong candidate, with the hand-worked intervals", async () => {
    const out = join(tempDir(), 'out');
    const result = await runCli(['bench', join(PROJECT_ROOT, 'configs/bench/pick/bench.toml'), '--out', out], {
      cwd: tempDir(),
      worktreesDir: join(tempDir(), 'worktrees'),
    });
    expect(result.code, result.stderr).toBe(0);
    const bench = JSON.parse(readFileSync(join(out, 'bench.json'), 'utf8')) as BenchFile;
    const picks = bench.records
      .map(
        (r) =>
          `${r.task}#${r.trial} ${r.oracle?.candidates
            .filter((c) => c.passed)
            .map((c) => c.candidate)
            .join(',')} ${r.oracle?.picks.map((p) => `${p.policy}=${p.candidate}${p.passes ? '✓' : '✗'}`).join(' ')}`,
      )
      .sort();
    expect(picks).toEqual([
      'clamp#1 c1 tie_break=c1✓ distinguish=c1✓',
      'clamp#2 c1 tie_break=c1✓ distinguish=c1✓',
      'median#1 c2 tie_break=c1✗ distinguish=c2✓',
      'median#2 c2 tie_break=c1✗ distinguish=c2✓',
    ]);
    const markdown = readFileSync(join(out, 'bench.md'), 'utf8');
    expect(markdown).toContain(
      '| scripted | tie_break | 4 | 33.3% (4/12 candidates) | [13.8%, 60.9%] | 50.0% (2/4) | [15.0%, 85.0%] | 100.0% (4/4) | [51.0%, 100.0%] | 0 |',
    );
    expect(markdown).toContain(
      '| scripted | distinguish | 4 | 33.3% (4/12 candidates) | [13.8%, 60.9%] | 100.0% (4/4) | [51.0%, 100.0%] | 100.0% (4/4) | [51.0%, 100.0%] | 0 |',
    );
    expect(markdown).toContain('| scripted | tie_break − distinguish | 4 | 0 / 2 | -50.0 pp | [-99.0 pp, -1.0 pp] |');
  });
});
