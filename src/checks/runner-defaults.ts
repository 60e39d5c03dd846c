/**
 * The test runners' own files, kept as in base without the spec author's help: what each test
 * runner loads besides the tests (an `.nycrc` whose `require` runs a file of the candidate's, a
 * conftest.py, an `.npmrc`, a `.cargo/config.toml`), by the kinds of project base holds
 * (../spec/runner-files.ts RUNNER_DEFAULT_FILES and RUNNER_KEYED_FILES, one list with what `bestof
 * init` protects). They are treated as `[checks] protected` entries: put back as in base for the
 * checks and before any merge, and a change flags the candidate (it cannot win unless
 * `select.allow_tampered`).
 *
 * Unless the spec's `editable` covers the path: a changed path that matches a runner pattern is
 * exempt when it also matches one of the `editable` globs (the same globs, matched by git as the
 * editable rule matches them). In git's words, the runner patterns with an `:(exclude,glob)` of each
 * editable glob, in a query of their own (git's exclusions apply to a whole query, so they cannot
 * share one with the spec's frozen patterns, which editable never exempts). A task that is about
 * a test runner's configuration lists it in `editable` (`editable = ["lib/**", ".nycrc"]`).
 *
 * For files such as package.json, that hold a runner's configuration among the project's own, only
 * that part is compared (package.json's `"nyc"` key, pyproject.toml's `[tool.pytest*]` tables,
 * go.mod's `replace` directives): a candidate may still add a dependency. When that part changed,
 * the whole file is what is kept as in base (git puts back files, not keys), and the record says why.
 * Only the files at the root are compared so: the runner of a check that runs at the root reads
 * those.
 *
 * What the rest of bestof sees is a list of literal pathspecs, per candidate commit: base's files
 * under the runner patterns (so that the kept-files watch and the restore by content cover them) and
 * the paths the commit changed there, none that editable covers. They go with the spec's kept
 * patterns (./frozen.ts keptAsInBase) into the scoring tree, the selection and the merge's revert.
 */
import { parse as parseToml } from 'smol-toml';
import { changedPaths } from '../git/history/diff.js';
import { literalPathspec } from '../git/worktrees/paths.js';
import { showFile } from '../git/running/show.js';
import { pathsMatching } from '../git/history/tree.js';
import { RUNNER_DEFAULT_FILES, RUNNER_KEYED_FILES, RUNNER_KIND_MARKERS, runnerConfigs, type KeyedRunnerFile, type RunnerKind } from '../spec/runner-files.js';
import { excludePathspecs, frozenPathspecs, type TamperedPath } from './frozen.js';

/** The runner files of a run: which kinds of project base holds, and the patterns their runners read. */
export interface RunnerFiles {
  readonly kinds: readonly RunnerKind[];
  /** RUNNER_DEFAULT_FILES of the kinds, with the configuration files of the runner package.json's "test" script names. */
  readonly patterns: readonly string[];
}

/** What the runner rule keeps as in base for one commit. */
export interface RunnerKept {
  /** Literal pathspecs (`:(top,literal)path`): base's runner files and the changed ones, none under editable. */
  readonly pathspecs: readonly string[];
  /** Why a file that is not itself a runner file is kept (package.json, for its "nyc" key), by path. */
  readonly notes: ReadonlyMap<string, string>;
}

const KINDS: readonly RunnerKind[] = ['node', 'python', 'rust', 'go'];

/** The kinds of project `commit` holds (RUNNER_KIND_MARKERS), and their runner patterns. */
export async function runnerFilesOf(repo: string, commit: string, opts: { readonly signal?: AbortSignal } = {}): Promise<RunnerFiles> {
  const markers = KINDS.flatMap((kind) => RUNNER_KIND_MARKERS[kind]);
  const found = await pathsMatching(repo, commit, frozenPathspecs(markers), opts);
  const has = (marker: string): boolean => (marker.includes('*') ? found.some((path) => matchesTestName(path, marker)) : found.includes(marker));
  const kinds = KINDS.filter((kind) => RUNNER_KIND_MARKERS[kind].some(has));
  const scripts = kinds.includes('node') ? await packageScripts(repo, commit, opts.signal) : {};
  const patterns = [...new Set([...kinds.flatMap((kind) => RUNNER_DEFAULT_FILES[kind]), ...(kinds.includes('node') ? runnerConfigs(scripts) : [])])];
  return { kinds, patterns };
}

/** `**\/test_*.py` and `**\/*_test.py`, the only wildcard markers, against a path git matched with one of the markers. */
function matchesTestName(path: string, marker: string): boolean {
  const name = path.slice(path.lastIndexOf('/') + 1);
  return marker.endsWith('/test_*.py') ? name.startsWith('test_') && name.endsWith('.py') : name.endsWith('_test.py');
}

async function packageScripts(repo: string, commit: string, signal?: AbortSignal): Promise<Record<string, unknown>> {
  const shown = await showFile(repo, commit, 'package.json', { signal });
  const pkg = shown.ok ? parseJson(shown.value) : undefined;
  return pkg !== undefined && isRecord(pkg.scripts) ? pkg.scripts : {};
}

/**
 * Base's runner files, by base, patterns and editable globs: the same for every scoring of a run,
 * so read once per process (a few runs' worth at most).
 */
const baseRunnerFiles = new Map<string, Promise<string[]>>();
const REMEMBERED = 16;

