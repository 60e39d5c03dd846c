/**
 * A worktree that holds work no commit has is never force-removed: at the end of a run its work is
 * saved in a commit of its own (refs/bestof/<run>/<candidate>/leftover) before the worktree goes,
 * and when even that fails the worktree stays and the run ends `incomplete` (exit 4).
 * Real binary, real git, an agent (the `command` provider) that leaves git unable to commit.
 */
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';

let project: Project;
let lib: TempRepo | undefined;
afterEach(() => {
  project?.cleanup();
  lib?.cleanup();
  lib = undefined;
});

function report(): {
  runId: string;
  candidates: { id: string; ref: string; reason: string }[];
  ranking: { candidate: string; reason?: string }[];
  warnings: string[];
} {
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
  it("a stale index.lock in the worktree: the agent's file is saved at the leftover ref before the worktree is removed", async () => {
    project = makeProject();
    // The agent writes its work, then leaves a lock that makes every `git add` in its worktree fail.
    const result = await runWithAgent('echo "precious work" > notes.txt\ntouch "$(git rev-parse --git-dir)/index.lock"');
    const r = report();
    const c1 = r.candidates.find((c) => c.id === 'c1');
    expect(c1?.reason).toBe('internal_error');
    // Not finally scored, so not set against c2, and the ranking says why (its diff was never counted: not "made no changes").
    expect(r.ranking.find((entry) => entry.candidate === 'c1')?.reason).toBe(
      'stopped by an internal error (of bestof or of git) before its final scoring (its work is kept)',
    );
    const leftover = `refs/bestof/${r.runId}/c1/leftover`;
    expect(project.repo.git('show', `${leftover}:notes.txt`)).toBe('precious work');
    expect(r.warnings.join('\n')).toContain(`saved at ${leftover}`);
    expect(readdirSync(project.worktreesDir, { recursive: true }).some((p) => String(p).endsWith('notes.txt'))).toBe(false);
    expect(result.code).toBe(0); // c2 won; nothing was lost
  });
});

describe('work inside a submodule', () => {
  it('is never deleted: the run keeps the worktree and says so, and `bestof clean` keeps it until the user has taken what they need', async () => {
    project = makeProject();
    lib = makeTempRepo({ 'lib.txt': 'library v1\n' });
    project.repo.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '--quiet', lib.dir, 'lib');
    project.repo.commitAll('add the lib submodule');
    // c1's agent works only inside the submodule: an edit, and a commit of its own there.
    const result = await runWithAgent(
      'echo "library v2" > lib/lib.txt\ngit -C lib -c user.name=A -c user.email=a@example.com commit --quiet -am inside\necho "more" >> lib/lib.txt',
    );
    const r = report();
    const c1 = { worktree: join(project.worktreesDir, r.runId, 'c1') };
    expect(result.code).toBe(0); // c2 won: the kept worktree changes no outcome
    expect(r.warnings.join('\n')).toContain(`its worktree ${c1.worktree} is kept: submodule lib holds edits or commits of its agent`);
    expect(result.stdout + result.stderr).toContain('the worktree of c1 was kept for the edits inside its submodules');
    expect(readFileSync(join(c1.worktree, 'lib', 'lib.txt'), 'utf8')).toBe('library v2\nmore\n');
    expect(execFileSync('git', ['log', '-1', '--format=%s'], { cwd: join(c1.worktree, 'lib'), encoding: 'utf8' }).trim()).toBe('inside');
    // c2 touched no submodule: its worktree went.
    expect(existsSync(join(project.worktreesDir, r.runId, 'c2'))).toBe(false);

    // `bestof clean --dry-run` says it would keep it (not that it was kept).
    const dry = await runCli(['clean', r.runId, '--dry-run'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(dry.code).toBe(1);
    expect(dry.stdout).toContain(`would keep worktree ${c1.worktree}: submodule lib holds edits or commits of its agent`);
    expect(dry.stderr).toContain(
      '1 worktree would be kept with work that could not be saved (see above); fix what is said there before you run `bestof clean`',
    );
    expect(existsSync(c1.worktree)).toBe(true);
    // `bestof clean` does not delete it either, and says what to do.
    const clean = await runCli(['clean', r.runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(clean.code).toBe(1);
    expect(clean.stderr).toContain(`keep worktree ${c1.worktree}: submodule lib holds edits or commits of its agent`);
    expect(readFileSync(join(c1.worktree, 'lib', 'lib.txt'), 'utf8')).toBe('library v2\nmore\n');
    // Once the user has taken what they need and deleted the folder, clean finishes the job.
    rmSync(c1.worktree, { recursive: true, force: true });
    const again = await runCli(['clean', r.runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(again.stdout).toContain(`forget worktree ${c1.worktree}: its folder is gone`);
    expect(again.code).toBe(0);
    expect(project.repo.git('worktree', 'list', '--porcelain')).not.toContain(c1.worktree);
  });
});
