/**
 * The starter spec written from what the repo holds (src/spec/repo-probe.ts): each kind of repo,
 * made for real in a temp folder, gets the checks, frozen paths and links that exist there, and
 * the starter still loads as written.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatSpecProblems } from '../../src/spec/errors.js';
import { loadSpec } from '../../src/spec/load.js';
import { editableCandidates, probeRepo, REPORTING_COMMANDS, testCommandFileCandidates } from '../../src/spec/repo-probe.js';
import { FROZEN_CANDIDATE_PATTERNS } from '../../src/spec/runner-files.js';
import { globsMatching } from '../../src/checks/frozen.js';
import { starterSpec } from '../../src/spec/starter.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';
import { REPO_FIXTURES, type FixtureKind } from './repo-fixtures.js';

const { repo } = tempRepos();

async function probed(kind: FixtureKind, extra: (dir: string, r: TempRepo) => void = () => undefined, clippy = false) {
  const r = repo(REPO_FIXTURES[kind]);
  extra(r.dir, r);
  const frozenMatching = await globsMatching(r.dir, 'HEAD', [...FROZEN_CANDIDATE_PATTERNS, ...testCommandFileCandidates(r.dir)]);
  const editableMatching = await globsMatching(r.dir, 'HEAD', editableCandidates(r.dir));
  return { r, probe: probeRepo(r.dir, { frozenMatching, clippy, editableMatching }) };
}

async function loadStarter(dir: string, toml: string) {
  const path = join(dir, 'bestof.toml');
  writeFileSync(path, toml);
  const loaded = await loadSpec(path);
  if (!loaded.ok) throw new Error(`${formatSpecProblems(loaded.error)}\n\n${toml}`);
  return loaded.value.spec;
}

describe('probeRepo and the starter it writes', () => {
  const PYTEST_FILES = [
    '**/conftest.py',
    '**/pytest.ini',
    '**/.pytest.ini',
    '**/pytest.toml',
    '**/.pytest.toml',
    '**/pyproject.toml',
    '**/tox.ini',
    '**/setup.cfg',
    '**/pytest.py',
    '**/pytest/__init__.py',
    '**/*.dist-info/**',
    '**/*.egg-info/**',
    '**/pyvenv.cfg',
    '**/conda-meta/history',
    '**/bin/activate*',
    '**/bin/Activate*',
    '**/Scripts/activate*',
    '**/Scripts/Activate*',
    '**/.tool-versions',
  ];
  it.each<
    [FixtureKind, { checks: [string, string][]; reports?: (string | null)[]; frozen: string[]; protected?: string[]; link?: string[]; editable?: string[] }]
  >([
    [
      'node',
      {
        checks: [
          ['test', REPORTING_COMMANDS.nodeTest],
          ['lint', 'npm run lint'],
        ],
        reports: ['junit', null],
        frozen: ['test/**', 'package.json'],
        protected: ['**/.npmrc', '**/node_modules/**', '**/.tool-versions'],
        link: ['node_modules'],
        editable: ['src/**'],
      },
    ],
    // `**/*_test.py` matches no file here: protected, so that a test module added under that name (which pytest imports with the others) cannot replace the code under test.
    [
      'python',
      {
        checks: [['test', REPORTING_COMMANDS.pytest]],
        reports: ['junit'],
        frozen: ['tests/**', '**/test_*.py'],
        protected: ['**/*_test.py', ...PYTEST_FILES],
        editable: ['fixture/**'],
      },
    ],
    [
      'rust',
      {
        checks: [['test', 'cargo test']],
        frozen: ['tests/**', '**/Cargo.toml'],
        editable: ['src/**'],
        protected: ['**/.cargo/config.toml', '**/.cargo/config', '**/build.rs', '**/rust-toolchain.toml', '**/rust-toolchain', '**/.tool-versions'],
      },
    ],
    // The module's code is its .go files at the root.
    [
      'go',
      {
        checks: [
          ['test', REPORTING_COMMANDS.goTest],
          ['vet', 'go vet ./...'],
        ],
        reports: ['go-json', null],
        frozen: ['**/*_test.go', 'go.mod'],
        protected: ['**/go.mod', '**/go.work', '**/vendor/**', '**/.tool-versions'],
        editable: ['*.go'],
      },
    ],
    [
      'make',
      { checks: [['test', 'make test']], frozen: ['tests/**'], protected: ['**/GNUmakefile', '**/makefile', '**/Makefile', '**/.tool-versions', 'test'] },
    ],
  ])('a %s repo: its own checks, frozen and protected paths, and the starter loads as written', async (kind, expected) => {
    // A Node repo with its dependencies installed gets them linked.
    const { r, probe } = await probed(kind, (dir) => kind === 'node' && mkdirSync(join(dir, 'node_modules', 'dep'), { recursive: true }));
    expect(probe.checks.map((c) => [c.name, c.command])).toEqual(expected.checks);
    expect(probe.frozen).toEqual(expected.frozen);
    expect(probe.protected).toEqual(expected.protected ?? []);
    expect(probe.link).toEqual(expected.link ?? []);
    expect(probe.testsFrozen).toBe(true);
    const toml = starterSpec({ name: kind, probe });
    expect(toml).toContain('# found in this repo; restored from `base` before every check run: no candidate can edit its way to a pass');
    const spec = await loadStarter(r.dir, toml);
    expect(spec.checks.items.map((c) => [c.name, c.command])).toEqual(expected.checks);
    // The runners that write a report with nothing installed get a report check; the rest stay exit codes.
    expect(spec.checks.items.map((c) => c.report ?? null)).toEqual(expected.reports ?? expected.checks.map(() => null));
    expect(spec.checks.items.reduce((sum, c) => sum + c.score, 0)).toBe(100);
    expect(spec.checks.frozen).toEqual(expected.frozen);
    expect(spec.checks.protected).toEqual(expected.protected ?? []);
    expect(spec.setup.link).toEqual(expected.link ?? []);
    expect(probe.editable).toEqual(expected.editable ?? []);
    expect(spec.checks.editable).toEqual(expected.editable ?? []);
  });

  it.each(['vitest run', 'vitest', 'vitest run --coverage test/unit'])("a Node repo whose test script is `%s` gets vitest's junit report", async (script) => {
    const { probe } = await probed('node', (dir) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: script } })));
    expect(probe.checks.map((check) => [check.command, check.report ?? null])).toEqual([[REPORTING_COMMANDS.vitest, 'junit']]);
    // The test script's own files are still found (it is still `npm test` that runs).
    expect(probe.protected).toEqual(expect.arrayContaining(['**/vitest.config.ts']));
  });

  it.each([
    ['vitest run && node scripts/after.js', 'a second program after it'],
    ['node --test && node scripts/after.js', 'a second program after it'],
    ['node --test | tee log.txt', 'a pipe'],
    ['jest --ci', 'a runner whose junit report needs a package (jest-junit)'],
  ])('a Node repo whose test script is `%s` (%s) keeps `npm test` as an exit-code check', async (script) => {
    const { probe } = await probed('node', (dir) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: script } })));
    expect(probe.checks.map((check) => [check.command, check.report ?? null])).toEqual([['npm test', null]]);
  });

  it.each([
    [
      'jest --ci',
      ['**/jest.config.js', '**/jest.config.ts', '**/jest.config.json', '**/babel.config.js', '**/.babelrc', '**/.babelrc.json', '**/__mocks__/**'],
      ['vitest.', 'vite.', '.mocharc.'],
    ],
    ['vitest run', ['**/vitest.config.ts', '**/vitest.workspace.json', '**/vite.config.mjs'], ['jest.', '.mocharc.', 'babel.', '.babelrc', '__mocks__']],
    ['mocha test/', ['**/.mocharc.yml', '**/.mocharc.json'], ['jest.', 'vitest.', 'vite.', 'babel.', '.babelrc', '__mocks__']],
  ])("a Node repo whose tests run `%s` freezes that runner's configuration files by name, though it has none", async (script, some, notOthers) => {
    const { probe } = await probed('node', (dir) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: script } })));
    expect(probe.protected).toEqual(expect.arrayContaining(['**/.npmrc', ...some]));
    expect(probe.protected.filter((file) => notOthers.some((start) => file.startsWith(`**/${start}`)))).toEqual([]);
  });

  it("a Node repo's tsconfig and ESLint configuration are frozen where they exist, and an eslint.config by name where the lint runs eslint", async () => {
    const { probe } = await probed('node', (dir, made) => {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'node --test', lint: 'eslint .', typecheck: 'tsc --noEmit' } }));
      writeFileSync(join(dir, 'tsconfig.json'), '{}');
      writeFileSync(join(dir, 'tsconfig.build.json'), '{}');
      writeFileSync(join(dir, '.eslintrc.json'), '{}');
      made.commitAll('typescript and eslint');
    });
    expect(probe.frozen).toEqual(['test/**', 'package.json', '**/tsconfig*.json', '**/.eslintrc*']);
    expect(probe.protected).toEqual(expect.arrayContaining(['**/eslint.config.js', '**/eslint.config.mjs', '**/eslint.config.ts', '**/.eslintignore']));
    // Frozen already (the repo has one, and a frozen pattern covers new files too): not protected again.
    expect(probe.protected).not.toContain('**/.eslintrc*');
    // A repo without them gets both by name: ESLint 8 merges an .eslintrc added in a folder, and skips what an .eslintignore names.
    const bare = await probed('node', (dir, made) => {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'node --test', lint: 'eslint .' } }));
      made.commitAll('eslint, no configuration of its own');
    });
    expect(bare.probe.frozen).not.toContain('**/.eslintrc*');
    expect(bare.probe.protected).toEqual(expect.arrayContaining(['**/.eslintrc*', '**/.eslintignore']));
    // Without an eslint lint script, no eslint.config name.
    expect((await probed('node')).probe.protected.some((file) => file.includes('eslint'))).toBe(false);
  });

  it('every name offered anywhere covers every folder, and the starter writes them under protected, none under frozen', async () => {
    const { r, probe } = await probed('python');
    const node = (await probed('node', (dir) => writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'jest && vitest run && mocha' } }))))
      .probe;
    const others = await Promise.all((['rust', 'go', 'make'] as const).map(async (kind) => (await probed(kind)).probe.protected));
    // But for make's own names, which make reads at the root, where it runs: its includes, and the
    // file named as the check's target (`test`).
    const runners = others.flat().filter((pattern) => pattern !== 'test');
    for (const pattern of [...probe.protected, ...node.protected, ...runners]) expect(pattern, pattern).toMatch(/^\*\*\//);
    const spec = await loadStarter(r.dir, starterSpec({ name: 'python', probe }));
    expect(spec.checks.frozen.filter((pattern) => probe.protected.includes(pattern))).toEqual([]);
    expect(spec.checks.protected).toEqual(probe.protected);
  });

  it('a repo whose make file is a lowercase makefile gets it protected (and the GNUmakefile make would read first)', async () => {
    const { r, probe } = await probed('bare', (dir, made) => {
      writeFileSync(join(dir, 'makefile'), 'test:\n\ttrue\n');
      made.commitAll('a makefile');
    });
    expect(probe.checks.map((c) => c.command)).toEqual(['make test']);
    const kept = [...probe.frozen, ...probe.protected];
    expect([...(await globsMatching(r.dir, 'HEAD', kept))]).toEqual(['**/makefile']);
    expect(kept).toContain('**/GNUmakefile');
  });

  it('a Rust crate whose tests are inside its code: no test folder to freeze, the starter says so, and still protects the runner files', async () => {
    const { r, probe } = await probed('bare', (dir, made) => {
      writeFileSync(join(dir, 'Cargo.toml'), '[package]\nname = "x"\nversion = "0.1.0"\nedition = "2021"\n');
      mkdirSync(join(dir, 'src'));
      writeFileSync(
        join(dir, 'src', 'lib.rs'),
        'pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nmod tests { #[test] fn t() { assert_eq!(super::add(1, 2), 3); } }\n',
      );
      made.commitAll('a crate');
    });
    expect(probe.frozen).toEqual(['**/Cargo.toml']);
    expect(probe.testsFrozen).toBe(false);
    const toml = starterSpec({ name: 'crate', probe });
    expect(toml).toContain('frozen = ["**/Cargo.toml"]   # found in this repo: what runs the tests; no test folder found: add your tests');
    expect(toml).not.toContain('no candidate can edit its way to a pass');
    const spec = await loadStarter(r.dir, toml);
    expect(spec.checks.frozen).toEqual(['**/Cargo.toml']);
    expect(spec.checks.protected).toEqual([
      '**/.cargo/config.toml',
      '**/.cargo/config',
      '**/build.rs',
      '**/rust-toolchain.toml',
      '**/rust-toolchain',
      '**/.tool-versions',
    ]);
  });

  it("a make repo's included files are protected by the names its make file gives them, committed or not", async () => {
    const { r, probe } = await probed('make', (dir, made) => {
      writeFileSync(
        join(dir, 'Makefile'),
        'TESTCMD = sh tests/run.sh\ninclude common.mk\ntest:\n\t$(TESTCMD)\n\n-include local.mk ./other.mk # a comment\nsinclude $(HOME)/x.mk\n-include ../outside.mk\n',
      );
      writeFileSync(join(dir, 'common.mk'), '# shared\n');
      made.commitAll('includes');
    });
    // And `test`, the file named as the target the check makes (a file of that name would leave make nothing to do).
    expect(probe.protected).toEqual(['**/GNUmakefile', '**/makefile', '**/Makefile', '**/.tool-versions', 'common.mk', 'local.mk', 'other.mk', 'test']);
    expect((await loadStarter(r.dir, starterSpec({ name: 'make', probe }))).checks.protected).toContain('local.mk');
  });

  it('the names of the targets `test` depends on (a file of such a name leaves make nothing to do there) are protected, as `test` is', async () => {
    const { probe } = await probed('make', (dir, made) => {
      writeFileSync(
        join(dir, 'Makefile'),
        '.PHONY: lint\ntest: test-unit | test-lint\n\ntest-unit: build $(OBJ) lib/%.o\n\tsh tests/run.sh\ntest-lint:\n\ttrue\nbuild::\n\ttrue\nunrelated: test-unit\n\ttrue\nX := 1\n',
      );
      made.commitAll('targets');
    });
    expect(probe.protected.slice(probe.protected.indexOf('**/.tool-versions') + 1)).toEqual(['test', 'test-unit', 'test-lint', 'build']);
  });

  it("snapshot files, where the repo has them, are frozen as tests: jest's and vitest's __snapshots__, insta's snapshots/*.snap", async () => {
    const node = await probed('node', (dir, made) => {
      mkdirSync(join(dir, 'src', '__snapshots__'));
      writeFileSync(join(dir, 'src', '__snapshots__', 'add.test.js.snap'), 'exports[`adds 1`] = `3`;\n');
      made.commitAll('a snapshot');
    });
    expect(node.probe.frozen).toEqual(['test/**', '**/__snapshots__/**', 'package.json']);
    const rust = await probed('rust', (dir, made) => {
      mkdirSync(join(dir, 'tests', 'snapshots'), { recursive: true });
      writeFileSync(join(dir, 'tests', 'snapshots', 'add__adds.snap'), '---\nsource: tests/add.rs\n---\n3\n');
      made.commitAll('a snapshot');
    });
    expect(rust.probe.frozen).toContain('**/snapshots/*.snap');
    // None where the repo has none: every frozen pattern must match a committed file.
    expect((await probed('node')).probe.frozen).not.toContain('**/__snapshots__/**');
  });

  it("pytest 9's pytest.toml marks a pytest repo, as a pytest.ini does", async () => {
    const { probe } = await probed('bare', (dir, made) => {
      writeFileSync(join(dir, 'pytest.toml'), '[pytest]\ntestpaths = ["checks"]\n');
      made.commitAll('pytest.toml');
    });
    expect(probe.checks.map((check) => check.command)).toEqual([REPORTING_COMMANDS.pytest]);
  });

  it('the scripts a make test recipe runs are frozen where they are committed and not in a frozen folder already', async () => {
    const { probe } = await probed('make', (dir, made) => {
      writeFileSync(
        join(dir, 'Makefile'),
        'lint:\n\tsh lint.sh\n\ntest: build\n\t@sh run-tests.sh\n\t-./scripts/check.sh --fast tests/run.sh\n\t$(MAKE) lint && node tools/*.js\n\tsh not-committed.sh\n\nother:\n\tsh other.sh\nbuild:\n\tsh build.sh\n',
      );
      for (const file of ['run-tests.sh', 'lint.sh', 'other.sh', 'build.sh', 'tools/a.js']) {
        mkdirSync(join(dir, file, '..'), { recursive: true });
        writeFileSync(join(dir, file), 'true\n');
      }
      mkdirSync(join(dir, 'scripts'));
      writeFileSync(join(dir, 'scripts', 'check.sh'), 'true\n');
      made.commitAll('scripts');
      writeFileSync(join(dir, 'not-committed.sh'), 'true\n');
    });
    // And the recipe of `build`, which `test` depends on; not those of `lint` or `other`.
    expect(probe.frozen).toEqual(['tests/**', 'run-tests.sh', 'scripts/check.sh', 'build.sh']);
  });

  it("the files package.json's pretest, test and posttest scripts (and the lint script) name are frozen; a make recipe's are not where `npm test` is the check", async () => {
    const { probe } = await probed('node', (dir, made) => {
      const scripts = {
        pretest: 'node scripts/prepare.js',
        test: 'node ./scripts/run-tests.mjs "test/one.test.js" && node --test test/',
        posttest: 'sh scripts/after.sh',
        lint: 'node scripts/lint.js',
        build: 'node scripts/build.js',
      };
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'fixture', scripts }));
      mkdirSync(join(dir, 'scripts'));
      for (const file of ['prepare.js', 'run-tests.mjs', 'after.sh', 'lint.js', 'build.js', 'make-test.sh']) writeFileSync(join(dir, 'scripts', file), '\n');
      writeFileSync(join(dir, 'Makefile'), 'test:\n\tsh scripts/make-test.sh\n');
      made.commitAll('scripts');
    });
    expect(probe.checks.map((check) => check.command)).toEqual(['npm test', 'npm run lint']);
    // And the lint check's script; not the build's, which no check runs.
    expect(probe.frozen).toEqual(['test/**', 'package.json', 'scripts/prepare.js', 'scripts/run-tests.mjs', 'scripts/after.sh', 'scripts/lint.js']);
  });

  it('a Rust repo gets a clippy check only where clippy is installed, and clippy.toml protected with it', async () => {
    const withClippy = (await probed('rust', undefined, true)).probe;
    expect(withClippy.checks.map((c) => c.command)).toEqual(['cargo test', 'cargo clippy -- -D warnings']);
    // A clippy.toml added with `too-many-arguments-threshold = 20` passed the clippy check (tried).
    expect(withClippy.protected).toEqual(expect.arrayContaining(['**/clippy.toml', '**/.clippy.toml']));
    expect((await probed('rust')).probe.protected).not.toContain('**/clippy.toml');
  });

  it("npm's placeholder test script, a tsconfig and a Node repo without node_modules", async () => {
    const { probe } = await probed('node', (dir) => {
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ scripts: { test: 'echo "Error: no test specified" && exit 1' }, devDependencies: { typescript: '5' } }),
      );
      writeFileSync(join(dir, 'tsconfig.json'), '{}');
    });
    expect(probe.checks.map((c) => c.command)).toEqual(['npx tsc --noEmit']);
    expect(probe.link).toEqual([]);
  });

  it('a repo with nothing to run: one placeholder check that says so, no frozen path, and it loads', async () => {
    const { r, probe } = await probed('bare');
    expect(probe).toEqual({ kinds: [], checks: [], frozen: [], testsFrozen: false, protected: [], link: [], editable: [] });
    const toml = starterSpec({ name: 'bare', probe });
    const spec = await loadStarter(r.dir, toml);
    expect(spec.checks.items).toHaveLength(1);
    expect(spec.checks.items[0]?.command).toContain('put your test command here');
    expect(spec.checks.frozen).toEqual([]);
    expect(toml).not.toContain('npm run lint');
  });

  it("editable: src/ where it holds committed files, else a Python repo's package folders (not its tests or docs), else nothing", async () => {
    const pkgs = await probed('python', (dir, made) => {
      for (const folder of ['other', 'tests', 'docs']) {
        mkdirSync(join(dir, folder), { recursive: true });
        writeFileSync(join(dir, folder, '__init__.py'), '');
      }
      made.commitAll('more packages');
      // An ignored or uncommitted package is not offered: the plan would refuse an editable glob that matches nothing.
      mkdirSync(join(dir, 'untracked'));
      writeFileSync(join(dir, 'untracked', '__init__.py'), '');
    });
    expect(pkgs.probe.editable).toEqual(['fixture/**', 'other/**']);
    const srcLayout = await probed('python', (dir, made) => {
      mkdirSync(join(dir, 'src', 'pkg'), { recursive: true });
      writeFileSync(join(dir, 'src', 'pkg', '__init__.py'), '');
      made.commitAll('src layout');
    });
    // src/ and a package at the root (src/ holding C sources, say): both, or every fix to the package would be undone.
    expect(srcLayout.probe.editable).toEqual(['src/**', 'fixture/**']);
    // Python modules at the root: no folder holds the code apart from the rest.
    const flat = await probed('bare', (dir, made) => {
      writeFileSync(join(dir, 'calc.py'), 'def add(a, b):\n    return a - b\n');
      mkdirSync(join(dir, 'tests'));
      writeFileSync(join(dir, 'tests', 'test_calc.py'), 'from calc import add\n');
      made.commitAll('flat');
    });
    expect(flat.probe.kinds).toEqual(['python']);
    expect(flat.probe.editable).toEqual([]);
    expect(starterSpec({ name: 'flat', probe: flat.probe })).toContain(
      '# editable = ["app.py", "lib/**"]  # recommended, naming your code: `python3 -m pytest` imports a module added at the root',
    );
    // A Node repo without src/ (its code in index.js): nothing.
    const node = await probed('node', (_dir, made) => {
      made.git('mv', 'src', 'lib');
      made.commitAll('lib');
    });
    expect(node.probe.editable).toEqual([]);
    // Workspaces (npm, Cargo): the code is in each member's folder, a root src/ is one of them: nothing.
    const npmWorkspace = await probed('node', (dir, made) => {
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'mono', workspaces: ['packages/*'], scripts: { test: 'node --test test/*.test.js' } }));
      made.commitAll('workspaces');
    });
    expect(npmWorkspace.probe.editable).toEqual([]);
    const cargoWorkspace = await probed('rust', (dir, made) => {
      writeFileSync(join(dir, 'Cargo.toml'), '[workspace]\nmembers = ["crates/*"]\n\n[package]\nname = "fixture"\nversion = "0.1.0"\nedition = "2021"\n');
      made.commitAll('a workspace');
    });
    expect(cargoWorkspace.probe.editable).toEqual([]);
    expect((await probed('rust')).probe.editable).toEqual(['src/**']);
  });

  it("editable: what the repo declares as its code (package.json main, exports, files, bin; pyproject packages; a Go module's folders), where it is committed", async () => {
    // qs's layout: the code in lib/, named by "main"; "files" names dist/, which is not committed.
    const qs = await probed('node', (dir, made) => {
      made.git('mv', 'src', 'lib');
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'qs', main: 'lib/index.js', files: ['dist/', 'lib'], scripts: { test: 'nyc tape test/*.js' } }),
      );
      made.commitAll('qs layout');
    });
    expect(qs.probe.editable).toEqual(['lib/**']);
    const toml = starterSpec({ name: 'qs', probe: qs.probe });
    expect(toml).toMatch(/^editable = \["lib\/\*\*"\]/m);
    expect((await loadStarter(qs.r.dir, toml)).checks.editable).toEqual(['lib/**']);
    // exports and bin: every path they name, a file at the root as itself; a test folder never.
    const exported = await probed('node', (dir, made) => {
      mkdirSync(join(dir, 'bin'));
      writeFileSync(join(dir, 'bin', 'cli.js'), '');
      writeFileSync(join(dir, 'index.mjs'), '');
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({
          name: 'x',
          exports: { '.': { import: './index.mjs', require: './src/add.js' } },
          bin: { x: './bin/cli.js' },
          files: ['test'],
          scripts: { test: 'node --test' },
        }),
      );
      made.commitAll('exports');
    });
    expect(exported.probe.editable).toEqual(['src/**', 'bin/**', 'index.mjs']);
    // pyproject's packages (setuptools), where the folder has no __init__.py of its own at the root.
    const setuptools = await probed('python', (dir, made) => {
      mkdirSync(join(dir, 'calc', 'core'), { recursive: true });
      writeFileSync(join(dir, 'calc', 'core', 'ops.py'), '');
      writeFileSync(join(dir, 'pyproject.toml'), '[project]\nname = "calc"\n\n[tool.setuptools]\npackages = ["calc.core"]\n');
      made.commitAll('setuptools packages');
    });
    expect(setuptools.probe.editable).toEqual(['calc/**', 'fixture/**']);
    // A Go module with a package folder: it and the root's .go files; testdata and vendor are not code.
    const goPackages = await probed('go', (dir, made) => {
      for (const folder of ['internal/parse', 'testdata', 'vendor/example.com/x']) mkdirSync(join(dir, folder), { recursive: true });
      writeFileSync(join(dir, 'internal', 'parse', 'parse.go'), 'package parse\n');
      writeFileSync(join(dir, 'testdata', 'gen.go'), 'package main\n');
      writeFileSync(join(dir, 'vendor', 'example.com', 'x', 'x.go'), 'package x\n');
      made.commitAll('packages');
    });
    expect(goPackages.probe.editable).toEqual(['*.go', 'internal/**']);
  });

  it('a test folder with no committed file in it is not frozen', async () => {
    const { probe } = await probed('bare', (dir) => {
      writeFileSync(join(dir, 'package.json'), '{}');
      mkdirSync(join(dir, 'test'));
      writeFileSync(join(dir, 'test', 'out.log'), 'x');
    });
    expect(probe.frozen).toEqual([]);
  });

  it('frozen patterns are offered as git matches them: `**/` also matches at the top, `*` stays in its folder', async () => {
    const { probe } = await probed('go');
    expect(probe.frozen).toContain('**/*_test.go'); // the fixture's add_test.go is at the top level
    const matching = await globsMatching((await probed('node')).r.dir, 'HEAD', ['test/**', 'tests/**', 'src/*.nothing']);
    expect([...matching]).toEqual(['test/**']);
  });
});
