/**
 * The embedded demo (configs/demo.toml) as a newcomer runs it, in a copy of the configs
 * inside a fresh temp repo so that the test never adds branches to this checkout.
 */
import { cpSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { makeTempRepo, tempRepos, type TempRepo } from '../helpers/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(() => repo?.cleanup());
const { tempDir } = tempRepos();

describe('the embedded demo', () => {
  it('the thorough candidate wins, the hasty one scores partly, the one that rewrites the tests gains nothing and is flagged', async () => {
    repo = makeTempRepo();
    cpSync(join(PROJECT_ROOT, 'configs'), join(repo.dir, 'configs'), { recursive: true });
    repo.commitAll('add the demo');
    const head = repo.git('rev-parse', 'HEAD');
    const result = await runCli(['run', 'configs/demo.toml'], { cwd: repo.dir, worktreesDir: join(tempDir(), 'worktrees') });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('c1 (thorough) won');
    const runsDir = join(repo.dir, '.bestof', 'runs');
    const report = JSON.parse(readFileSync(join(runsDir, readdirSync(runsDir)[0] as string, 'report.json'), 'utf8')) as {
      winner: string;
      candidates: { id: string; label: string; score: number; tampered: boolean; branch: string; costUsd: number }[];
    };
    expect(report.candidates.map((c) => [c.label, c.score, c.tampered])).toEqual([
      ['thorough', 100, false],
      ['hasty', 40, false],
      ['gamer', 0, true],
    ]);
    expect(report.candidates[0]?.costUsd).toBeCloseTo(0.021);
    // merge = "branch": the winner is left on its branch and the checkout is untouched.
    expect(repo.git('rev-parse', 'HEAD')).toBe(head);
    expect(repo.git('status', '--porcelain')).toBe('');
    expect(repo.git('show', `${report.candidates[0]?.branch}:configs/demo/slugify.mjs`)).toContain("normalize('NFKD')");
  });
});
