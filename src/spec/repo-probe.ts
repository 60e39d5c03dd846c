/**
 * What `bestof init` finds in a repo, so the starter spec holds checks and frozen paths that
 * exist there rather than guesses: the test, lint and typecheck scripts of a package.json, pytest
 * (pyproject.toml, setup.cfg, pytest.ini, tests, committed test_*.py or *_test.py files), cargo
 * (Cargo.toml), go (go.mod), a Makefile's `test` target; the test folders, test-file patterns and
 * snapshots that match tracked files, and the committed scripts the checks run; the names of what
 * the test runner reads or decides by, protected whether the repo has them or not; `[checks]
 * editable` where the code's folder is clear (src/, a Python repo's packages, what package.json,
 * pyproject.toml or a Go module declare as the code: declaredCode); and, for a Node repo
 * whose dependencies are installed, `[setup] link = ["node_modules"]` (the fastest way to give
 * every worktree its dependencies: scripts/bench-setup.mjs). The names, by runner, are in
 * ./runner-files.ts; what a check command runs (its scripts, make's includes and targets) is read
 * by ./check-scripts.ts.
 *
 * Only the repo's files are read here; what needs git or a process (which frozen and editable
 * patterns match a committed file, as the plan matches them; whether clippy is installed: a clippy check is offered
 * only where it is) the caller finds out (src/cli/commands/init.ts), as the spec layer runs nothing.
 */
import { type Dirent, existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import type { TestReportKind } from './schema-parts.js';
import { REPORTING_COMMANDS, reportingNpmTest } from './report-commands.js';

export { REPORTING_COMMANDS } from './report-commands.js';
import { FROZEN_CANDIDATES, type RepoKind, runnerConfigs } from './runner-files.js';
import { makeFileText, makeIncludes, makeTargetNames, makeTestFiles, NPM_CHECKED_SCRIPTS, npmScriptFiles } from './check-scripts.js';

export type { RepoKind } from './runner-files.js';

export interface ProbedCheck {
  readonly name: string;
  readonly command: string;
  /** Why it is there, for the comment beside it: `package.json "test" script`. */
  readonly source: string;
  /** The machine report the command makes its runner write (the check's `report` key), where the runner writes one with nothing installed. */
  readonly report?: TestReportKind;
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
   * `[checks] editable`, where the repo's code clearly lives (editableCandidates): `src/**`, a
   * Python repo's package folders, and what the repo declares (declaredCode: qs's `"main":
   * "lib/index.js"` gives `lib/**`); empty where nothing says (modules at the root, a workspace).
   */
  readonly editable: readonly string[];
}

/** npm's placeholder: `npm init` writes it, and it always fails. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

/** Folders at the root that hold tests, documentation or examples, never a Python repo's code. */
const NOT_CODE = new Set(['test', 'tests', 'testing', 'docs', 'doc', 'examples', 'example', 'benchmarks', 'bench']);

/**
 * The `[checks] editable` patterns init may offer, before git says which match a committed file
 * (ProbeFacts.editableMatching): `src/**`, each folder at the root with an `__init__.py` that is
 * not a test, documentation or examples folder (a Python package), and what the repo declares as its
 * code (declaredCode). Why offer one at all: without it, what a candidate adds anywhere is its work,
 * and some of it changes what a check runs without any name init could list: `python3 -m pytest`
 * imports from the folder it runs in before anything installed, so a module at the root named as
 * one pytest imports (the standard library's argparse.py, pytest's own pluggy.py, a compiled
 * pytest.pyc) passes every test unseen; an `.nycrc` whose `require` names a file of the candidate's
 * turns `nyc tape` into a pass (found on qs, whose code is in lib/).
 */
export function editableCandidates(root: string): string[] {
  let entries: string[] = [];
  try {
    entries = readdirSync(root).sort();
  } catch {
    return ['src/**'];
  }
  const packages = entries.filter((name) => !name.startsWith('.') && name !== 'src' && !NOT_CODE.has(name) && existsSync(join(root, name, '__init__.py')));
  const declared = Object.values(declaredCode(root)).flat();
  return [...new Set(['src/**', ...packages.map((name) => `${name}/**`), ...declared])];
}

/**
 * Where the repo says its code is, by kind, as editable globs (a folder's `lib/**`, a file at the
 * root as itself): package.json's `main`, `exports`, `files` and `bin`; pyproject.toml's packages
 * (setuptools' `packages` and `packages.find`'s `where`, poetry's `include`, hatch's wheel
 * `packages`); the folders of a Go module's non-test .go files (`*.go` for those at the root);
 * Cargo's `src/**` is src/ already. Tests, documentation and examples folders are never code. git
 * then says which match a committed file (a `files` entry naming the build output, `dist/`, does not).
 */
