/**
 * What each test runner reads or decides by besides the tests, by name (for src/spec/repo-probe.ts
 * and `bestof init`): the test folders and test-file patterns init freezes where they match a
 * committed file, and the names it protects whether or not the repo has them; and what every run
 * keeps as in base whatever the spec says (RUNNER_DEFAULT_FILES, RUNNER_KEYED_FILES: used by
 * src/checks/runner-defaults.ts), built from the same lists. Every entry is here
 * because a candidate that added or changed such a file passed a check without the fix (most of
 * them tried: the comments say which).
 */

/**
 * What pytest reads besides the tests, by name and anywhere: its hooks (conftest.py) and its
 * configuration (addopts, testpaths, python_files: a pytest.ini or pytest.toml, or a section of
 * pyproject.toml, tox.ini or setup.cfg, the first of them found), the modules `python3 -m pytest` imports from
 * the folder it runs in before pytest itself (pytest.py, a pytest/ package), and package metadata
 * there: pytest loads every plugin a `*.dist-info` or `*.egg-info` folder on its import path names
 * (its entry_points.txt's `pytest11` group), and `python3 -m pytest` has the folder it runs in on
 * that path. And the marks of a virtual environment, whose folder pytest never collects from: a
 * `pyvenv.cfg` or `conda-meta/history` (pytest 8 and later), an activate script in `bin/` or
 * `Scripts/` (before): a candidate that put a pyvenv.cfg beside the failing tests passed with them
 * never run (checked with pytest 9 and, by bin/activate, 7.2).
 */
export const PYTEST_RUNNER_FILES: readonly string[] = [
  '**/conftest.py',
  '**/pytest.ini',
  '**/.pytest.ini',
  // pytest 9 reads a pytest.toml or .pytest.toml first (an added one with `addopts = ["--co"]`
  // passed: pytest only collected the tests; tried with pytest 9.0).
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
];

/**
 * What npm reads besides the tests for every script it runs, by name and anywhere: the project's
 * .npmrc (its `node-options` would load code of the candidate's into `npm test`) and node_modules
 * (npm puts node_modules/.bin first on PATH, and the tests import from it: a committed
 * node_modules/.bin/node, or a fake of a library, would be what the check runs).
 */
export const NPM_RUNNER_FILES: readonly string[] = ['**/.npmrc', '**/node_modules/**'];

/**
 * What cargo reads besides the tests, by name and anywhere: a `.cargo/config.toml` (or the older
 * `.cargo/config`) whose `runner` runs the test binaries, a `build.rs`, which cargo runs before it
 * compiles the tests (it could rewrite them), and rustup's toolchain file, whose `path` (absolute:
 * the worktree's own path is known to the agent) makes `cargo` a program of the candidate's
 * (checked: a script that exits 0 passed `cargo test`).
 */
export const CARGO_RUNNER_FILES: readonly string[] = [
  '**/.cargo/config.toml',
  '**/.cargo/config',
  '**/build.rs',
  '**/rust-toolchain.toml',
  '**/rust-toolchain',
];

/** The kinds of repository `bestof init` recognises (src/spec/repo-probe.ts finds them). */
export type RepoKind = 'node' | 'python' | 'rust' | 'go' | 'make';

/**
 * Test folders and test-file patterns, by kind, for `[checks] frozen`: only those that match a
 * committed file are kept (`tests`: they are tests, not only what runs them). The `protect` ones are
 * for `[checks] protected`: a test runner's own hook and configuration files, by name, offered
 * whether or not the repo has one. Where the repo has none, a candidate that adds one (a conftest.py
 * whose hook turns every failure into a pass, a pytest.ini with `addopts = --co`, a pytest.py that
 * `python -m pytest` imports before pytest itself, an .npmrc whose node-options loads its code into
 * `npm test`) changes what the check runs: protected, such a file is removed before the checks and
 * the candidate cannot win. `protectUnmatched`: a test-file pattern that is frozen where it matches
 * a committed file, and protected where it matches none.
 */
