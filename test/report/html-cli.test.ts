/**
 * The built binary writes report.html: at the end of `bestof run`, and on `bestof show --html`
 * (to the run folder by default, or to the file given), printing the path it wrote.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project;
let runId: string;
let runDir: string;

beforeAll(async () => {
  project = makeProject();
  const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
  const spec = project.writeOutside(
    'run.toml',
    specToml(
      project.repo.dir,
      `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
    ),
  );
  const run = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  expect(run.code, run.stderr).toBe(0);
  runId = (JSON.parse(run.stdout) as { runId: string }).runId;
  runDir = join(project.repo.dir, '.bestof', 'runs', runId);
});

afterAll(() => project?.cleanup());

describe('report.html from the command line', () => {
  it('bestof run writes it beside report.json, with the verdict first', () => {
    const html = readFileSync(join(runDir, 'report.html'), 'utf8');
    expect(/<div class="why">(.*?)<\/div>/.exec(html)?.[1]).toBe('c1 won as the only candidate (score 10 of 10).');
    expect(html).toContain('+export const add = (a, b) =&gt; a + b;');
  });

  it('bestof show --html writes it to the run folder and prints its path; --html <file> writes that file', async () => {
    const shown = await runCli(['show', '--html'], { cwd: project.repo.dir });
    expect(shown).toMatchObject({ code: 0, stdout: `${join(runDir, 'report.html')}\n`, stderr: '' });
    const file = join(project.outside, 'r.html');
    const toFile = await runCli(['show', runId, '--html', file], { cwd: project.repo.dir });
    expect(toFile).toMatchObject({ code: 0, stdout: `${file}\n` });
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(join(runDir, 'report.html'), 'utf8'));
  });

  it('a file that cannot be written: exit 2, and which file and why', async () => {
    const file = join(project.outside, 'no-such-folder', 'r.html');
    const shown = await runCli(['show', runId, `--html=${file}`], { cwd: project.repo.dir });
    expect(shown.code).toBe(2);
    expect(shown.stderr).toContain(`bestof show: report.html of run ${runId} was not written to ${file}: ENOENT`);
    expect(shown.stderr).toContain('(write it elsewhere with --html=<file>)');
  });
});