function runnerFilesOfBase(repo: string, base: string, pathspecs: readonly string[], signal?: AbortSignal): Promise<string[]> {
  const key = [repo, base, ...pathspecs].join('\0');
  let files = baseRunnerFiles.get(key);
  if (files === undefined) {
    files = pathsMatching(repo, base, pathspecs, { signal });
    // A failed read is not remembered: the next scoring asks again.
    files.catch(() => baseRunnerFiles.delete(key));
    if (baseRunnerFiles.size >= REMEMBERED) baseRunnerFiles.delete(baseRunnerFiles.keys().next().value as string);
    baseRunnerFiles.set(key, files);
  }
  return files;
}

/**
 * What the runner rule keeps as in base when `commit` is scored against `base` (see the module
 * doc): base's runner files and the runner files the commit changed, added or deleted, none that
 * an `editable` glob matches; and the keyed files (package.json...) whose runner part changed.
 */
export async function runnerKept(
  repo: string,
  opts: {
    readonly base: string;
    readonly commit: string;
    readonly runner: RunnerFiles | undefined;
    readonly editable: readonly string[];
    readonly signal?: AbortSignal;
  },
): Promise<RunnerKept> {
  const patterns = opts.runner?.patterns ?? [];
  const kinds = opts.runner?.kinds ?? [];
  if (patterns.length === 0 && kinds.length === 0) return { pathspecs: [], notes: new Map() };
  const call = { signal: opts.signal };
  const exempt = excludePathspecs(opts.editable);
  const specs = frozenPathspecs(patterns);
  const keyedFiles = RUNNER_KEYED_FILES.filter((file) => kinds.includes(file.kind));
  const keyedPaths = new Set(keyedFiles.map((file) => file.path));
  // One diff for the runner files and the keyed ones: no runner pattern names a keyed file (the
  // root's package.json, pyproject.toml, go.mod), so a changed path is one or the other.
  const asked = [...specs, ...[...keyedPaths].map(literalPathspec)];
  const [inBase, changes] = await Promise.all([
    specs.length > 0 ? runnerFilesOfBase(repo, opts.base, [...specs, ...exempt], opts.signal) : [],
    asked.length > 0 ? changedPaths(repo, opts.base, opts.commit, [...asked, ...exempt], call) : [],
  ]);
  const changed = changes.filter((change) => !keyedPaths.has(change.path));
  const notes = new Map<string, string>();
  for (const file of keyedFiles) {
    if (!changes.some((change) => change.path === file.path)) continue;
    const [before, after] = await Promise.all([showFile(repo, opts.base, file.path, call), showFile(repo, opts.commit, file.path, call)]);
    const parts = changedParts(file, before.ok ? before.value : undefined, after.ok ? after.value : undefined);
    if (parts.length > 0) notes.set(file.path, keyedNote(file, parts));
  }
  const paths = [...new Set([...inBase, ...changed.map((change) => change.path), ...notes.keys()])];
  return { pathspecs: paths.map(literalPathspec), notes };
}

/** The records with the runner rule's note on the paths it has one for (package.json kept whole for its "nyc" key). */
export function withNotes(records: readonly TamperedPath[], notes: ReadonlyMap<string, string>): TamperedPath[] {
  return records.map((record) => {
    const note = notes.get(record.path);
    return note !== undefined ? { ...record, note } : record;
  });
}

/** `its "nyc" key changed (a test runner's configuration): the whole file is kept as in base`. */
function keyedNote(file: KeyedRunnerFile, parts: readonly string[]): string {
  const named = parts.map((part) =>
    file.format === 'json-keys' ? `"${part}" key` : file.format === 'toml-tool' ? `[tool.${part}] table` : `${part} directives`,
  );
  return `its ${named.join(' and ')} changed (a test runner's configuration): the whole file is put back as in base for the checks`;
}

/**
 * The keys of `file` whose value differs between the two texts (undefined: no such file). A text
 * that does not parse where the other does counts as changing every key either holds: what the
 * runner makes of it cannot be told.
 */
export function changedParts(file: KeyedRunnerFile, before: string | undefined, after: string | undefined): string[] {
  const read = (text: string | undefined): Record<string, unknown> | undefined | 'unreadable' => {
    if (text === undefined) return undefined;
    const parsed = file.format === 'json-keys' ? parseJson(text) : file.format === 'toml-tool' ? toolTables(text) : goDirectives(text);
    return parsed ?? 'unreadable';
  };
  const [a, b] = [read(before), read(after)];
  if (a === 'unreadable' || b === 'unreadable') return a === b ? (before === after ? [] : [...file.keys]) : [...file.keys];
  return file.keys.filter((key) => JSON.stringify(a?.[key]) !== JSON.stringify(b?.[key]));
}

function parseJson(text: string): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** pyproject.toml's `[tool]` table (`{ pytest: {...} }`), or undefined when it does not parse. */
function toolTables(text: string): Record<string, unknown> | undefined {
  try {
    const parsed = parseToml(text) as Record<string, unknown>;
    return isRecord(parsed.tool) ? parsed.tool : {};
  } catch {
    return undefined;
  }
}

/** go.mod's directives by name, each with its lines in order (`replace ( ... )` blocks included), comments left out. */
function goDirectives(text: string): Record<string, string[]> {
  const directives: Record<string, string[]> = {};
  let block: string | undefined;
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\/\/.*$/, '').trim();
    if (line === '') continue;
    if (block !== undefined) {
      if (line === ')') block = undefined;
      else (directives[block] ??= []).push(line);
      continue;
    }
    const [name, ...rest] = line.split(/\s+/);
    if (name === undefined) continue;
    if (rest.join(' ') === '(') block = name;
    else (directives[name] ??= []).push(rest.join(' '));
  }
  return directives;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