export const FROZEN_CANDIDATES: readonly {
  readonly pattern: string;
  readonly kinds?: readonly RepoKind[];
  readonly protect?: true;
  readonly tests?: true;
  readonly protectUnmatched?: true;
}[] = [
  { pattern: 'test/**', tests: true },
  { pattern: 'tests/**', tests: true },
  { pattern: '__tests__/**', kinds: ['node'], tests: true },
  { pattern: 'spec/**', kinds: ['node'], tests: true },
  { pattern: 'src/**/*.test.ts', kinds: ['node'], tests: true },
  { pattern: 'src/**/*.test.js', kinds: ['node'], tests: true },
  { pattern: 'src/**/*.spec.ts', kinds: ['node'], tests: true },
  // Snapshots are the tests' expected output (jest's and vitest's `toMatchSnapshot`, Python's
  // syrupy, Rust's insta): beside tests in src/, a candidate that rewrote the snapshot to its own
  // output passed with the bug unfixed (checked with vitest), and one that deletes it has it
  // written anew.
  { pattern: '**/__snapshots__/**', kinds: ['node', 'python'], tests: true },
  { pattern: '**/snapshots/*.snap', kinds: ['rust'], tests: true },
  // pytest imports every test module it collects into one process before any test runs: a module
  // the candidate adds under a name pytest collects (`a_test.py` at the root) can replace the code
  // under test (`calc.add = ...`) for the repo's own tests (checked: they passed with the bug
  // unfixed). Where the repo has no file of such a name, the name is protected instead.
  { pattern: '**/test_*.py', kinds: ['python'], tests: true, protectUnmatched: true },
  { pattern: '**/*_test.py', kinds: ['python'], tests: true, protectUnmatched: true },
  ...PYTEST_RUNNER_FILES.map((pattern) => ({ pattern, kinds: ['python'] as const, protect: true as const })),
  { pattern: '**/*_test.go', kinds: ['go'], tests: true },
  { pattern: '**/testdata/**', kinds: ['go'], tests: true },
  // What go builds the tests with: a `replace` in go.mod, a go.work or a vendor/ folder can put a
  // module of the candidate's in place of a library the tests import (their assertion library).
  { pattern: 'go.mod', kinds: ['go'] },
  // A go.mod added in a folder makes that folder a module of its own, which `go test ./...` and
  // `go vet ./...` of the repo's module then skip: a candidate that adds calc/go.mod passed with
  // calc's failing tests never run (checked, go 1.19).
  { pattern: '**/go.mod', kinds: ['go'], protect: true },
  { pattern: '**/go.work', kinds: ['go'], protect: true },
  { pattern: '**/vendor/**', kinds: ['go'], protect: true },
  // The checks run its scripts: an agent that edits `"test"` would pass without testing anything.
  { pattern: 'package.json', kinds: ['node'] },
  // What the typecheck and lint checks read: a tsconfig whose `files` names one empty file passes
  // `tsc --noEmit`, an .eslintrc that turns the rules off passes the lint.
  { pattern: '**/tsconfig*.json', kinds: ['node'] },
  { pattern: '**/.eslintrc*', kinds: ['node'] },
  { pattern: '**/.eslintignore', kinds: ['node'] },
  ...NPM_RUNNER_FILES.map((pattern) => ({ pattern, kinds: ['node'] as const, protect: true as const })),
  // The manifest says which tests `cargo test` runs and how it builds them: `autotests = false` and
  // a `[[test]]` whose path is a file of the candidate's (checked: the repo's tests/ then never run),
  // a `build = ` naming a build script other than build.rs, a `[patch]` of the tests' dependency.
  { pattern: '**/Cargo.toml', kinds: ['rust'] },
  ...CARGO_RUNNER_FILES.map((pattern) => ({ pattern, kinds: ['rust'] as const, protect: true as const })),
  // make reads the first of GNUmakefile, makefile and Makefile: a candidate that adds one of the
  // first two replaces the `test` target of the repo's Makefile (and the repo's may be any of them).
  { pattern: '**/GNUmakefile', kinds: ['make'], protect: true },
  { pattern: '**/makefile', kinds: ['make'], protect: true },
  { pattern: '**/Makefile', kinds: ['make'], protect: true },
  // asdf and mise pick the node, python3, cargo or go their shims run from a .tool-versions, and a
  // `path:` version there names any folder: for a user whose tools are such shims, a committed one
  // makes the check's runner a program of the candidate's (from their documentation; neither is
  // installed where this was written).
  { pattern: '**/.tool-versions', kinds: ['node', 'python', 'rust', 'go', 'make'], protect: true },
];

