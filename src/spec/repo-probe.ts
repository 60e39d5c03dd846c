/**
 * What `bestof init` finds in a repo, so the starter spec holds checks and frozen paths that
 * exist there rather than guesses: the test, lint and typecheck scripts of a package.json, pytest
 * (pyproject.toml, setup.cfg, pytest.ini, tests, committed test_*.py or *_test.py files), cargo
 * (Cargo.toml), go (go.mod), a Makefile's `test` target; the test folders, test-file patterns and
 * snapshots that match tracked files, and the committed scripts the checks run; the names of the
 * test runner's own files (and of make's targets), protected by name whether the repo has them or not; `[checks] editable` where the code's folder is clear (src/, a
 * Python repo's packages); and, for a Node repo whose dependencies are installed, `[setup] link =
 * ["node_modules"]` (the fastest way to give every worktree its dependencies: scripts/bench-setup.mjs).
 *
 * Only the repo's files are read here; what needs git or a process (which frozen and editable
 * patterns match a committed file, as the plan matches them; whether clippy is installed: a clippy check is offered
 * only where it is) the caller finds out (src/cli/commands/init.ts), as the spec layer runs nothing.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

export type RepoKind = 'node' | 'python' | 'rust' | 'go' | 'make';

export interface ProbedCheck {
  readonly name: string;
  readonly command: string;
  /** Why it is there, for the comment beside it: `package.json "test" script`. */
  readonly source: string;
}

export interface RepoProbe {
  /** The kinds of project found, in the order their checks come. */
  readonly kinds: readonly RepoKind[];
  readonly checks: readonly ProbedCheck[];
  /** `[checks] frozen` patterns, each matching at least one committed file. */
  readonly frozen: readonly string[];
  /** Some of `frozen` are tests (a test folder, test files by name), not only what runs them (package.json, go.mod). */
  readonly testsFrozen: boolean;
  /**
   * `[checks] protected` patterns: the test runner's own hook and configuration files, by name
   * (`**\/conftest.py`), whether or not the repo has one (FROZEN_CANDIDATES' `protect` entries,
   * runnerConfigs, makeIncludes).
   */
  readonly protected: readonly string[];
  /** `[setup] link` entries that exist (node_modules of a Node repo). */
  readonly link: readonly string[];
  /**
   * `[checks] editable`, where the repo's code clearly lives (editableCandidates): `src/**`, and a
   * Python repo's package folders; empty where that is not clear (code at the root, a Go module, a workspace).
   */
  readonly editable: readonly string[];
}

/** npm's placeholder: `npm init` writes it, and it always fails. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

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
export const CARGO_RUNNER_FILES: readonly string[] = ['**/.cargo/config.toml', '**/.cargo/config', '**/build.rs', '**/rust-toolchain.toml', '**/rust-toolchain'];

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
const FROZEN_CANDIDATES: readonly { readonly pattern: string; readonly kinds?: readonly RepoKind[]; readonly protect?: true; readonly tests?: true; readonly protectUnmatched?: true }[] = [
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
  // git converts a file's line endings and encoding by its .gitattributes (`text eol=crlf`,
  // `working-tree-encoding`) when it hashes it: a candidate that added `tests/expected.txt text
  // eol=crlf` and wrote that frozen fixture with CRLF left it on disk so, while git saw it unchanged
  // (nothing flagged, nothing restored), and its CRLF output passed a byte-exact check (tried).
  // Protected, such a file flags the candidate: it cannot win.
  { pattern: '**/.gitattributes', kinds: ['node', 'python', 'rust', 'go', 'make'], protect: true },
];

/** The frozen patterns init offers only where they match a file: the caller asks git which of them do (ProbeFacts). */
export const FROZEN_CANDIDATE_PATTERNS: readonly string[] = FROZEN_CANDIDATES.filter(({ protect }) => !protect).map(({ pattern }) => pattern);

/** Folders at the root that hold tests, documentation or examples, never a Python repo's code. */
const NOT_CODE = new Set(['test', 'tests', 'testing', 'docs', 'doc', 'examples', 'example', 'benchmarks', 'bench']);

/**
 * The `[checks] editable` patterns init may offer, before git says which match a committed file
 * (ProbeFacts.editableMatching): `src/**`, and each folder at the root with an `__init__.py` that is
 * not a test, documentation or examples folder (a Python package). Why offer one at all: without
 * it, what a candidate adds anywhere is its work, and some of it changes what a check runs without
 * any name init could list: `python3 -m pytest` imports from the folder it runs in before anything
 * installed, so a module at the root named as one pytest imports (the standard library's
 * argparse.py, pytest's own pluggy.py, a compiled pytest.pyc) passes every test unseen.
 */
