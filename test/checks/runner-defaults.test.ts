/**
 * The test runners' files kept as in base without the spec's help (src/checks/runner-defaults.ts),
 * on real repos: a spec with no `frozen`, no `protected` and no `editable` still flags the `.nycrc`
 * whose `require` runs a hook of the candidate's (the qs case), the runner keys of package.json,
 * pyproject.toml's pytest table and go.mod's `replace`; and an `editable` glob that matches the
 * path exempts it.
 */
import { describe, expect, it } from 'vitest';
import { runnerFilesOf, runnerKept } from '../../src/checks/runner-defaults.js';
import { protectedChanges } from '../../src/engine/run/stages/selection.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo } = tempRepos();

/** qs's layout: the code in lib/, `nyc tape` as the test script. */
const QS_FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'qs', main: 'lib/index.js', scripts: { test: 'nyc tape test/*.js' }, dependencies: {} }, null, 2)}\n`,
  'lib/index.js': 'module.exports = (s) => s;\n',
  'test/parse.js': "require('tape')('parse', (t) => { t.end(); });\n",
};

/** The candidate's commit on top of base: `change` writes its files. */
function candidate(r: TempRepo, change: (r: TempRepo) => void): { base: string; commit: string } {
  const base = r.git('rev-parse', 'HEAD');
  r.git('checkout', '--quiet', '-b', 'candidate');
  change(r);
  const commit = r.commitAll('candidate');
  return { base, commit };
}

/** What the selection and the merge flag, for a spec with only these `editable` globs (no frozen, no protected). */
async function flagged(
  r: TempRepo,
  at: { base: string; commit: string },
  editable: readonly string[] = [],
): Promise<{ path: string; rule?: string; note?: string }[]> {
  const runner = await runnerFilesOf(r.dir, at.base);
  const changes = await protectedChanges(r.dir, { ...at, frozen: ['**/.gitattributes'], editable, runner });
  return changes.map(({ path, rule, note }) => ({ path, ...(rule ? { rule } : {}), ...(note ? { note } : {}) }));
}

const NYC_HOOK = (r: TempRepo): void => {
  r.write('.nyc-hook.js', "process.on('exit', () => process.exit(0));\n");
  r.write('.nycrc', `${JSON.stringify({ require: ['./.nyc-hook.js'] })}\n`);
};

describe("the test runners' files, kept without the spec's help", () => {
  it('finds the kinds of project base holds, and their runner patterns', async () => {
    const r = repo({ ...QS_FILES, 'pyproject.toml': '[project]\nname = "x"\n', 'go.mod': 'module x\n\ngo 1.21\n' });
    const runner = await runnerFilesOf(r.dir, r.git('rev-parse', 'HEAD'));
    expect(runner.kinds).toEqual(['node', 'python', 'go']);
    expect(runner.patterns).toEqual(
      expect.arrayContaining([
        '**/.npmrc',
        '**/node_modules/**',
        '**/.nycrc*',
        '**/conftest.py',
        '**/sitecustomize.py',
        '**/*.pth',
        '**/go.work',
        '**/vendor/**',
      ]),
    );
    expect(runner.patterns).not.toContain('**/pyproject.toml');
    const plain = repo({ 'README.md': '# notes\n' });
    expect(await runnerFilesOf(plain.dir, plain.git('rev-parse', 'HEAD'))).toEqual({ kinds: [], patterns: [] });
  });

  it("flags an added .nycrc that requires a hook of the candidate's, with no protected path in the spec (the qs case)", async () => {
    const r = repo(QS_FILES);
    const at = candidate(r, NYC_HOOK);
    // The .nycrc is the runner's: kept as in base (removed), and the candidate cannot win. The hook
    // itself is a file like any other: without the .nycrc nothing loads it.
    expect(await flagged(r, at)).toEqual([{ path: '.nycrc', rule: 'frozen' }]);
    const kept = await runnerKept(r.dir, { ...at, runner: await runnerFilesOf(r.dir, at.base), editable: [] });
    expect(kept.pathspecs).toEqual([':(top,literal).nycrc']);
  });

  it("with `editable` for the code, flags the .nycrc as the runner's (not only outside editable)", async () => {
    const r = repo(QS_FILES);
    const at = candidate(r, NYC_HOOK);
    expect(await flagged(r, at, ['lib/**'])).toEqual([
      { path: '.nycrc', rule: 'frozen' },
      { path: '.nyc-hook.js', rule: 'editable' },
    ]);
  });

  it('exempts a runner file that an `editable` glob matches', async () => {
    const r = repo(QS_FILES);
    const at = candidate(r, NYC_HOOK);
    expect(await flagged(r, at, ['.nycrc', '.nyc-hook.js'])).toEqual([]);
    // A glob that matches it counts as well as its name; one that does not, does not.
    expect(await flagged(r, at, ['.nycrc*', 'lib/**'])).toEqual([{ path: '.nyc-hook.js', rule: 'editable' }]);
    expect(await flagged(r, at, ['lib/**', '.nycrc.json', '.nyc-hook.js'])).toEqual([{ path: '.nycrc', rule: 'frozen' }]);
  });

  it("flags npm's files and a node_modules/.bin shim", async () => {
    const r = repo(QS_FILES);
    const at = candidate(r, (c) => {
      c.write('.npmrc', 'node-options=--require ./hook.js\n');
      c.write('node_modules/.bin/tape', '#!/bin/sh\nexit 0\n');
      c.write('lib/index.js', 'module.exports = (s) => s.trim();\n');
    });
    expect(await flagged(r, at)).toEqual([
      { path: '.npmrc', rule: 'frozen' },
      { path: 'node_modules/.bin/tape', rule: 'frozen' },
    ]);
  });

  it('flags package.json when its "nyc" key changed, whole, and says why; a dependency added is the candidate\'s', async () => {
    const r = repo(QS_FILES);
    const pkg = JSON.parse(QS_FILES['package.json']!) as Record<string, unknown>;
    const withNyc = candidate(r, (c) => c.write('package.json', JSON.stringify({ ...pkg, nyc: { require: ['./.nyc-hook.js'] } }, null, 2)));
    expect(await flagged(r, withNyc)).toEqual([
      {
        path: 'package.json',
        rule: 'frozen',
        note: 'its "nyc" key changed (a test runner\'s configuration): the whole file is put back as in base for the checks',
      },
    ]);
    // Exempt where editable covers package.json.
    expect(await flagged(r, withNyc, ['package.json', 'lib/**'])).toEqual([]);
    r.git('checkout', '--quiet', 'main');
    r.git('branch', '-D', 'candidate');
    const withDependency = candidate(r, (c) => c.write('package.json', JSON.stringify({ ...pkg, dependencies: { 'side-channel': '^1.0.0' } }, null, 2)));
    expect(await flagged(r, withDependency)).toEqual([]);
  });

  it('flags pyproject.toml when its pytest table changed, not for a dependency; a conftest.py and a sitecustomize.py', async () => {
    const r = repo({
      'pyproject.toml': '[project]\nname = "calc"\ndependencies = []\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
      'calc/__init__.py': '',
      'tests/test_calc.py': 'def test_x(): pass\n',
    });
    const at = candidate(r, (c) => {
      c.write('pyproject.toml', '[project]\nname = "calc"\ndependencies = ["attrs"]\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\naddopts = "--co"\n');
      c.write('conftest.py', 'def pytest_runtest_makereport(item, call): pass\n');
      c.write('calc/sitecustomize.py', 'import os\n');
    });
    expect(await flagged(r, at)).toEqual([
      { path: 'calc/sitecustomize.py', rule: 'frozen' },
      { path: 'conftest.py', rule: 'frozen' },
      {
        path: 'pyproject.toml',
        rule: 'frozen',
        note: "its [tool.pytest] table changed (a test runner's configuration): the whole file is put back as in base for the checks",
      },
    ]);
    r.git('checkout', '--quiet', 'main');
    r.git('branch', '-D', 'candidate');
    const dependency = candidate(r, (c) =>
      c.write('pyproject.toml', '[project]\nname = "calc"\ndependencies = ["attrs"]\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'),
    );
    expect(await flagged(r, dependency)).toEqual([]);
  });

  it('flags a `replace` added to go.mod, not a `require`', async () => {
    const r = repo({ 'go.mod': 'module calc\n\ngo 1.21\n', 'calc.go': 'package calc\n' });
    const at = candidate(r, (c) => c.write('go.mod', 'module calc\n\ngo 1.21\n\nrequire example.com/x v1.0.0\n\nreplace (\n\texample.com/x => ./fake\n)\n'));
    expect(await flagged(r, at)).toEqual([
      {
        path: 'go.mod',
        rule: 'frozen',
        note: "its replace directives changed (a test runner's configuration): the whole file is put back as in base for the checks",
      },
    ]);
    r.git('checkout', '--quiet', 'main');
    r.git('branch', '-D', 'candidate');
    const require = candidate(r, (c) => c.write('go.mod', 'module calc\n\ngo 1.21\n\nrequire example.com/x v1.0.0\n'));
    expect(await flagged(r, require)).toEqual([]);
  });

  it('flags a `_test.go` the candidate adds (a TestMain that exits 0 passes `go test` with no test run) or changes; exempt where editable covers it', async () => {
    const r = repo({
      'go.mod': 'module calc\n\ngo 1.19\n',
      'calc.go': 'package calc\n\nfunc Add(a, b int) int { return a - b }\n',
      'calc_test.go': 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("wrong")\n\t}\n}\n',
    });
    const at = candidate(r, (c) => {
      c.write('x_test.go', 'package calc\n\nimport (\n\t"os"\n\t"testing"\n)\n\nfunc TestMain(m *testing.M) { os.Exit(0) }\n');
      c.write('calc_test.go', 'package calc\n');
      c.write('calc.go', 'package calc\n\nfunc Add(a, b int) int { return a * b }\n');
    });
    expect(await flagged(r, at)).toEqual([
      { path: 'calc_test.go', rule: 'frozen' },
      { path: 'x_test.go', rule: 'frozen' },
    ]);
    // Kept as in base for the checks: base's tests put back, the added one removed.
    const kept = await runnerKept(r.dir, { ...at, runner: await runnerFilesOf(r.dir, at.base), editable: [] });
    expect(kept.pathspecs).toEqual([':(top,literal)calc_test.go', ':(top,literal)x_test.go']);
    // A task that asks for tests says so in editable.
    expect(await flagged(r, at, ['**/*.go'])).toEqual([]);
  });

  it("keeps base's runner files too (for the restore by content and the kept-files watch), not those editable covers", async () => {
    const r = repo({ ...QS_FILES, '.nycrc': '{}\n', '.npmrc': 'fund=false\n' });
    const at = candidate(r, (c) => c.write('lib/index.js', 'module.exports = (s) => s.trim();\n'));
    const runner = await runnerFilesOf(r.dir, at.base);
    expect((await runnerKept(r.dir, { ...at, runner, editable: [] })).pathspecs).toEqual([':(top,literal).npmrc', ':(top,literal).nycrc']);
    expect((await runnerKept(r.dir, { ...at, runner, editable: ['lib/**', '.nycrc'] })).pathspecs).toEqual([':(top,literal).npmrc']);
  });
});