/** The frozen patterns init offers only where they match a file: the caller asks git which of them do (ProbeFacts). */
export const FROZEN_CANDIDATE_PATTERNS: readonly string[] = FROZEN_CANDIDATES.filter(({ protect }) => !protect).map(({ pattern }) => pattern);

/**
 * The configuration files of the test runner a package.json's "test" script names (jest and the
 * Babel configuration it applies, vitest, mocha), and of ESLint where its "lint" script runs it, by
 * name, anywhere: a candidate that adds one can point the runner at tests of its own, or at none
 * (`passWithNoTests`), or turn the lint rules off.
 */
export function runnerConfigs(scripts: Readonly<Record<string, unknown>>): string[] {
  const test = typeof scripts.test === 'string' ? scripts.test : '';
  const names = (base: string, extensions: readonly string[]): string[] => extensions.map((ext) => `**/${base}.${ext}`);
  const scriptExtensions = ['js', 'cjs', 'mjs', 'ts', 'cts', 'mts'];
  return [
    // jest transforms every test file with babel-jest, which applies the project's Babel
    // configuration where there is one (a plugin of the candidate's could rewrite the tests), and
    // puts a module in a __mocks__ folder beside node_modules in place of the package of its name
    // without being asked (a fake of the tests' assertion library would never fail).
    ...(/\bjest\b/.test(test)
      ? [
          ...names('jest.config', [...scriptExtensions, 'json']),
          ...names('babel.config', [...scriptExtensions, 'json']),
          '**/.babelrc',
          ...names('.babelrc', ['js', 'cjs', 'mjs', 'json']),
          '**/__mocks__/**',
        ]
      : []),
    ...(/\bvitest\b/.test(test)
      ? [...names('vitest.config', scriptExtensions), ...names('vitest.workspace', [...scriptExtensions, 'json']), ...names('vite.config', scriptExtensions)]
      : []),
    ...(/\bmocha\b/.test(test) ? names('.mocharc', ['js', 'cjs', 'mjs', 'json', 'jsonc', 'yml', 'yaml']) : []),
    // ESLint 9 takes an eslint.config.* over the repo's .eslintrc: one that turns the rules off passes
    // the lint. ESLint 8 merges every .eslintrc it finds up from a linted file (`"root": true` and
    // the rules off in src/.eslintrc.json), and skips what an .eslintignore names (from ESLint's
    // documentation: not installed where this was written). Where the repo has these files, they
    // are frozen (FROZEN_CANDIDATES), which also covers new ones; probeRepo drops the duplicates.
    ...(typeof scripts.lint === 'string' && /\beslint\b/.test(scripts.lint)
      ? [...names('eslint.config', scriptExtensions), '**/.eslintrc*', '**/.eslintignore']
      : []),
  ];
}

/**
 * The test runners' files bestof keeps as in base at run time whatever the spec says (beside its
 * `[checks] frozen` and `protected`), by the kind of project base holds (runnerKindsOf): a spec
 * written by hand, with no `protected` list, is protected from the same tricks as one `bestof init`
 * wrote. Unless the spec's `editable` covers the path (src/checks/runner-defaults.ts): a task that is
 * about a test runner's configuration says so there. Found on a real library: a candidate that added
 * an `.nycrc` whose `require` loaded a file of its own (`process.exit(0)` at exit) turned `nyc tape`
 * into a pass and won with the bug unfixed.
 *
 * node: what npm reads (NPM_RUNNER_FILES, and a committed `node_modules` link itself), the
 * configuration files of nyc, c8, mocha, jest, vitest and ava, and Babel's, which jest and ava apply
 * to every test file; with the configuration files of the runner the "test" script names
 * (runnerConfigs). python: what pytest reads (PYTEST_RUNNER_FILES, but pyproject.toml, whose pytest
 * section is compared on its own: RUNNER_KEYED_FILES), the modules Python imports at start-up from its
 * path (`sitecustomize.py`, `usercustomize.py`, and the `*.pth` files `site` runs a line of), and a
 * module named as the runner (`unittest.py` beside `pytest.py`: `python -m unittest` imports it from
 * the folder it runs in). rust: CARGO_RUNNER_FILES, and all of `.cargo/`. go: a go.work, a vendor/
 * folder, a go.mod in a folder (which cuts that folder out of `./...`) and the test files
 * themselves (a `TestMain` decides for every test of its package); the root go.mod's `replace`
 * directives are compared on their own.
 */
