/**
 * `bestof run` end to end: the real binary, real git repos in temp folders, real agent
 * processes (fake agent CLIs from test/fixtures/bin and the built-in script agent).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { processesWithArg } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { ADD_CHECKS, FIX_SCRIPT, FIXTURE_BIN, IDLE_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import type { ReportJson } from '../helpers/run-record.js';

let project: Project;
afterEach(() => {
  if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
});

type Report = ReportJson;

function readReport(repoDir: string): Report {
  const runs = readdirSync(join(repoDir, '.bestof', 'runs'));
  expect(runs).toHaveLength(1);
  return JSON.parse(readFileSync(join(repoDir, '.bestof', 'runs', runs[0] as string, 'report.json'), 'utf8')) as Report;
}

async function run(spec: string, extraArgs: string[] = [], env: Record<string, string> = {}) {
  const specPath = project.writeOutside('spec.toml', spec);
  return runCli(['run', specPath, ...extraArgs], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env });
}

describe('bestof run', () => {
  it('chooses the candidate that passes the frozen checks, keeps every candidate under refs/bestof, removes the worktrees', async () => {
    project = makeProject();
    // The fixer also leaves build output that the repo ignores: it waits aside while the checks run.
    writeFileSync(join(project.repo.dir, '.gitignore'), 'build/\n');
    project.repo.commitAll('ignore build/');
    const fix = project.writeOutside('fix.toml', `${FIX_SCRIPT}\n[[steps]]\nwrite = "build/out.log"\ncontent = "built\\n"\n`);
    const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
    const headBefore = project.repo.git('rev-parse', 'HEAD');
    const result = await run(
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
      ['--json'],
    );
    expect(result.stderr).toContain('c2 check tests: pass');
    expect(result.code).toBe(0);
    const report = JSON.parse(result.stdout) as Report;
    expect(report.winner).toBe('c2');
    expect(report.ranking.map((r) => [r.candidate, r.score, r.eligible])).toEqual([
      ['c2', 10, true],
      ['c1', 0, false],
    ]);
    for (const candidate of report.candidates) {
      expect(project.repo.git('rev-parse', candidate.ref)).toBe(candidate.commit);
      expect(project.repo.git('rev-parse', candidate.branch)).toBe(candidate.commit);
    }
    expect(project.repo.git('show', `${report.candidates[1]?.ref}:src/add.mjs`)).toContain('a + b');
    // The way on comes last, on stderr (the JSON report owns stdout): where report.html is, and how to see it again.
    const html = join(project.repo.dir, '.bestof', 'runs', report.runId, 'report.html');
    expect(existsSync(html)).toBe(true);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe(
      `report: ${html} (\`bestof show ${report.runId}\` shows it again, \`bestof show ${report.runId} --html\` writes it again)`,
    );
    // The user's checkout is untouched and no worktree is left.
    expect(project.repo.git('rev-parse', 'HEAD')).toBe(headBefore);
    expect(project.repo.git('status', '--porcelain')).toBe('');
    expect(project.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    expect(readFileSync(join(project.repo.dir, '.git', 'info', 'exclude'), 'utf8')).toContain('/.bestof/');
    // The worktrees' folders are gone at once (renamed aside); their files are deleted by a process
    // of their own after the run, which leaves nothing behind: not even the run's empty folder,
    // which every run left in the worktrees folder before, nor the folder the fixer's build output
    // waited in (`.bestof-aside`), which kept it there until 2026-12-05.
    const runFolder = join(project.worktreesDir, report.runId);
    expect(existsSync(join(runFolder, 'c1')) || existsSync(join(runFolder, 'c2'))).toBe(false);
    await waitUntil(() => !existsSync(runFolder), 'the removed worktrees and their run folder to be deleted');
  });

  it("ends, on the plain path, with the run's closing line and then where report.html is", async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const result = await run(
      specToml(project.repo.dir, `[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "none"\n`),
      ['--no-tui'],
    );
    expect(result.code, result.stderr).toBe(0);
    const [closing, way] = result.stdout.trimEnd().split('\n').slice(-2);
    expect(closing).toMatch(/^run winner in .* \(exit 0\): c\d+ .*won/);
    const runId = readReport(project.repo.dir).runId;
    expect(way).toBe(
      `report: ${join(project.repo.dir, '.bestof', 'runs', runId, 'report.html')} (\`bestof show ${runId}\` shows it again, \`bestof show ${runId} --html\` writes it again)`,
    );
  });

  it('scores a candidate that rewrites the tests and the check script exactly as if it had not touched them, and flags it', async () => {
    project = makeProject();
    const honest = project.writeOutside('honest.toml', FIX_SCRIPT);
    // Same wrong implementation in both; one also games the tests and the check script.
    const wrong = `[[steps]]\nwrite = "src/add.mjs"\ncontent = "export const add = (a, b) => a * b + 1;\\n"\n`;
    const plain = project.writeOutside('plain.toml', wrong);
    const gamer = project.writeOutside(
      'gamer.toml',
      `${wrong}
[[steps]]
write = "test/add.test.mjs"
content = "import { test } from 'node:test';\\ntest('ok', () => {});\\n"
[[steps]]
write = "test/extra.test.mjs"
content = "import { test } from 'node:test';\\ntest('ok', () => {});\\n"
[[steps]]
write = "scripts/check.sh"
content = "#!/bin/sh\\nexit 0\\n"
[[steps]]
write = "SCORE.txt"
content = "score = 100\\n"
`,
    );
    const checks = `${ADD_CHECKS}
[[checks.items]]
name = "style"
command = "test -f src/add.mjs"
score = 1
`;
    const result = await run(
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(gamer)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(plain)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(honest)}\n${checks}\n[select]\nmerge = "none"\n`,
      ),
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('c1 TAMPERED with frozen paths');
    const report = readReport(project.repo.dir);
    const [gamerReport, plainReport, honestReport] = report.candidates;
    expect(gamerReport?.score).toBe(plainReport?.score);
    expect(gamerReport?.score).toBe(1);
    expect(honestReport?.score).toBe(11);
    expect(report.winner).toBe('c3');
    expect(gamerReport?.tampered).toBe(true);
    expect(gamerReport?.tamperedPaths.map((p) => `${p.path}:${p.change}`).sort()).toEqual([
      'scripts/check.sh:modified',
      'test/add.test.mjs:modified',
      'test/extra.test.mjs:added',
    ]);
    expect(plainReport?.tampered).toBe(false);
    // The gamer's own commit still holds what it wrote: nothing is hidden, only not counted.
    expect(project.repo.git('show', `${gamerReport?.ref}:scripts/check.sh`)).toContain('exit 0');
  });

  it("keeps going when one agent crashes and another times out; the timed-out agent's process tree is gone and its files are committed", async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const result = await run(
      specToml(
        project.repo.dir,
        `[[parallel.providers]]
kind = "command"
command = ${JSON.stringify(join(FIXTURE_BIN, 'crash-agent'))}
[[parallel.providers]]
kind = "command"
command = ${JSON.stringify(join(FIXTURE_BIN, 'hang-agent'))}
timeout = "2s"
[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(fix)}
${ADD_CHECKS}
[select]
merge = "branch"
`,
      ),
    );
    expect(result.code).toBe(0);
    const report = readReport(project.repo.dir);
    const [crashed, hung, fixed] = report.candidates;
    expect(crashed?.history[0]?.outcome).toBe('crashed');
    expect(crashed?.status).toBe('failed');
    expect(crashed?.message).toContain('exited with code 3');
    expect(project.repo.git('show', `${crashed?.ref}:half.txt`)).toBe('half done');
    expect(hung?.history[0]?.outcome).toBe('timeout');
    expect(project.repo.git('show', `${hung?.ref}:partial.txt`)).toBe('partial work');
    // The helper it started ran (its pid file is committed) and is gone; found by its name, since
    // a PID written inside the sandbox is one of the sandbox's own namespace.
    expect(Number(project.repo.git('show', `${hung?.ref}:helper.pid`))).toBeGreaterThan(0);
    const runId = readdirSync(join(project.repo.dir, '.bestof', 'runs'))[0] as string;
    await waitUntil(() => processesWithArg(`hang-agent-helper-${runId}-c2`).length === 0, 'the grandchild to be gone');
    expect(fixed?.status).toBe('done');
    expect(report.winner).toBe('c3');
  });

  it('marks a candidate whose setup fails as failed, while the others run with their own identity and port', async () => {
    project = makeProject();
    project.repo.write('.env', 'SECRET=1\n');
    project.repo.write('.gitignore', '.env\n');
    project.repo.commitAll('ignore .env');
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const result = await run(
      specToml(
        project.repo.dir,
        `[parallel]
candidates = 3
[provider]
kind = "script"
script = ${JSON.stringify(fix)}
[setup]
copy = [".env"]
base_port = 5000
commands = ['echo "setup $BESTOF_RUN $BESTOF_CANDIDATE $BESTOF_INDEX $PORT"', 'echo generated > setup-artifact.txt', 'test "$BESTOF_INDEX" != 2']
${ADD_CHECKS}
[[checks.items]]
name = "env-copied"
command = 'grep -q SECRET=1 .env && test "$PORT" -gt 5000'
score = 1
[select]
merge = "branch"
tie_break = ["cost"]
`,
      ),
    );
    expect(result.code).toBe(0);
    const report = readReport(project.repo.dir);
    const [c1, c2, c3] = report.candidates;
    expect(c2?.status).toBe('failed');
    expect(c2?.reason).toBe('setup_failed');
    expect(c2?.message).toContain('test "$BESTOF_INDEX" != 2');
    expect(c1?.score).toBe(11);
    expect(c3?.score).toBe(11);
    const runDir = join(project.repo.dir, '.bestof', 'runs', readdirSync(join(project.repo.dir, '.bestof', 'runs'))[0] as string);
    const runId = runDir.split('/').pop();
    expect(readFileSync(join(runDir, 'candidates', 'c1', 'setup.log'), 'utf8')).toContain(`setup ${runId} c1 1 5001`);
    expect(readFileSync(join(runDir, 'candidates', 'c3', 'setup.log'), 'utf8')).toContain(`setup ${runId} c3 3 5003`);
    // Files from setup (the copied .env, what setup commands made) are not the candidate's work.
    const committed = project.repo.git('show', '--name-only', '--format=', c1?.ref as string);
    expect(committed).toBe('src/add.mjs');
    expect(report.winner).toBe('c1');
  });

  it('refuses a copy path that leaves the repo', async () => {
    project = makeProject();
    project.writeOutside('secret.txt', 'nope');
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    project.repo.write('.worktreeinclude', '# copied into every worktree\n../secret.txt\n');
    project.repo.commitAll('add worktreeinclude');
    const result = await run(
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
    );
    expect(result.code).toBe(1);
    const [c1] = readReport(project.repo.dir).candidates;
    expect(c1?.reason).toBe('setup_failed');
    expect(c1?.message).toContain('leaves the repo');
  });

  it('exits 1 when no candidate can win, and the closing line says why each one cannot', async () => {
    project = makeProject();
    const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
    const result = await run(
      specToml(project.repo.dir, `[parallel]\ncandidates = 2\n[provider]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n${ADD_CHECKS}`),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('no candidate can win (c1 passed no check, c2 passed no check); what each one committed is kept under refs/bestof/');
    expect(readReport(project.repo.dir).status).toBe('no_winner');
  });

  it('says, when the one candidate that passes every check changed a frozen path, that it cannot win for that, not that nothing passed', async () => {
    project = makeProject();
    const fixesAndTouchesTests = project.writeOutside(
      'fix-and-touch.toml',
      `${FIX_SCRIPT}\n[[steps]]\nwrite = "test/add.test.mjs"\ncontent = "import './../src/add.mjs';\\n"\n`,
    );
    const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
    const result = await run(
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fixesAndTouchesTests)}\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(idle)}\n${ADD_CHECKS}`,
      ),
    );
    expect(result.code).toBe(1);
    const report = readReport(project.repo.dir);
    expect(report.candidates.map((c) => [c.id, c.score])).toEqual([
      ['c1', 10],
      ['c2', 0],
    ]);
    expect(result.stdout).toContain('no candidate can win (c1 changed frozen paths, c2 passed no check); what each one committed is kept under refs/bestof/');
  });

  it('passes the prompt file to a command agent through {prompt_file}', async () => {
    project = makeProject();
    const result = await run(
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'fix-agent'))}\nargs = ["{prompt_file}"]\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
    );
    expect(result.code).toBe(0);
    const runDir = join(project.repo.dir, '.bestof', 'runs', readdirSync(join(project.repo.dir, '.bestof', 'runs'))[0] as string);
    expect(readFileSync(join(runDir, 'candidates', 'c1', 'iteration-1', 'prompt.md'), 'utf8')).toBe(
      'Make the tests pass.\n\n## bestof: paths the checks keep\n\nThe checks always use the original version of these paths: `test/**`, `scripts/check.sh`, `**/.gitattributes`. ' +
        'Changing, adding or deleting a file there earns nothing, and work that does is not chosen: leave them as they are.\n',
    );
    expect(readFileSync(join(runDir, 'candidates', 'c1', 'iteration-1', 'output.log'), 'utf8')).toContain('fixing add()');
    for (const file of ['events.jsonl', 'state.json', 'report.json', 'report.md', 'spec.toml']) expect(existsSync(join(runDir, file))).toBe(true);
  });
});