export function declaredCode(root: string): Partial<Record<RepoKind, string[]>> {
  const declared: Partial<Record<RepoKind, string[]>> = {};
  const pkg = readJson(join(root, 'package.json'));
  if (pkg !== undefined) declared.node = codeGlobs(root, [...stringsIn(pkg.main), ...stringsIn(pkg.exports), ...stringsIn(pkg.files), ...stringsIn(pkg.bin)]);
  const pyproject = readToml(join(root, 'pyproject.toml'));
  if (pyproject !== undefined) declared.python = codeGlobs(root, pythonPackages(pyproject));
  if (existsSync(join(root, 'go.mod'))) declared.go = goCodeGlobs(root);
  return declared;
}

/** Every string in a package.json field (`exports`' conditions and subpaths, `bin`'s commands), keys left out. */
function stringsIn(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsIn);
  if (isRecord(value)) return Object.values(value).flatMap(stringsIn);
  return [];
}

/** `./lib/index.js` -> `lib/**`, `index.js` -> `index.js`, `lib` (a folder) -> `lib/**`; none for a test or docs folder, or one that leaves the repo. */
function codeGlobs(root: string, paths: readonly string[]): string[] {
  const globs = paths.flatMap((raw) => {
    const path = raw.replace(/^(\.\/)+/, '').replace(/\/+$/, '');
    const [first, ...rest] = path.split('/');
    if (first === undefined || first === '' || first === '..' || first.startsWith('.') || /[*?[{]/.test(first) || NOT_CODE.has(first)) return [];
    return rest.length > 0 || isFolder(join(root, first)) ? [`${first}/**`] : [first];
  });
  return [...new Set(globs)].sort();
}

/** The package folders pyproject.toml names (dotted names by their first folder, `src/pkg` as written). */
function pythonPackages(pyproject: Record<string, unknown>): string[] {
  const tool = isRecord(pyproject.tool) ? pyproject.tool : {};
  const at = (value: unknown, ...keys: string[]): unknown => keys.reduce<unknown>((v, key) => (isRecord(v) ? v[key] : undefined), value);
  const setuptools = at(tool, 'setuptools', 'packages');
  const names = [
    ...(Array.isArray(setuptools) ? setuptools.filter((p): p is string => typeof p === 'string').map((p) => p.split('.')[0] ?? p) : []),
    ...stringsIn(at(setuptools, 'find', 'where')),
    ...(Array.isArray(at(tool, 'poetry', 'packages'))
      ? (at(tool, 'poetry', 'packages') as unknown[]).flatMap((p) => (isRecord(p) ? [[p.from, p.include].filter((s) => typeof s === 'string').join('/')] : []))
      : []),
    ...stringsIn(at(tool, 'hatch', 'build', 'targets', 'wheel', 'packages')),
  ];
  return names.filter((name) => name !== '');
}

/** The folders at the root holding a Go module's non-test .go files (`dir/**`), and `*.go` for those at the root. */
function goCodeGlobs(root: string): string[] {
  const isCode = (name: string): boolean => name.endsWith('.go') && !name.endsWith('_test.go');
  const entries = readdirSync(root, { withFileTypes: true });
  const folders = entries.filter(
    (e) => e.isDirectory() && !e.name.startsWith('.') && !GO_NOT_CODE.has(e.name) && !NOT_CODE.has(e.name) && holdsFile(join(root, e.name), isCode, 6),
  );
  return [...(entries.some((e) => e.isFile() && isCode(e.name)) ? ['*.go'] : []), ...folders.map((e) => `${e.name}/**`)];
}

/** Folders a Go module's code is never in: its dependencies, its test data. */
const GO_NOT_CODE = new Set(['vendor', 'testdata', 'node_modules']);

/** A file `wanted` names under `dir`, at most `depth` folders down (hidden, vendor and testdata folders skipped). */
function holdsFile(dir: string, wanted: (name: string) => boolean, depth: number): boolean {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return false;
  }
  if (entries.some((e) => e.isFile() && wanted(e.name))) return true;
  return (
    depth > 0 && entries.some((e) => e.isDirectory() && !e.name.startsWith('.') && !GO_NOT_CODE.has(e.name) && holdsFile(join(dir, e.name), wanted, depth - 1))
  );
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
  const scripts = scriptsOf(readJson(join(root, 'package.json')));
  return [...new Set([...NPM_CHECKED_SCRIPTS.flatMap((name) => npmScriptFiles(root, scripts, name)), ...makeTestFiles(root, makeFileText(root).text)])];
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
    if (test !== undefined && !NPM_PLACEHOLDER_TEST.test(test)) {
      const runner = reportingNpmTest(test);
      checks.push(
        runner === undefined
          ? { name: 'test', command: 'npm test', source: 'package.json "test" script' }
          : {
              name: 'test',
              command: REPORTING_COMMANDS[runner],
              source: `package.json "test" script, ${runner === 'vitest' ? 'vitest' : 'node --test'}`,
              report: 'junit',
            },
      );
    }
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
    checks.push({ name: 'test', command: REPORTING_COMMANDS.pytest, source: 'pytest configuration or tests', report: 'junit' });
  }

  if (existsSync(join(root, 'Cargo.toml'))) {
    kinds.push('rust');
    checks.push({ name: 'test', command: 'cargo test', source: 'Cargo.toml' });
    if (facts.clippy) checks.push({ name: 'clippy', command: 'cargo clippy -- -D warnings', source: 'Cargo.toml, clippy installed' });
  }

  if (existsSync(join(root, 'go.mod'))) {
    kinds.push('go');
    checks.push({ name: 'test', command: REPORTING_COMMANDS.goTest, source: 'go.mod', report: 'go-json' });
    checks.push({ name: 'vet', command: 'go vet ./...', source: 'go.mod' });
  }

  const { name: makefile, text: makeText } = makeFileText(root);
  if (makefile !== undefined && /^test\s*:/m.test(makeText)) {
    kinds.push('make');
    if (!checks.some((check) => check.name === 'test')) checks.push({ name: 'test', command: 'make test', source: `${makefile} "test" target` });
  }

  const offered = FROZEN_CANDIDATES.filter(({ kinds: only }) => only === undefined || only.some((kind) => kinds.includes(kind)));
  const frozenOffered = offered.filter(({ pattern, protect }) => !protect && facts.frozenMatching.has(pattern));
  // `npm test` also when run with NODE_OPTIONS in front (REPORTING_COMMANDS.nodeTest).
  const runs = (command: string): boolean =>
    checks.some((check) => check.command === command || check.command.endsWith(`" ${command}`) || check.command.startsWith(`${command} -- `));
  const npmFiles = NPM_CHECKED_SCRIPTS.flatMap((name) =>
    runs(name === 'test' ? 'npm test' : `npm run ${name}`) ? npmScriptFiles(root, scriptsOf(pkg), name) : [],
  );
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
  const unmatchedTests = offered
    .filter(({ pattern, protectUnmatched }) => protectUnmatched && !facts.frozenMatching.has(pattern))
    .map(({ pattern }) => pattern);
  // clippy reads its lint thresholds from a clippy.toml in the package's folder: one the candidate
  // adds (`too-many-arguments-threshold = 20`) passed `cargo clippy -- -D warnings` (checked).
  const clippyConfig = runs('cargo clippy -- -D warnings') ? ['**/clippy.toml', '**/.clippy.toml'] : [];
  const runnerFiles = [
    ...unmatchedTests,
    ...offered.filter(({ protect }) => protect).map(({ pattern }) => pattern),
    ...runnerConfigs(scriptsOf(pkg)).filter((pattern) => !frozen.includes(pattern)),
    ...clippyConfig,
    ...(kinds.includes('make') ? makeIncludes(makeText) : []),
    ...makeTarget,
  ];
  const workspace = isWorkspace(root, pkg);
  return {
    kinds,
    checks: uniqueNames(checks),
    frozen,
    testsFrozen,
    protected: runnerFiles,
    link,
    editable: workspace ? [] : editableOf(root, kinds, facts.editableMatching ?? new Set()),
  };
}