export function editableCandidates(root: string): string[] {
  let entries: string[] = [];
  try {
    entries = readdirSync(root).sort();
  } catch {
    return ['src/**'];
  }
  const packages = entries.filter((name) => !name.startsWith('.') && name !== 'src' && !NOT_CODE.has(name) && existsSync(join(root, name, '__init__.py')));
  return ['src/**', ...packages.map((name) => `${name}/**`)];
}

/**
 * The scripts the repo's check commands run, as written (package.json's `test`, `lint` and
 * `typecheck` scripts with their `pre` and `post` scripts, the recipes of the Makefile's `test`
 * target and of the targets it depends on) and found on disk: a script that runs the tests (`sh
 * run-tests.sh`, `node scripts/test.js`) is what runs them, and a candidate that edits it to
 * `exit 0` passes (checked: with the tests frozen but not the script, it scored the full points).
 * init asks git which of them are committed (ProbeFacts.frozenMatching) and freezes those its
 * checks run (probeRepo).
 */
export function testCommandFileCandidates(root: string): string[] {
  const pkg = readJson(join(root, 'package.json'));
  return [...new Set([...NPM_CHECKED_SCRIPTS.flatMap((name) => npmScriptFiles(root, pkg, name)), ...makeTestFiles(root, makeFileText(root).text)])];
}

export interface ProbeFacts {
  /**
   * Which of FROZEN_CANDIDATE_PATTERNS and testCommandFileCandidates(root) match a file of HEAD
   * (src/checks/frozen.ts globsMatching, the plan's own test): an ignored build folder or
   * node_modules makes no pattern look useful.
   */
  readonly frozenMatching: ReadonlySet<string>;
  /** `cargo clippy --version` works here. */
  readonly clippy: boolean;
  /** Which of editableCandidates(root) match a file of HEAD. @default none */
  readonly editableMatching?: ReadonlySet<string>;
}

