/**
 * A worktree that holds work no commit has is never force-removed: at the end of a run its work is
 * saved in a commit of its own (refs/bestof/<run>/<candidate>/leftover) before the worktree goes,
 * and when even that fails the worktree stays and the run ends `incomplete` (exit 4).
 * Real binary, real git, an agent (the `command` provider) that leaves git unable to commit.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

function report(): { runId: string; candidates: { id: string; worktree: string; ref: string; reason: string }[]; warnings: string[] } {
  const runsDir = join(project.repo.dir, '.bestof', 'runs');
  return JSON.parse(readFileSync(join(runsDir, readdirSync(runsDir)[0] as string, 'report.json'), 'utf8'));
}

async function runWithAgent(agentScript: string) {
  const agent = project.writeOutside('bin/agent', `#!/bin/bash\nset -e\n${agentScript}\n`);
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const spec = project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      `[sandbox]\nmode = "off"\n[[parallel.providers]]\nkind = "command"\ncommand = "bash"\nargs = [${JSON.stringify(agent)}]\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
    ),
  );
  return runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
}

describe('work that could not be committed', () => {
  it('a stale index.lock in the worktree: the agent\'s file is saved at the leftover ref before the worktree is removed', async () => {
    project = makeProject();
    // The agent writes its work, then leaves a lock that makes every `git add` in its worktree fail.
    const result = await runWithAgent('echo "precious work" > notes.txt\ntouch "$(git rev-parse --git-dir)/index.lock"');
    const r = report();
    const c1 = r.candidates.find((c) => c.id === 'c1');
    expect(c1?.reason).toBe('internal_error');
    const leftover = `refs/bestof/${r.runId}/c1/leftover`;
    expect(project.repo.git('show', `${leftover}:notes.txt`)).toBe('precious work');
    expect(r.warnings.join('\n')).toContain(`saved at ${leftover}`);
    expect(readdirSync(project.worktreesDir, { recursive: true }).some((p) => String(p).endsWith('notes.txt'))).toBe(false);
    expect(result.code).toBe(0); // c2 won; nothing was lost
  });
});