/**
 * `src/**` where it holds committed files; in a Python repo, its package folders at the root too (a
 * repo whose src/ holds C sources keeps its Python code in a package at the root: an allow-list of
 * src/ alone would undo every fix there); and what the repo declares as its code for the kinds found
 * (declaredCode: qs's `"main": "lib/index.js"` gives `lib/**`), where it matches committed files.
 */
function editableOf(root: string, kinds: readonly RepoKind[], matching: ReadonlySet<string>): string[] {
  const src = matching.has('src/**') ? ['src/**'] : [];
  const declared = declaredCode(root);
  const packages = kinds.includes('python')
    ? [...matching].filter((pattern) => pattern !== 'src/**' && pattern.endsWith('/**') && existsSync(join(root, pattern.slice(0, -3), '__init__.py')))
    : [];
  const own = kinds.flatMap((kind) => declared[kind] ?? []).filter((pattern) => matching.has(pattern));
  return [...new Set([...src, ...[...packages, ...own].sort()])];
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

function readToml(path: string): Record<string, unknown> | undefined {
  try {
    return parseToml(readFileSync(path, 'utf8')) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** package.json's scripts (none when it has no such object). */
function scriptsOf(pkg: Record<string, unknown> | undefined): Record<string, unknown> {
  return pkg !== undefined && isRecord(pkg.scripts) ? pkg.scripts : {};
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