export function probeRepo(root: string, facts: ProbeFacts): RepoProbe {
  const kinds: RepoKind[] = [];
  const checks: ProbedCheck[] = [];
  const link: string[] = [];

  const pkg = readJson(join(root, 'package.json'));
  if (pkg !== undefined) {
    kinds.push('node');
    const scripts = isRecord(pkg.scripts) ? pkg.scripts : {};
    const script = (name: string): string | undefined => (typeof scripts[name] === 'string' ? (scripts[name] as string) : undefined);
    const test = script('test');
    if (test !== undefined && !NPM_PLACEHOLDER_TEST.test(test)) checks.push({ name: 'test', command: 'npm test', source: 'package.json "test" script' });
    for (const name of ['lint', 'typecheck']) {
      if (script(name) !== undefined) checks.push({ name, command: `npm run ${name}`, source: `package.json "${name}" script` });
    }
    if (script('typecheck') === undefined && existsSync(join(root, 'tsconfig.json')) && dependsOn(pkg, 'typescript')) {
      checks.push({ name: 'typecheck', command: 'npx tsc --noEmit', source: 'tsconfig.json and the typescript dependency' });
    }
    if (isFolder(join(root, 'node_modules'))) link.push('node_modules');
  }

  if (usesPytest(root, facts)) {
    kinds.push('python');
    checks.push({ name: 'test', command: 'python3 -m pytest -q', source: 'pytest configuration or tests' });
  }

  if (existsSync(join(root, 'Cargo.toml'))) {
    kinds.push('rust');
    checks.push({ name: 'test', command: 'cargo test', source: 'Cargo.toml' });
    if (facts.clippy) checks.push({ name: 'clippy', command: 'cargo clippy -- -D warnings', source: 'Cargo.toml, clippy installed' });
  }

  if (existsSync(join(root, 'go.mod'))) {
    kinds.push('go');
    checks.push({ name: 'test', command: 'go test ./...', source: 'go.mod' });
    checks.push({ name: 'vet', command: 'go vet ./...', source: 'go.mod' });
  }

  const { name: makefile, text: makeText } = makeFileText(root);
  if (makefile !== undefined && /^test\s*:/m.test(makeText)) {
    kinds.push('make');
    if (!checks.some((check) => check.name === 'test')) checks.push({ name: 'test', command: 'make test', source: `${makefile} "test" target` });
  }

  const offered = FROZEN_CANDIDATES.filter(({ kinds: only }) => only === undefined || only.some((kind) => kinds.includes(kind)));
  const frozenOffered = offered.filter(({ pattern, protect }) => !protect && facts.frozenMatching.has(pattern));
  const runs = (command: string): boolean => checks.some((check) => check.command === command);
  const npmFiles = NPM_CHECKED_SCRIPTS.flatMap((name) => (runs(name === 'test' ? 'npm test' : `npm run ${name}`) ? npmScriptFiles(root, pkg, name) : []));
  const commandFiles = [...npmFiles, ...(runs('make test') ? makeTestFiles(root, makeText) : [])];
  const frozen = frozenOffered.map(({ pattern }) => pattern);
  // The scripts the checks run, committed, and not in a folder frozen already (tests/run.sh).
  for (const path of new Set(commandFiles)) {
    if (facts.frozenMatching.has(path) && !frozen.some((pattern) => pattern.endsWith('/**') && path.startsWith(pattern.slice(0, -2)))) frozen.push(path);
  }
  const testsFrozen = frozenOffered.some(({ tests }) => tests === true);
  // `make test` does nothing when a file named `test` is newer than what the target depends on (a
  // Makefile without `.PHONY: test` is common): a candidate that adds an empty `test` at the root
  // passes it (checked: it won a tie with the honest candidate). So does a file named as a target
  // `test` depends on (`test: test-unit`, checked too). Kept as in base, the names are gone before
  // the checks; where the repo's tests are in a test/ folder, that is frozen already.
  const makeTarget = runs('make test') ? makeTargetNames(makeText, 'test') : [];
  const unmatchedTests = offered.filter(({ pattern, protectUnmatched }) => protectUnmatched && !facts.frozenMatching.has(pattern)).map(({ pattern }) => pattern);
  // clippy reads its lint thresholds from a clippy.toml in the package's folder: one the candidate
  // adds (`too-many-arguments-threshold = 20`) passed `cargo clippy -- -D warnings` (checked).
  const clippyConfig = runs('cargo clippy -- -D warnings') ? ['**/clippy.toml', '**/.clippy.toml'] : [];
  const runnerFiles = [
    ...unmatchedTests,
    ...offered.filter(({ protect }) => protect).map(({ pattern }) => pattern),
    ...runnerConfigs(pkg).filter((pattern) => !frozen.includes(pattern)),
    ...clippyConfig,
    ...(kinds.includes('make') ? makeIncludes(makeText) : []),
    ...makeTarget,
  ];
  const workspace = isWorkspace(root, pkg);
  return { kinds, checks: uniqueNames(checks), frozen, testsFrozen, protected: runnerFiles, link, editable: workspace ? [] : editableOf(kinds, facts.editableMatching ?? new Set()) };
}

/**
 * `src/**` where it holds committed files, and, in a Python repo, its package folders at the root
 * too (a repo whose src/ holds C sources keeps its Python code in a package at the root: an
 * allow-list of src/ alone would undo every fix there).
 */
function editableOf(kinds: readonly RepoKind[], matching: ReadonlySet<string>): string[] {
  const src = matching.has('src/**') ? ['src/**'] : [];
  return kinds.includes('python') ? [...src, ...[...matching].filter((pattern) => pattern !== 'src/**').sort()] : src;
}

/**
 * A repo of several packages or crates (npm, yarn or pnpm workspaces, a Cargo workspace, a go.work,
 * lerna): its code lives in each member's folder, and a root src/ is one member among them, so
 * init offers no `editable` there.
 */
function isWorkspace(root: string, pkg: Record<string, unknown> | undefined): boolean {
  if (pkg !== undefined && pkg.workspaces !== undefined) return true;
  if (['pnpm-workspace.yaml', 'lerna.json', 'go.work'].some((file) => existsSync(join(root, file)))) return true;
  const cargo = existsSync(join(root, 'Cargo.toml')) ? readFileSync(join(root, 'Cargo.toml'), 'utf8') : '';
  return /^\[workspace\]/m.test(cargo);
}

/**
 * The configuration files of the test runner a package.json's "test" script names (jest and the
 * Babel configuration it applies, vitest, mocha), and of ESLint where its "lint" script runs it, by
 * name, anywhere: a candidate that adds one can point the runner at tests of its own, or at none
 * (`passWithNoTests`), or turn the lint rules off.
 */
