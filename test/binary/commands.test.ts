/**
 * The other commands and the exit code of bad input, through the real binary.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, IDLE_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

function cli(args: string[]) {
  return runCli(args, { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
}

/** Everything a run could leave behind: branches, refs, worktrees, the run folder. */
function sideEffects(): string[] {
  return [
    ...project.repo
      .git('for-each-ref', '--format=%(refname)')
      .split('\n')
      .filter((r) => r !== 'refs/heads/main'),
    ...(existsSync(join(project.repo.dir, '.bestof')) ? ['.bestof'] : []),
    ...(existsSync(project.worktreesDir) ? ['worktrees dir'] : []),
    ...project.repo
      .git('worktree', 'list', '--porcelain')
      .split('\n')
      .filter((l) => l.startsWith('worktree '))
      .slice(1),
  ];
}

describe('bad input', () => {
  it.each([
    ['a TOML syntax error', 'name = "x"\n[prompt\ntext = "y"\n', /spec\.toml:3:\d+/],
    ['an unknown key', '[prompt]\ntext = "y"\n[loop]\nmax_iteration = 3\n', /loop\.max_iteration: unknown key "max_iteration".*did you mean "max_iterations"/],
    ['a missing task', '[loop]\nmax_iterations = 2\n', /task is required/],
    [
      'a shannon agent whose Claude Code is not on PATH',
      '[prompt]\ntext = "y"\n[provider]\nkind = "shannon"\ncommand = "no-such-claude-cli"\n',
      /provider\.command: "no-such-claude-cli" \(the Claude Code program of kind = "shannon"\) is not on PATH/,
    ],
    ['a base that does not exist', 'base = "no-such-branch"\n[prompt]\ntext = "y"\n', /base: "no-such-branch" is not a commit/],
    [
      'a command agent that is not on PATH',
      '[prompt]\ntext = "y"\n[provider]\nkind = "command"\ncommand = "no-such-agent-cli"\n',
      /"no-such-agent-cli" was not found on PATH/,
    ],
    // TOML's \u0000 escape: a byte no program can be given (Node refuses it at spawn); said at its line.
    [
      'a NUL byte in a check command and an agent env value',
      '[prompt]\ntext = "y"\n[provider]\nenv = { A = "x\\u0000y" }\n[[checks.items]]\nname = "t"\ncommand = "echo a\\u0000b"\n',
      /spec\.toml:5:\d+: provider\.env\.A: holds a NUL byte \(\\u0000\), which no program can be given: remove it[\s\S]*spec\.toml:8:\d+: checks\.items\[0\]\.command: holds a NUL byte/,
    ],
    [
      'a jury voter whose CLI is not on PATH',
      '[prompt]\ntext = "y"\n[vote]\nenabled = true\nvoters = [{ kind = "command", command = "no-such-voter-cli" }]\n',
      /vote\.voters\[0\]: the command CLI \("no-such-voter-cli"\) was not found on PATH|vote\.voters\[0\].*"no-such-voter-cli" was not found on PATH/,
    ],
  ])('%s: exit 2, a clear message, and nothing created', async (_name, body, message) => {
    project = makeProject();
    const spec = project.writeOutside('spec.toml', `repo = ${JSON.stringify(project.repo.dir)}\n${body}`);
    const result = await cli(['run', spec]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).toContain('nothing was run or created');
    expect(sideEffects()).toEqual([]);
    const validated = await cli(['validate', spec]);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toMatch(message);
  });

  it('an unknown command or flag exits 2', async () => {
    project = makeProject();
    expect((await cli(['frobnicate'])).code).toBe(2);
    const badFlag = await cli(['run', '--colour']);
    expect(badFlag.code).toBe(2);
    expect(badFlag.stderr).toContain('unknown option --colour');
  });

  it('a spec that does not exist says how to make one', async () => {
    project = makeProject();
    const result = await cli(['run']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bestof\.toml.*not found.*bestof init/s);
  });
});

