/**
 * A file the commit step leaves out (larger than `[git] max_file_size`, or holding a secret) stays
 * on disk, but the checks score the commit: when the left-out file is a tracked one the agent
 * rewrote, the scoring tree puts the commit's version in its place for the checks (it skips that
 * reset only when the commit step left nothing out: src/engine/loop/commit-step.ts worktreeIsCommit).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project | undefined;
afterEach(() => project?.cleanup());

describe('a tracked file the commit leaves out', () => {
  it('is not what the checks see: they see the commit', async () => {
    project = makeProject();
    const big = 'x'.repeat(2048);
    const agent = `${FIX_SCRIPT}\n[[steps]]\nwrite = "README.md"\ncontent = "${big}\\n"\n`;
    const readmeCheck = `\n[[checks.items]]\nname = "readme"\ncommand = 'test "$(cat README.md)" = "# project"'\nscore = 10\ntimeout = "60s"\n`;
    const body = `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(project.writeOutside('agent.toml', agent))}\n${ADD_CHECKS}${readmeCheck}\n[git]\nmax_file_size = "1KB"\n\n[select]\nmerge = "branch"\n`;
    const result = await runCli(['run', project.writeOutside('spec.toml', specToml(project.repo.dir, body))], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
    });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toMatch(/README\.md/);
    const runs = join(project.repo.dir, '.bestof', 'runs');
    const report = JSON.parse(readFileSync(join(runs, readdirSync(runs)[0] as string, 'report.json'), 'utf8')) as {
      candidates: { id: string; score: number; commit: string }[];
    };
    expect(report.candidates.map((c) => [c.id, c.score])).toEqual([['c1', 20]]);
    expect(project.repo.git('show', `${report.candidates[0]?.commit}:README.md`)).toBe('# project');
  });
});