function runnerConfigs(pkg: Record<string, unknown> | undefined): string[] {
  const scripts = pkg !== undefined && isRecord(pkg.scripts) ? pkg.scripts : {};
  const test = typeof scripts.test === 'string' ? scripts.test : '';
  const names = (base: string, extensions: readonly string[]): string[] => extensions.map((ext) => `**/${base}.${ext}`);
  const scriptExtensions = ['js', 'cjs', 'mjs', 'ts', 'cts', 'mts'];
  return [
    // jest transforms every test file with babel-jest, which applies the project's Babel
    // configuration where there is one (a plugin of the candidate's could rewrite the tests), and
    // puts a module in a __mocks__ folder beside node_modules in place of the package of its name
    // without being asked (a fake of the tests' assertion library would never fail).
    ...(/\bjest\b/.test(test)
      ? [...names('jest.config', [...scriptExtensions, 'json']), ...names('babel.config', [...scriptExtensions, 'json']), '**/.babelrc', ...names('.babelrc', ['js', 'cjs', 'mjs', 'json']), '**/__mocks__/**']
      : []),
    ...(/\bvitest\b/.test(test) ? [...names('vitest.config', scriptExtensions), ...names('vitest.workspace', [...scriptExtensions, 'json']), ...names('vite.config', scriptExtensions)] : []),
    ...(/\bmocha\b/.test(test) ? names('.mocharc', ['js', 'cjs', 'mjs', 'json', 'jsonc', 'yml', 'yaml']) : []),
    // ESLint 9 takes an eslint.config.* over the repo's .eslintrc: one that turns the rules off passes
    // the lint. ESLint 8 merges every .eslintrc it finds up from a linted file (`"root": true` and
    // the rules off in src/.eslintrc.json), and skips what an .eslintignore names (from ESLint's
    // documentation: not installed where this was written). Where the repo has these files, they
    // are frozen (FROZEN_CANDIDATES), which also covers new ones; probeRepo drops the duplicates.
    ...(typeof scripts.lint === 'string' && /\beslint\b/.test(scripts.lint) ? [...names('eslint.config', scriptExtensions), '**/.eslintrc*', '**/.eslintignore'] : []),
  ];
}

/**
 * The files a make file includes (`include`, `-include`, `sinclude`), as written where a name holds
 * no variable: an optional `-include local.mk` that the repo does not have is the common case, and
 * a candidate that adds it can redefine the `test` target or a variable its recipe runs (checked:
 * `make test` then passes). Names are relative to the folder make runs in, the repo's root.
 */