describe('validate and init', () => {
  it('init writes a starter spec that validate accepts once its task exists, and refuses to overwrite it', async () => {
    project = makeProject();
    const first = await cli(['init']);
    expect(first.code).toBe(0);
    const path = join(project.repo.dir, 'bestof.toml');
    expect(readFileSync(path, 'utf8')).toContain('[[checks.items]]');
    const again = await cli(['init']);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists');
  });

  it('validate prints ok for a good spec', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside('spec.toml', specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}`));
    const result = await cli(['validate', spec]);
    expect(result.stdout).toBe('ok\n');
    expect(result.code).toBe(0);
    expect(sideEffects()).toEqual([]);
    expect(result.stderr).not.toContain('on no folder of your PATH');
  });

  it('validate and run refuse a worktrees folder that cannot be made (exit 2), say what to set, and create nothing', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside('spec.toml', specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}`));
    // A file where a folder of the path should be: what a HOME nobody can write does for a user
    // who is not root (these tests run as root, for whom every folder is writable).
    const blocked = project.writeOutside('not-a-folder', 'a file\n');
    const worktreesDir = join(blocked, 'worktrees');
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, spec], { cwd: project.repo.dir, worktreesDir });
      expect(result.code, command).toBe(2);
      expect(result.stderr, command).toContain(
        `worktrees: bestof cannot make its worktrees folder ${worktreesDir}: ${blocked} is not a folder; set BESTOF_WORKTREES_DIR to a folder you can write`,
      );
    }
    expect(sideEffects()).toEqual([]);
  });

  it('validate and run refuse a repo where the run folders cannot be made (a file named .bestof), exit 2, and create nothing (before: an internal error)', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside('spec.toml', specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}`));
    writeFileSync(join(project.repo.dir, '.bestof'), 'a file\n');
    for (const command of ['validate', 'run']) {
      const result = await cli([command, spec]);
      expect(result.code, command).toBe(2);
      expect(result.stderr, command).toContain(
        `.bestof/runs: bestof cannot make its run folders in ${join(project.repo.dir, '.bestof', 'runs')}: ${join(project.repo.dir, '.bestof')} is not a folder; a run's record is kept there, in the repo`,
      );
    }
    expect(readFileSync(join(project.repo.dir, '.bestof'), 'utf8')).toBe('a file\n');
    expect(
      project.repo
        .git('for-each-ref', '--format=%(refname)')
        .split('\n')
        .filter((r) => r !== 'refs/heads/main'),
    ).toEqual([]);
    expect(existsSync(project.worktreesDir)).toBe(false);
  });

  it('validate and run refuse a spec with checks when bash is on no folder of PATH (checks run as `bash -c`), exit 2, and create nothing', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[sandbox]\nmode = "off"\n${ADD_CHECKS}`),
    );
    // A PATH with git and nothing else: a slim image without bash.
    const bin = join(project.writeOutside('git-only/.keep', ''), '..');
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
    for (const command of ['validate', 'run']) {
      const result = await runCli([command, spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { PATH: bin } });
      expect(result.stderr, command).toContain(
        'checks: the checks and [setup] commands run with bash (`bash -c`), which is on no folder of PATH: install it (Alpine: `apk add bash`',
      );
      expect(result.code, command).toBe(2);
    }
    expect(sideEffects()).toEqual([]);
  });

  it('validate warns about a check whose program is on no folder of PATH, and still says ok', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const check = '\n[[checks.items]]\nname = "lint"\ncommand = "cd src && bestof-test-no-such-linter --strict"\n';
    const spec = project.writeOutside(
      'spec.toml',
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}${check}`),
    );
    const result = await cli(['validate', spec]);
    expect([result.code, result.stdout]).toEqual([0, 'ok\n']);
    expect(result.stderr).toContain(
      'warning: checks.items[1].command runs `bestof-test-no-such-linter`, which is on no folder of your PATH: the check would fail (exit 127) for every candidate, after its agent has worked',
    );
  });
});

describe('ls, show, clean', () => {
  async function finishedRun(extra = ''): Promise<{ runId: string; winnerBranch: string; loserBranch: string }> {
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n${extra}`,
      ),
    );
    const result = await cli(['run', spec, '--json']);
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as { runId: string; candidates: { branch: string }[] };
    return { runId: report.runId, winnerBranch: report.candidates[0]?.branch as string, loserBranch: report.candidates[1]?.branch as string };
  }

  it('ls lists the run and show prints its report, rebuilt from the event log', async () => {
    project = makeProject();
    const { runId } = await finishedRun();
    const listed = await cli(['ls']);
    expect(listed.stdout).toMatch(new RegExp(`${runId}\\s+t\\s+winner`));
    // The report comes from events.jsonl, not from report.md.
    rmSync(join(project.repo.dir, '.bestof', 'runs', runId, 'report.md'));
    const shown = await cli(['show', runId.slice(-4)]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`# bestof run ${runId}`);
    expect(shown.stdout).toMatch(/\| 1 \| c1 .* \| 10\/10 \|/);
    const json = JSON.parse((await cli(['show', '--json'])).stdout) as { winner: string };
    expect(json.winner).toBe('c1');
    expect((await cli(['show', 'no-such-run'])).code).toBe(2);
  });

  it('clean --dry-run lists what it would remove and removes nothing; clean removes worktrees and loser branches, never a commit', async () => {
    project = makeProject();
    const { runId, winnerBranch, loserBranch } = await finishedRun('[git]\nkeep_worktrees = true\n');
    const before = {
      refs: project.repo.git('for-each-ref', '--format=%(refname) %(objectname)'),
      worktrees: project.repo.git('worktree', 'list', '--porcelain'),
    };
    expect(before.worktrees.match(/^worktree /gm)).toHaveLength(3);
    // Leave uncommitted work in the loser's worktree, as a killed run would.
    const loserWorktree = join(project.worktreesDir, runId, 'c2');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(loserWorktree, 'late.txt'), 'written after the last commit\n');

    const dry = await cli(['clean', '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toContain(`would remove worktree ${loserWorktree}`);
    expect(dry.stdout).toContain(`would delete branch ${loserBranch}`);
    expect(dry.stdout).toContain(`would commit c2's uncommitted changes`);
    expect(project.repo.git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(before.refs);
    expect(project.repo.git('worktree', 'list', '--porcelain')).toBe(before.worktrees);
    expect(existsSync(join(loserWorktree, 'late.txt'))).toBe(true);

    const clean = await cli(['clean']);
    expect(clean.code).toBe(0);
    expect(project.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    const branches = project.repo.git('branch', '--format=%(refname)').split('\n');
    expect(branches).toContain(`refs/heads/${winnerBranch}`);
    expect(branches).not.toContain(`refs/heads/${loserBranch}`);
    // The late work was committed and is kept, as is every earlier commit.
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:late.txt`)).toBe('written after the last commit');
    expect(project.repo.git('show', `refs/bestof/${runId}/c2/kept:notes.txt`)).toBe('I looked at it.');
    expect(project.repo.git('show', `refs/bestof/${runId}/c1/kept:src/add.mjs`)).toContain('a + b');
  });
});
