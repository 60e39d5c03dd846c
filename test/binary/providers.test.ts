/**
 * A real-provider candidate through the engine, with a fake `claude` on the spec's command
 * that prints a stream captured from the real CLI: the report records the CLI's version,
 * its argv (without the prompt) and the model, and the cost the stream reported.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { readLoopReport } from '../helpers/loop.js';
import { ADD_CHECKS, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
afterEach(() => project?.cleanup());

describe('a real provider in a run', () => {
  it('records the CLI version, the redacted argv and the model in the report', async () => {
    project = makeProject();
    const fakeClaude = join(PROJECT_ROOT, 'test/fixtures/providers/bin/claude');
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "claude"\nmodel = "sonnet"\ncommand = ${JSON.stringify(fakeClaude)}\nenv = { ANTHROPIC_API_KEY = "sk-test", FAKE_CLI_STDOUT = "claude/claude_sj_tool.jsonl", FAKE_CLI_WRITE = "notes.txt" }\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
    );
    const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.stdout).toMatch(/c1 agent: claude 2\.1\.332 \(Claude Code\), model sonnet — .*-p/);
    const report = readLoopReport(project.repo.dir) as unknown as {
      candidates: { cli: { version: string; argv: string[]; model: string }; costUsd: number }[];
    };
    const cli = report.candidates[0]?.cli;
    expect(cli?.version).toBe('2.1.332 (Claude Code)');
    expect(cli?.model).toBe('sonnet');
    expect(cli?.argv).toEqual(expect.arrayContaining(['-p', '--output-format', 'stream-json', '--model', 'sonnet']));
    expect(cli?.argv.join(' ')).not.toContain('Make the tests pass.');
    expect(report.candidates[0]?.costUsd).toBeGreaterThan(0);
  });
});