export const RUNNER_DEFAULT_FILES: Readonly<Record<RunnerKind, readonly string[]>> = {
  node: [
    ...NPM_RUNNER_FILES,
    '**/node_modules',
    '**/.nycrc*',
    '**/nyc.config.*',
    '**/.c8rc*',
    '**/.mocharc*',
    '**/jest.config.*',
    '**/vitest.config.*',
    '**/vitest.workspace.*',
    '**/ava.config.*',
    '**/babel.config.*',
    '**/.babelrc*',
  ],
  python: [
    ...PYTEST_RUNNER_FILES.filter((pattern) => pattern !== '**/pyproject.toml'),
    '**/sitecustomize.py',
    '**/usercustomize.py',
    '**/*.pth',
    '**/unittest.py',
    '**/unittest/__init__.py',
  ],
  rust: [...CARGO_RUNNER_FILES, '**/.cargo', '**/.cargo/**'],
  // Every `*_test.go`: `go test` compiles all of a package's test files into one program, so a
  // file the candidate adds beside the package's tests runs first and decides for them (a
  // `func TestMain(m *testing.M) { os.Exit(0) }`, an `init` or a package variable's initializer
  // that exits 0, a test helper that replaces what the tests call): checked with go 1.19, `go test
  // ./...` passed with the failing tests never run. Whatever runs `go test` (a check's own, a
  // Makefile's, a script's), so by the kind of project, not by the check's command. A task that
  // asks for new tests lists them in `editable` (`editable = ["**/*.go"]`).
  go: ['**/go.work', '**/go.work.sum', '**/vendor/**', '*/**/go.mod', '**/*_test.go'],
};

/** The kinds of project whose test runner's files RUNNER_DEFAULT_FILES lists. */
export type RunnerKind = Extract<RepoKind, 'node' | 'python' | 'rust' | 'go'>;

/**
 * A file at the root that holds a test runner's configuration among the project's own (its
 * dependencies, its metadata): only those parts are compared, so that a candidate may still add a
 * dependency. A change there is a change of the whole file: it is put back as in base for the checks,
 * and the candidate is flagged (the note says which part changed).
 */
export interface KeyedRunnerFile {
  readonly kind: RunnerKind;
  readonly path: string;
  /** What is compared: package.json's top-level keys, pyproject.toml's `[tool.X]` tables, go.mod's directives. */
  readonly format: 'json-keys' | 'toml-tool' | 'go-directives';
  readonly keys: readonly string[];
}

export const RUNNER_KEYED_FILES: readonly KeyedRunnerFile[] = [
  // nyc, c8, mocha, jest and ava read their configuration from package.json's key of their name too,
  // and Babel from `"babel"`.
  { kind: 'node', path: 'package.json', format: 'json-keys', keys: ['jest', 'ava', 'nyc', 'mocha', 'c8', 'babel'] },
  // `[tool.pytest.ini_options]`, and pytest 9's `[tool.pytest]`.
  { kind: 'python', path: 'pyproject.toml', format: 'toml-tool', keys: ['pytest'] },
  // A `replace` puts a module of the candidate's in place of a library the tests import.
  { kind: 'go', path: 'go.mod', format: 'go-directives', keys: ['replace'] },
];

/**
 * Files at the root that say which kinds of project base holds, as src/spec/repo-probe.ts finds them
 * (a package.json; pyproject.toml, setup.py, setup.cfg or pytest's own files; Cargo.toml; go.mod),
 * plus committed files named as pytest collects tests.
 */
export const RUNNER_KIND_MARKERS: Readonly<Record<RunnerKind, readonly string[]>> = {
  node: ['package.json'],
  python: [
    'pyproject.toml',
    'setup.py',
    'setup.cfg',
    'pytest.ini',
    '.pytest.ini',
    'pytest.toml',
    '.pytest.toml',
    'tox.ini',
    'conftest.py',
    '**/test_*.py',
    '**/*_test.py',
  ],
  rust: ['Cargo.toml'],
  go: ['go.mod'],
};