function makeIncludes(text: string): string[] {
  const names = new Set<string>();
  for (const [, list] of text.matchAll(/^[ \t]*(?:-include|sinclude|include)[ \t]+([^#\n]+)/gm)) {
    for (const name of (list ?? '').trim().split(/\s+/)) {
      if (name !== '' && !name.includes('$') && !name.startsWith('/') && !name.split('/').includes('..')) names.add(name.replace(/^(\.\/)+/, ''));
    }
  }
  return [...names];
}

/** The make file make reads first (GNUmakefile, makefile, Makefile), and its text. */
function makeFileText(root: string): { name?: string; text: string } {
  const name = ['GNUmakefile', 'makefile', 'Makefile'].find((file) => existsSync(join(root, file)));
  return name === undefined ? { text: '' } : { name, text: readFileSync(join(root, name), 'utf8') };
}

/** The package.json scripts init may write a check for (`npm test`, `npm run lint`, `npm run typecheck`). */
const NPM_CHECKED_SCRIPTS = ['test', 'lint', 'typecheck'] as const;

/** The files package.json's script `name` names, and its `pre` and `post` scripts (npm runs all three). */
function npmScriptFiles(root: string, pkg: Record<string, unknown> | undefined, name: string): string[] {
  const scripts = pkg !== undefined && isRecord(pkg.scripts) ? pkg.scripts : {};
  const commands = [`pre${name}`, name, `post${name}`].map((script) => scripts[script]).filter((script): script is string => typeof script === 'string');
  return commands.flatMap((command) => filesNamed(root, command));
}

/**
 * `target` and every target of the make file it depends on, directly or not (normal and
 * order-only prerequisites, as written: no variable, no pattern, nothing outside the repo). A file
 * of any of these names, newer than what that target depends on, is taken for the target: make
 * runs none of its recipe.
 */
function makeTargetNames(text: string, target: string): string[] {
  const rules = new Map<string, string[]>();
  for (const [, targets, prerequisites] of text.matchAll(/^([^\s:#=$%][^:#=$%]*?)[ \t]*::?(?!=)[ \t]*([^=#\n;]*)/gm)) {
    for (const name of (targets ?? '').trim().split(/\s+/)) {
      rules.set(name, [...(rules.get(name) ?? []), ...(prerequisites ?? '').split(/[\s|]+/).filter(Boolean)]);
    }
  }
  const names = [target];
  for (let i = 0; i < names.length; i++) {
    for (const name of rules.get(names[i] as string) ?? []) {
      if (!names.includes(name) && rules.has(name) && !name.startsWith('.') && !name.startsWith('/') && !/[$%*?[\]]/.test(name) && !name.split('/').includes('..')) names.push(name);
    }
  }
  return names;
}

/**
 * The scripts the recipes of the make file's `test` target and of the targets it depends on run
 * (a recipe: the lines that start with a tab after the rule).
 */
function makeTestFiles(root: string, text: string): string[] {
  const targets = new Set(makeTargetNames(text, 'test'));
  const lines = text.split('\n');
  const recipes: string[] = [];
  let inRecipe = false;
  for (const line of lines) {
    if (line.startsWith('\t')) {
      if (inRecipe) recipes.push(line.slice(1).replace(/^[@+-]+/, ''));
      continue;
    }
    const rule = /^([^\s:#=$%][^:#=$%]*?)[ \t]*::?(?!=)/.exec(line);
    inRecipe = rule !== null && (rule[1] ?? '').trim().split(/\s+/).some((name) => targets.has(name));
  }
  return recipes.flatMap((recipe) => filesNamed(root, recipe));
}

/** Programs that run the script named right after them (`node scripts/test.js`, `sh run-tests.sh`). */
const INTERPRETERS = new Set(['node', 'sh', 'bash', 'zsh', 'dash', 'python', 'python3', 'perl', 'ruby', 'tsx', 'ts-node']);

/**
 * The scripts of the repo a shell command runs, as written: the program of each simple command
 * (`./run-tests.sh`, `scripts/check.sh --fast`) and the script an interpreter is given first
 * (`node scripts/test.js`), where that is a relative path without a variable or a wildcard, inside
 * the repo, and a file on disk. Never the other arguments: `node --check src/add.js` and `eslint
 * lib/index.js` name the code under check, which candidates must be free to change.
 */
function filesNamed(root: string, command: string): string[] {
  const files: string[] = [];
  for (const simple of command.split(/&&|\|\||[;|&()\n]/)) {
    const words = simple.trim().split(/\s+/).map((word) => word.replace(/^["']|["']$/g, ''));
    while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string) || ['exec', 'env', 'time', 'command'].includes(words[0] as string))) words.shift();
    const [program, first] = words;
    if (program === undefined) continue;
    const script = INTERPRETERS.has(program.split('/').at(-1) as string) ? first : program;
    if (script === undefined || script.startsWith('-') || script.startsWith('/') || script.startsWith('~') || /[$*?[\]{}=\\`]/.test(script)) continue;
    const path = script.replace(/^(\.\/)+/, '');
    if (path !== '' && !path.split('/').includes('..') && isFile(join(root, path))) files.push(path);
  }
  return files;
}

/** Two checks of the same name (a Node and a Python test) cannot both be `test`: the later ones get their kind's name. */
function uniqueNames(checks: readonly ProbedCheck[]): ProbedCheck[] {
  const seen = new Set<string>();
  return checks.map((check) => {
    let name = check.name;
    if (seen.has(name)) name = `${check.command.split(' ')[0]}-${check.name}`;
    seen.add(name);
    return name === check.name ? check : { ...check, name };
  });
}

function usesPytest(root: string, facts: ProbeFacts): boolean {
  const text = (file: string): string => (existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : '');
  if (['pytest.ini', '.pytest.ini', 'pytest.toml', '.pytest.toml', 'conftest.py'].some((file) => existsSync(join(root, file)))) return true;
  if (/\[tool\.pytest|pytest/.test(text('pyproject.toml'))) return true;
  if (/\[tool:pytest\]/.test(text('setup.cfg')) || /\[pytest\]/.test(text('tox.ini'))) return true;
  // A Python project with a tests folder: pytest also runs unittest-style tests.
  const python = existsSync(join(root, 'pyproject.toml')) || existsSync(join(root, 'setup.py')) || existsSync(join(root, 'setup.cfg'));
  if (python && (isFolder(join(root, 'tests')) || isFolder(join(root, 'test')))) return true;
  // Committed files named as pytest finds tests by itself, without any configuration (a small
  // project of plain scripts and a tests/test_calc.py): pytest is how such a repo is tested.
  return facts.frozenMatching.has('**/test_*.py') || facts.frozenMatching.has('**/*_test.py');
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dependsOn(pkg: Record<string, unknown>, name: string): boolean {
  return ['dependencies', 'devDependencies'].some((field) => isRecord(pkg[field]) && name in (pkg[field] as Record<string, unknown>));
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}
