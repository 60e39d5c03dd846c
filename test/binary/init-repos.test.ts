/**
 * `bestof init` on real repos of each kind, run as a user runs it: it writes the checks it found
 * at the repo root (also from a subfolder, and says so), the spec loads, and every check it
 * wrote passes on the repo as it is: init presents nothing that does not work. Adversaries against
 * the checks init writes: test/runs/init-adversaries.test.ts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/load.js';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { globsMatching } from '../../src/checks/frozen.js';
import { parseTestReport } from '../../src/checks/test-report/parse.js';
import { readReportDir } from '../../src/checks/test-report/read-report.js';
import { REPORTING_COMMANDS } from '../../src/spec/repo-probe.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { REPO_FIXTURES, type FixtureKind } from '../spec/repo-fixtures.js';

const { repo, tempDir } = tempRepos();

/** The report init gives each kind's test check (none where the runner needs something installed to write one). */
const REPORTING: Partial<Record<FixtureKind, string>> = {
  node: 'junit',
  python: 'junit',
  go: 'go-json',
};

describe('bestof init on a real repo', () => {
  it.each<FixtureKind>(['node', 'python', 'rust', 'go', 'make'])(
    'a %s repo: the spec loads as written, and every check it wrote passes on the repo as it is',
    async (kind) => {
      const r = repo(REPO_FIXTURES[kind]);
      const home = tempDir();
      // Go and cargo caches in a temp folder, never the user's.
      const env = { GOCACHE: join(home, 'go-cache'), GOPATH: join(home, 'go'), GOFLAGS: '-mod=mod', CARGO_TARGET_DIR: join(home, 'target') };
      const init = await runCli(['init'], { cwd: r.dir, env });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stdout).toContain(`wrote ${join(r.dir, 'bestof.toml')}\nfound ${kind}:`);
      expect(init.stdout).toMatch(/; protected: \d+ names of files that change what the test runner runs \(\*\*\/[^,]+, \*\*\/[^,)]+(, \.\.\.)?\)/);
      const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
      // Every frozen pattern is one the plan accepts: it matches a file of HEAD (src/engine/plan/plan.ts);
      // the names to keep out are under protected.
      const frozen = loaded.value.spec.checks.frozen;
      const matching = await globsMatching(r.dir, 'HEAD', frozen);
      expect(frozen.filter((glob) => !matching.has(glob))).toEqual([]);
      expect(loaded.value.spec.checks.protected.length).toBeGreaterThan(0);
      // And editable, where it found the code's folder: each pattern matches too, or the plan would refuse it.
      const editable = loaded.value.spec.checks.editable;
      expect(editable.length > 0, JSON.stringify(editable)).toBe(kind !== 'make');
      const editableMatching = await globsMatching(r.dir, 'HEAD', editable);
      expect(editable.filter((glob) => !editableMatching.has(glob))).toEqual([]);
      for (const check of loaded.value.spec.checks.items) {
        // A report check writes into its own folder (bestof gives one as $BESTOF_REPORT_DIR).
        const reportDir = tempDir();
        const ran = spawnSync('sh', ['-c', check.command], {
          cwd: r.dir,
          env: { ...process.env, ...env, BESTOF_REPORT_DIR: reportDir },
          encoding: 'utf8',
          timeout: 300_000,
        });
        expect(ran.status, `${check.command}: ${ran.stdout}${ran.stderr}`).toBe(0);
        if (check.report === undefined) continue;
        // The report it names is written and read: the fixture's tests by name, every one passing.
        const parsed = parseTestReport(check.report, await readReportDir(reportDir, ran.stdout));
        if (!parsed.ok) throw new Error(`${check.command}: ${parsed.reason} ${parsed.detail ?? ''}`);
        expect(parsed.tests.length, check.command).toBeGreaterThan(0);
        expect(
          parsed.tests.filter((test) => test.outcome !== 'passed'),
          check.command,
        ).toEqual([]);
      }
      // The runners that write a report with nothing installed get a report check.
      expect(loaded.value.spec.checks.items[0]?.report, 'the test check').toBe(REPORTING[kind]);
    },
    600_000,
  );

  it("a vitest repo: init's test check writes vitest's junit report, which names every test", async () => {
    const r = repo({
      'package.json': `${JSON.stringify({ name: 'v', type: 'module', scripts: { test: 'vitest run' } })}\n`,
      'test/add.test.js':
        "import { expect, test } from 'vitest';\ntest('adds', () => expect(1 + 1).toBe(2));\ntest('adds again', () => expect(2 + 2).toBe(4));\n",
    });
    // vitest as the repo's dependency: this project's own (vitest 4).
    symlinkSync(join(PROJECT_ROOT, 'node_modules'), join(r.dir, 'node_modules'));
    const init = await runCli(['init'], { cwd: r.dir });
    expect(init.code, init.stderr).toBe(0);
    const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const [check] = loaded.value.spec.checks.items;
    expect(check?.report).toBe('junit');
    const reportDir = tempDir();
    const ran = spawnSync('sh', ['-c', check?.command ?? ''], { cwd: r.dir, env: { ...process.env, BESTOF_REPORT_DIR: reportDir, CI: '1' }, encoding: 'utf8' });
    expect(ran.status, ran.stdout + ran.stderr).toBe(0);
    const parsed = parseTestReport('junit', await readReportDir(reportDir, ran.stdout));
    expect(parsed.ok && parsed.tests.map((test) => [test.name, test.outcome])).toEqual([
      ['test/add.test.js::adds', 'passed'],
      ['test/add.test.js::adds again', 'passed'],
    ]);
  });

  it('run from a subfolder, writes at the repo root and says so', async () => {
    const r = repo(REPO_FIXTURES.node);
    mkdirSync(join(r.dir, 'src', 'deep'), { recursive: true });
    const init = await runCli(['init'], { cwd: join(r.dir, 'src', 'deep') });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain(`wrote ${join(r.dir, 'bestof.toml')} (at the root of the repo, not in src/deep/`);
    expect(readFileSync(join(r.dir, 'bestof.toml'), 'utf8')).toContain(`command = ${JSON.stringify(REPORTING_COMMANDS.nodeTest)}`);
  });

  it('a Node repo with its dependencies installed gets them linked, as the setup benchmark found fastest', async () => {
    const r = repo(REPO_FIXTURES.node);
    execFileSync('mkdir', ['-p', join(r.dir, 'node_modules', 'dep')]);
    const init = await runCli(['init'], { cwd: r.dir });
    expect(init.stdout).toContain('setup.link: node_modules');
    const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
    expect(loaded.ok && loaded.value.spec.setup.link).toEqual(['node_modules']);
  });
});
