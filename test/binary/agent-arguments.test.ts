/**
 * What a `command` agent given the prompt as an argument (`{prompt}`, or no `args`) can be given:
 * one argument of a program holds at most 128 KiB on Linux, and no NUL byte. Through the real
 * binary, with a shell script as the agent. Before, both ended the candidate as "internal error"
 * (Node's spawn throws at once for E2BIG and for a NUL byte), and a check that printed a NUL byte
 * did so to every such agent from its second iteration on (the check's output goes into the prompt).
 */
import { chmodSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';
import type { ReportJson } from '../helpers/run-record.js';

let project: Project;
afterEach(() => project?.cleanup());

/** An agent that appends to work.txt, and says how long its first argument was. */
const AGENT = '#!/bin/sh\necho "argument of ${#1} characters" >> work.txt\n';

function commandSpec(agent: string, body: string, args?: string): string {
  return specToml(
    project.repo.dir,
    `[loop]\nmax_iterations = 2\n[parallel]\ncandidates = 1\n[provider]\nkind = "command"\ncommand = ${JSON.stringify(agent)}\n${args ?? ''}\n${body}\n[select]\nmerge = "branch"\n`,
  );
}

function agentScript(): string {
  const path = project.writeOutside('agent.sh', AGENT);
  chmodSync(path, 0o755);
  return path;
}

function onlyRun(): { runDir: string; report: ReportJson } {
  const runs = readdirSync(join(project.repo.dir, '.bestof', 'runs'));
  expect(runs).toHaveLength(1);
  const runDir = join(project.repo.dir, '.bestof', 'runs', runs[0] as string);
  return { runDir, report: JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as ReportJson };
}

describe('a command agent given the prompt as an argument', () => {
  it('with a task longer than one argument may be: validate and run refuse it (exit 2, nothing created) and say to use {prompt_file}; with it, validate says ok', async () => {
    project = makeProject();
    const agent = agentScript();
    const checks = '[[checks.items]]\nname = "worked"\ncommand = "test -f work.txt"\n';
    const longTask = commandSpec(agent, checks).replace('text = "Make the tests pass."', `text = "${'x'.repeat(140_000)}"`);
    const spec = project.writeOutside('spec.toml', longTask);
    for (const command of ['validate', 'run']) {
      const refused = await runCli([command, spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(refused.code, command).toBe(2);
      expect(refused.stderr, command).toContain(
        'provider.args: the prompt is 137 KiB, longer than one argument of a program may be on Linux (128 KiB), and this command agent gets it as an argument (`{prompt}`, or no `args`); give it the prompt as a file instead: `args = ["{prompt_file}"]`',
      );
    }
    expect(existsSync(join(project.repo.dir, '.bestof'))).toBe(false);
    expect(existsSync(project.worktreesDir)).toBe(false);

    const asFile = project.writeOutside('spec-file.toml', longTask.replace('[provider]\n', '[provider]\nargs = ["{prompt_file}"]\n'));
    const ok = await runCli(['validate', asFile], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect([ok.code, ok.stdout]).toEqual([0, 'ok\n']);
  });

  it("whose prompt outgrows the limit in a later iteration (the checks' output is added): that call ends crashed and says why, the work before it is kept", async () => {
    project = makeProject();
    const agent = agentScript();
    // 129,500 bytes fit with the first iteration's few lines around them; the second adds the
    // failing check's output (the prompt keeps about 2,000 characters of it), which no longer fits.
    const checks = '[[checks.items]]\nname = "noisy"\ncommand = "head -c 6000 /dev/zero | tr \'\\\\0\' y; exit 1"\n';
    const spec = project.writeOutside('spec.toml', commandSpec(agent, checks).replace('text = "Make the tests pass."', `text = "${'x'.repeat(129_500)}"`));
    const result = await runCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.stdout + result.stderr).not.toContain('internal error');
    const { report, runDir } = onlyRun();
    const c1 = report.candidates[0];
    expect(c1?.reason).not.toBe('internal_error');
    expect(c1?.status).not.toBe('failed');
    // Iteration 1 ran and its work is kept; iteration 2's call was never started, and says why.
    expect(project.repo.git('show', `${c1?.ref}:work.txt`)).toMatch(/^argument of 129\d\d\d characters$/);
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; iteration?: number; outcome?: string; message?: string });
    const calls = events.filter((e) => e.type === 'provider.finished');
    expect(calls.map((e) => [e.iteration, e.outcome])).toEqual([
      [1, 'success'],
      [2, 'crashed'],
    ]);
    expect(calls[1]?.message).toMatch(
      /was not started: the prompt is 1\d\d KiB, longer than one argument of a program may be on Linux \(128 KiB\); give it the prompt as a file instead: `args = \["\{prompt_file\}"\]`/,
    );
  });

  it('after a check that printed a NUL byte: the next iteration runs (the byte is U+FFFD in the prompt), no internal error', async () => {
    project = makeProject();
    const agent = agentScript();
    const checks = '[[checks.items]]\nname = "binary"\ncommand = "printf \'bad\\\\000byte\\\\n\'; exit 1"\n';
    const spec = project.writeOutside('spec.toml', commandSpec(agent, checks));
    const result = await runCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code).toBe(1);
    const { report, runDir } = onlyRun();
    const c1 = report.candidates[0];
    expect([c1?.status, c1?.reason, c1?.iterations]).toEqual(['done', 'max_iterations', 2]);
    expect(project.repo.git('show', `${c1?.ref}:work.txt`).split('\n')).toHaveLength(2);
    const secondPrompt = readFileSync(join(runDir, 'candidates', 'c1', 'iteration-2', 'prompt.md'), 'utf8');
    expect(secondPrompt).toContain('bad\uFFFDbyte');
    expect(secondPrompt).not.toContain('\0');
  });
});
