/**
 * What a new user saw on a real npm library (qs: code in lib/, `npm test` = nyc over tape, the
 * node_modules linked): the failed check's excerpt was nyc's coverage table and its EROFS noise,
 * the real `not ok` buried 1,700 lines up. Through the real binary, in the sandbox:
 * - the checks write nyc's cache into the linked node_modules through a layer of their own (no
 *   EROFS in any check's log) and nothing they wrote there reaches the user's node_modules;
 * - `bestof show` (report.md), report.html and the agent's next prompt show the failing part (the
 *   `not ok` line with tape's expected/actual), not the coverage table.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDirOf } from '../../src/engine/record/run-folder.js';
import { probeSandbox } from '../../src/process/sandbox.js';
import { runCli } from '../helpers/cli.js';
import { layQsLikeProject, QS_FIX } from '../helpers/qs-like.js';
import type { ReportJson } from '../helpers/run-record.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** Every file under `dir`, by path. */
function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('a qs-like library: nyc over tape, node_modules linked', () => {
  it("shows the failing assertion (not nyc's table) everywhere, and nyc's cache works without reaching the user's node_modules", async () => {
    const probe = await probeSandbox();
    expect(probe.ok, 'bubblewrap is required by this tier (docs/development.md)').toBe(true);
    const r = repo();
    layQsLikeProject(r);
    // The honest agent fixes decode(); the lazy one only keeps the prompt it was given, in its tree
    // (committed: the sandbox lets it write nowhere else), so that the test can read the retry prompt.
    const honest = `sed -i "s/, '+')/, ' ')/" lib/utils.js && grep -qF "${QS_FIX}" lib/utils.js`;
    const lazy = 'n=$(ls prompt-*.txt 2>/dev/null | wc -l); printf "%s" "$1" > prompt-$((n + 1)).txt';
    const spec = join(tempDir(), 'qs.toml');
    writeFileSync(
      spec,
      `name = "qs-like"
repo = ${JSON.stringify(r.dir)}

[prompt]
text = "Fix decode(): a + in a query string is a space."

[[parallel.providers]]
kind = "command"
command = "sh"
args = ["-c", ${JSON.stringify(honest)}]
label = "honest"

[[parallel.providers]]
kind = "command"
command = "sh"
args = ["-c", ${JSON.stringify(lazy)}, "lazy", "{prompt}"]
label = "lazy"

[loop]
max_iterations = 2

[sandbox]
mode = "required"

[setup]
link = ["node_modules"]

[checks]
frozen = ["test/**", "package.json"]

[[checks.items]]
name = "test"
command = "npm test"
score = 100
timeout = "120s"

[select]
merge = "branch"
`,
    );
    const result = await runCli(['run', spec, '--no-tui', '--json'], { cwd: r.dir, worktreesDir: tempDir() });
    const output = result.stdout + result.stderr;
    const report = JSON.parse(result.stdout) as ReportJson;
    expect(report.winner, output).toBe('c1');
    const runDir = runDirOf(r.dir, report.runId);

    // nyc wrote its cache in every check (a layer of the checks' own over the linked folder)...
    const logs = filesUnder(runDir).filter((path) => path.endsWith('.log') && path.includes(`${join('checks')}`));
    expect(logs.length).toBeGreaterThanOrEqual(3);
    // (nyc logs the error it meets there, EROFS or ENOENT depending on where the repo is, with the path.)
    for (const log of logs) expect(readFileSync(log, 'utf8'), log).not.toMatch(/EROFS|ENOENT|node_modules\/\.cache/);
    // ...and none of it reached the user's node_modules.
    expect(existsSync(join(r.dir, 'node_modules/.cache'))).toBe(false);

    // `bestof show` (report.md): the failing part is tape's `not ok` with its expected/actual, not nyc's table.
    const shown = await runCli(['show', report.runId, '--no-tui'], { cwd: r.dir });
    expect(shown.code).toBe(0);
    const failed = shown.stdout.slice(shown.stdout.indexOf('## Failed checks'));
    expect(failed).toContain('not ok 802 decodes + as a space');
    expect(failed).toContain("expected: 'a b'");
    expect(failed).toContain("actual:   'a+b'");
    expect(failed).not.toContain('All files');

    // report.html: the failing cell's panel holds the same part first.
    const html = await runCli(['show', report.runId, '--html'], { cwd: r.dir });
    const page = readFileSync(html.stdout.trim(), 'utf8');
    const part = /<pre class="failing-part">([^<]*)<\/pre>/.exec(page)?.[1] ?? '';
    expect(part).toContain('not ok 802 decodes + as a space');
    expect(part).not.toContain('All files');

    // The lazy agent's second prompt: the failing part, though the output ended with the table.
    const prompt = r.git('show', `${report.candidates.find((c) => c.id === 'c2')?.ref}:prompt-2.txt`);
    expect(prompt).toContain('The failing part of its output');
    expect(prompt).toContain('not ok 802 decodes + as a space');

    // A command agent reports no cost: its progress.md says "–", never $0.
    expect(readFileSync(join(runDir, 'candidates', 'c2', 'progress.md'), 'utf8')).toContain('- cost: – (this agent reports no cost)');
  });
});
