/**
 * Ctrl-C in the middle of a run: every agent's process tree stops, what each candidate had
 * written is committed and kept under refs/bestof, the run is marked cancelled (exit 130),
 * and the repo is left consistent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startCli } from '../helpers/cli.js';
import { processesWithArg } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { ADD_CHECKS, FIXTURE_BIN, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

const SLOW_SCRIPT = `
[[steps]]
write = "work-in-progress.txt"
content = "half of the answer\\n"
[[steps]]
sleep = "120s"
`;

describe('cancel', () => {
  it('SIGINT mid-run keeps every candidate\'s work, stops every process tree, and exits 130', async () => {
    project = makeProject();
    const slow = project.writeOutside('slow.toml', SLOW_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[parallel]
candidates = 3
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(slow)}
[[parallel.providers]]
kind = "command"
command = ${JSON.stringify(join(FIXTURE_BIN, 'hang-agent'))}
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(slow)}
${ADD_CHECKS}`,
      ),
    );
    const headBefore = project.repo.git('rev-parse', 'HEAD');
    const { child, done } = startCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    const runDir = (): string | undefined => {
      const runs = join(project.repo.dir, '.bestof', 'runs');
      return existsSync(runs) ? readdirSync(runs)[0] : undefined;
    };
    await waitUntil(() => runDir() !== undefined, 'the run folder', { ended: () => ended });
    const runId = runDir() as string;
    const worktree = (id: string): string => join(project.worktreesDir, runId, id);
    await waitUntil(
      () =>
        existsSync(join(worktree('c1'), 'work-in-progress.txt')) &&
        existsSync(join(worktree('c2'), 'partial.txt')) &&
        existsSync(join(worktree('c2'), 'helper.pid')) &&
        existsSync(join(worktree('c3'), 'work-in-progress.txt')),
      'every candidate to have written something',
      { ended: () => ended },
    );
    // Found by its name: a PID written inside the sandbox is one of the sandbox's own namespace.
    const grandchild = `hang-agent-helper-${runId}-c2`;
    await waitUntil(() => processesWithArg(grandchild).length === 1, 'the helper to run', { ended: () => ended });
    child.kill('SIGINT');
    const result = await done;

    expect(result.stdout + result.stderr).toContain('run cancelled');
    expect(result.code).toBe(130);
    expect(result.stdout).toContain('run cancelled');
    for (const [id, file] of [['c1', 'work-in-progress.txt'], ['c2', 'partial.txt'], ['c3', 'work-in-progress.txt']] as const) {
      expect(project.repo.git('cat-file', '-t', `refs/bestof/${runId}/${id}/kept:${file}`)).toBe('blob');
    }
    await waitUntil(() => processesWithArg(grandchild).length === 0, `grandchild ${grandchild} to be gone`);
    const state = JSON.parse(readFileSync(join(project.repo.dir, '.bestof', 'runs', runId, 'state.json'), 'utf8'));
    expect(state.status).toBe('cancelled');
    expect(Object.values(state.candidates).map((c) => (c as { status: string }).status)).toEqual(['cancelled', 'cancelled', 'cancelled']);
    // The repo is consistent: checkout untouched, no worktree left, nothing half-merged.
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(headBefore);
    expect(project.repo.git('status', '--porcelain')).toBe('');
    expect(project.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
  });
});
