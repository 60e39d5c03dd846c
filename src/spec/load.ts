/**
 * Loading a spec: read -> TOML parse -> zod schema -> checks that need the file system.
 * Every step turns what went wrong into `SpecProblem`s that name the file, the line and the
 * dotted key; nothing here prints, throws on bad input, or writes anything to disk.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, isAbsolute, posix, resolve, win32 } from 'node:path';
import { parse, TomlError } from 'smol-toml';
import type { z } from 'zod';
import type { SpecProblem } from './errors.js';
import { specSchema, type Spec } from './schema.js';

export interface LoadedSpec {
  readonly ok: true;
  /** Parsed, with every default filled in; paths stay as written (see `resolveSpecPath`). */
  readonly spec: Spec;
  /** Absolute path of the spec file. */
  readonly specPath: string;
  /** Absolute path of the folder that holds the spec; relative paths in the spec start here. */
  readonly specDir: string;
  /** The TOML text as read. */
  readonly source: string;
}

export interface InvalidSpec {
  readonly ok: false;
  readonly problems: SpecProblem[];
}

export type LoadSpecResult = LoadedSpec | InvalidSpec;

/** Paths in a spec are relative to the spec file's folder (absolute ones stay as they are). */
export function resolveSpecPath(specDir: string, p: string): string {
  return resolve(specDir, p);
}

export interface LoadSpecOptions {
  /**
   * The folder that relative paths in the spec start from; default: the spec file's folder.
   * `bestof resume` loads a run's frozen copy of the spec against the original folder.
   */
  readonly baseDir?: string;
}

export async function loadSpec(specPath: string, options: LoadSpecOptions = {}): Promise<LoadSpecResult> {
  const absolutePath = resolve(specPath);
  const specDir = options.baseDir ?? dirname(absolutePath);
  const read = await readSource(specPath, absolutePath);
  if (!read.ok) return { ok: false, problems: [read.problem] };
  const { source } = read;

  let data: unknown;
  try {
    data = parse(source);
  } catch (error) {
    return { ok: false, problems: [tomlSyntaxProblem(specPath, source, error)] };
  }

  const locator = new SourceLocator(specPath, source);
  const parsed = specSchema.safeParse(data, { error: humanIssueMessage });
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.flatMap((issue) => schemaProblems(issue, data, locator))),
    ...(await fileSystemProblems(data, specDir, locator)),
  ];
  if (!parsed.success || problems.length > 0) return { ok: false, problems: sortByPosition(problems) };
  return { ok: true, spec: parsed.data, specPath: absolutePath, specDir, source };
}

// ---------------------------------------------------------------------------------------
// Reading and TOML syntax

type ReadResult = { ok: true; source: string } | { ok: false; problem: SpecProblem };

async function readSource(file: string, absolutePath: string): Promise<ReadResult> {
  try {
    const info = await stat(absolutePath);
    if (info.isDirectory()) {
      return { ok: false, problem: { file, message: `${absolutePath} is a folder, expected a TOML spec file` } };
    }
    const text = await readFile(absolutePath, 'utf8');
    return { ok: true, source: text.replace(/^\uFEFF/, '') };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `file not found: ${absolutePath} (create one with \`bestof init\`)`
        : `cannot read ${absolutePath}: ${(error as Error).message}`;
    return { ok: false, problem: { file, message } };
  }
}

function tomlSyntaxProblem(file: string, source: string, error: unknown): SpecProblem {
  if (!(error instanceof TomlError)) {
    return { file, message: `invalid TOML: ${error instanceof Error ? error.message : String(error)}` };
  }
  const excerpt = sourceLines(source)[error.line - 1];
  // smol-toml appends its own numbered code block to the message; we print our excerpt instead.
  const raw = error.message.split('\n\n')[0]?.replace(/^Invalid TOML document:\s*/, '').trim() ?? '';
  return {
    file,
    line: error.line,
    column: error.column,
    message: `invalid TOML: ${explainTomlError(raw, excerpt, error.column)}`,
    ...(excerpt === undefined ? {} : { excerpt }),
  };
}

function explainTomlError(message: string, excerpt: string | undefined, column: number): string {
  if (message === 'unfinished string') return 'unterminated string: add the closing quote';
  if (message === 'control characters are not allowed in strings' && excerpt !== undefined && column > excerpt.length) {
    return 'unterminated string: a "..." string must end on the same line (use """...""" for text over several lines)';
  }
  if (message.startsWith('trying to redefine') && excerpt !== undefined) {
    const text = excerpt.trim();
    const header = text.replace(/\s*#.*$/, '');
    if (header.startsWith('[[')) return `${header} clashes with a table or key of the same name defined above`;
    if (header.startsWith('[')) return `table ${header} is already defined above: merge the two (a [table] may appear once; [[list]] entries repeat)`;
    const key = /^\s*([^=\s]+)\s*=/.exec(excerpt)?.[1];
    if (key !== undefined) return `duplicate key "${key}": it is already set above in the same table`;
  }
  if (message === 'illegal character in key' && excerpt?.trim().startsWith('[')) {
    return 'bad table header: expected [name] or [[name]], closed on the same line (bare names use letters, digits, "_" and "-"; quote others)';
  }
  return message;
}

// ---------------------------------------------------------------------------------------
// Schema issues

type PathSegment = string | number;

/** Codes whose message reads better followed by the value that was given. */
const VALUE_ISSUES = new Set(['invalid_type', 'invalid_value', 'too_small', 'too_big', 'invalid_format', 'invalid_union', 'not_multiple_of']);

/**
 * Messages for the issues the schema does not word itself. Zod prefers the schema's own
 * messages over these, so the schema stays the single place that can say it better.
 */
const humanIssueMessage: z.core.$ZodErrorMap = (issue) => {
  const missing = issue.input === undefined ? 'required key is missing: ' : '';
  switch (issue.code) {
    case 'invalid_type':
      return `${missing}expected ${describeType(issue.expected)}`;
    case 'invalid_value':
      return `${missing}expected one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'too_small':
      return `expected ${describeBound(issue.origin, 'at least', 'more than', issue.minimum, issue.inclusive)}`;
    case 'too_big':
      return `expected ${describeBound(issue.origin, 'at most', 'less than', issue.maximum, issue.inclusive)}`;
    case 'invalid_format':
      return issue.format === 'regex' ? `expected text matching ${issue.pattern ?? 'the pattern'}` : `expected a valid ${issue.format}`;
    case 'not_multiple_of':
      return `expected a multiple of ${issue.divisor}`;
    case 'invalid_union': {
      const expected = new Set(issue.errors.flat().flatMap((inner) => (inner.code === 'invalid_type' ? [describeType(inner.expected)] : [])));
      return expected.size > 0 ? `${missing}expected ${joinWithOr([...expected])}` : undefined;
    }
    default:
      return undefined;
  }
};

function describeType(expected: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    number: 'a number',
    int: 'a whole number',
    boolean: 'true or false',
    object: 'a table',
    record: 'a table',
    array: 'a list',
    date: 'a date',
  };
  return names[expected] ?? expected;
}

function joinWithOr(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

function describeBound(origin: string, inclusiveWord: string, exclusiveWord: string, bound: number | bigint, inclusive = true): string {
  const word = inclusive ? inclusiveWord : exclusiveWord;
  if (origin === 'string') return `${word} ${bound} character${bound === 1 ? '' : 's'}`;
  if (origin === 'array' || origin === 'set') return `${word} ${bound} item${bound === 1 ? '' : 's'}`;
  return `a number ${word} ${bound}`;
}

function schemaProblems(issue: z.core.$ZodIssue, data: unknown, locator: SourceLocator): SpecProblem[] {
  const path = issue.path.filter((segment): segment is PathSegment => typeof segment !== 'symbol');
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => locator.problem([...path, key], unknownKeyMessage(path, key), 'key'));
  }
  const value = valueAtPath(data, path);
  let message = issue.message;
  if (VALUE_ISSUES.has(issue.code) && value !== undefined && !/\bgot\b/.test(message)) {
    message += `, got ${showValue(value)}`;
  }
  if (issue.code === 'invalid_type') message += tableSyntaxHint(issue.expected, path, value);
  return [locator.problem(path, message, 'value')];
}

/** The two table spellings are easy to mix up; say which one the key needs. */
function tableSyntaxHint(expected: string, path: readonly PathSegment[], value: unknown): string {
  if (!path.every((segment) => typeof segment === 'string')) return '';
  const name = formatKeyPath(path);
  if (expected === 'array' && isPlainObject(value)) return ` (write [[${name}]] once per entry)`;
  if (expected === 'object' && Array.isArray(value) && value.every(isPlainObject)) return ` (write [${name}], not [[${name}]])`;
  return '';
}

function unknownKeyMessage(tablePath: readonly PathSegment[], key: string): string {
  const where = tablePath.length === 0 ? 'at the top level' : `in [${formatKeyPath(tablePath)}]`;
  let message = `unknown key "${key}" ${where}`;
  const known = knownKeysAt(tablePath);
  const suggestion = closestKey(key, known);
  if (suggestion !== undefined) return `${message} — did you mean "${suggestion}"?`;
  if (tablePath.length > 0 && knownKeysAt([]).includes(key)) {
    return `${message} — "${key}" is a top-level key: keys after a [table] header belong to that table, so put it above the first header`;
  }
  if (known.length > 0) message += ` (known keys: ${known.join(', ')})`;
  return message;
}

// ---------------------------------------------------------------------------------------
// Checks that need the file system

/** Keys that name a file which must exist, relative to the spec's folder. */
function fileKeys(data: unknown): PathSegment[][] {
  const paths: PathSegment[][] = [
    ['prompt', 'file'],
    ['prompt', 'retry_prompt_file'],
    ['provider', 'script'],
    ['review', 'prompt_file'],
  ];
  const entries = valueAtPath(data, ['parallel', 'providers']);
  if (Array.isArray(entries)) entries.forEach((_, index) => paths.push(['parallel', 'providers', index, 'script']));
  const phases = valueAtPath(data, ['prompts']);
  if (Array.isArray(phases)) phases.forEach((_, index) => paths.push(['prompts', index, 'file']));
  return paths;
}

async function fileSystemProblems(data: unknown, specDir: string, locator: SourceLocator): Promise<SpecProblem[]> {
  const problems: SpecProblem[] = [];
  for (const path of fileKeys(data)) {
    const value = valueAtPath(data, path);
    if (typeof value !== 'string' || value.trim() === '') continue;
    const absolute = resolveSpecPath(specDir, value);
    const kind = await pathKind(absolute);
    if (kind === 'file') continue;
    const message =
      kind === 'missing'
        ? `file not found: ${absolute} (paths in a spec are relative to the spec file's folder)`
        : `${absolute} is a folder, expected a file (paths in a spec are relative to the spec file's folder)`;
    problems.push(locator.problem(path, message, 'value'));
  }
  const copies = valueAtPath(data, ['setup', 'copy']);
  if (Array.isArray(copies)) {
    copies.forEach((entry, index) => {
      const message = typeof entry === 'string' ? repoRelativePathProblem(entry) : undefined;
      if (message !== undefined) problems.push(locator.problem(['setup', 'copy', index], message, 'value'));
    });
  }
  return problems;
}

async function pathKind(absolute: string): Promise<'file' | 'folder' | 'missing'> {
  try {
    return (await stat(absolute)).isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

/** `setup.copy` copies from the repo into each worktree: refuse paths that leave the repo. */
function repoRelativePathProblem(entry: string): string | undefined {
  const hint = 'setup.copy takes paths relative to the repo root and refuses paths that leave the repo';
  if (isAbsolute(entry) || win32.isAbsolute(entry) || entry.startsWith('~')) {
    return `"${entry}" is an absolute path: ${hint}`;
  }
  const normalized = posix.normalize(entry.replaceAll('\\', '/'));
  if (normalized === '..' || normalized.startsWith('../')) return `"${entry}" leaves the repo: ${hint}`;
  return undefined;
}

// ---------------------------------------------------------------------------------------
// Where a key is in the TOML source

interface SourcePosition {
  readonly line: number;
  readonly column: number;
}

/** Turns a dotted key into a located `SpecProblem`, falling back to the nearest enclosing table. */
class SourceLocator {
  private readonly lines: string[];
  private readonly positions: TomlKeyPositions;

  constructor(
    private readonly file: string,
    source: string,
  ) {
    this.lines = sourceLines(source);
    this.positions = scanTomlKeyPositions(source);
  }

  /** `prefer`: point at the key itself (unknown keys) or at its value (bad values). */
  problem(path: readonly PathSegment[], message: string, prefer: 'key' | 'value'): SpecProblem {
    const key = path.length > 0 ? formatKeyPath(path) : undefined;
    const position = this.find(path, prefer);
    if (position === undefined) return { file: this.file, ...(key === undefined ? {} : { key }), message };
    const excerpt = this.lines[position.line - 1];
    return {
      file: this.file,
      line: position.line,
      column: position.column,
      ...(key === undefined ? {} : { key }),
      message,
      ...(excerpt === undefined ? {} : { excerpt }),
    };
  }

  private find(path: readonly PathSegment[], prefer: 'key' | 'value'): SourcePosition | undefined {
    const { keys, values } = this.positions;
    for (let length = path.length; length > 0; length--) {
      const dotted = formatKeyPath(path.slice(0, length));
      const exact = length === path.length && prefer === 'value';
      const found = exact ? (values.get(dotted) ?? keys.get(dotted)) : (keys.get(dotted) ?? values.get(dotted));
      if (found !== undefined) return found;
    }
    return undefined;
  }
}

interface TomlKeyPositions {
  /** Where each dotted key (or table header) is first written. */
  readonly keys: Map<string, SourcePosition>;
  /** Where each value starts, including array elements (`a.b[2]`). */
  readonly values: Map<string, SourcePosition>;
}

function scanTomlKeyPositions(source: string): TomlKeyPositions {
  const scanner = new TomlKeyScanner(source);
  scanner.scanDocument();
  return { keys: scanner.keys, values: scanner.values };
}

/**
 * A small scanner over TOML that smol-toml has already accepted: it records where keys
 * and values are, resolving `[[array.tables]]` to indexes the way zod paths name them.
 * It never judges the TOML (the parser did that), so it only has to be robust, not strict.
 */
class TomlKeyScanner {
  readonly keys = new Map<string, SourcePosition>();
  readonly values = new Map<string, SourcePosition>();
  private pos = 0;
  private readonly lineStarts: number[] = [0];
  /** How many `[[x]]` entries each array of tables has so far, by resolved path. */
  private readonly tableArrayCounts = new Map<string, number>();

  constructor(private readonly src: string) {
    for (let index = 0; index < src.length; index++) if (src[index] === '\n') this.lineStarts.push(index + 1);
  }

  scanDocument(): void {
    let table: PathSegment[] = [];
    while (this.pos < this.src.length) {
      const before = this.pos;
      this.skipBlank(true);
      if (this.pos >= this.src.length) break;
      if (this.src[this.pos] === '[') table = this.scanHeader();
      else this.scanKeyValue(table);
      if (this.pos === before) this.pos++;
    }
  }

  private scanHeader(): PathSegment[] {
    const headerOffset = this.pos;
    const isArray = this.src.startsWith('[[', this.pos);
    this.pos += isArray ? 2 : 1;
    const parts = this.scanKey();
    const resolved: PathSegment[] = [];
    parts.forEach((part, index) => {
      resolved.push(part.name);
      const dotted = formatKeyPath(resolved);
      this.record(this.keys, resolved, part.offset);
      const count = this.tableArrayCounts.get(dotted);
      if (isArray && index === parts.length - 1) {
        this.tableArrayCounts.set(dotted, (count ?? 0) + 1);
        resolved.push(count ?? 0);
        this.record(this.keys, resolved, headerOffset);
      } else if (count !== undefined) {
        // `[a.b]` after `[[a]]` belongs to the last `a` entry.
        resolved.push(count - 1);
      }
    });
    this.skipSpaces();
    if (this.src[this.pos] === ']') this.pos += isArray ? 2 : 1;
    return resolved;
  }

  private scanKeyValue(table: readonly PathSegment[]): void {
    const path = [...table];
    for (const part of this.scanKey()) {
      path.push(part.name);
      this.record(this.keys, path, part.offset);
    }
    this.skipSpaces();
    if (this.src[this.pos] !== '=') return;
    this.pos++;
    this.skipSpaces();
    this.record(this.values, path, this.pos);
    this.scanValue(path);
  }

  private scanKey(): Array<{ name: string; offset: number }> {
    const parts: Array<{ name: string; offset: number }> = [];
    for (;;) {
      this.skipSpaces();
      const offset = this.pos;
      const char = this.src[this.pos];
      let name: string;
      if (char === '"') name = this.decodeBasicString(this.skipString('"', true));
      else if (char === "'") name = this.skipString("'", false).slice(1, -1);
      else {
        while (this.pos < this.src.length && /[A-Za-z0-9_-]/.test(this.src[this.pos] as string)) this.pos++;
        name = this.src.slice(offset, this.pos);
        if (name === '') return parts;
      }
      parts.push({ name, offset });
      this.skipSpaces();
      if (this.src[this.pos] !== '.') return parts;
      this.pos++;
    }
  }

  private scanValue(path: readonly PathSegment[]): void {
    const char = this.src[this.pos];
    if (this.src.startsWith('"""', this.pos)) this.skipMultilineString('"""', true);
    else if (this.src.startsWith("'''", this.pos)) this.skipMultilineString("'''", false);
    else if (char === '"') this.skipString('"', true);
    else if (char === "'") this.skipString("'", false);
    else if (char === '[') this.scanArray(path);
    else if (char === '{') this.scanInlineTable(path);
    else while (this.pos < this.src.length && !',]}#\r\n'.includes(this.src[this.pos] as string)) this.pos++;
  }

  private scanArray(path: readonly PathSegment[]): void {
    this.pos++;
    for (let index = 0; this.pos < this.src.length; index++) {
      this.skipBlank(true);
      if (this.src[this.pos] === ']') {
        this.pos++;
        return;
      }
      const before = this.pos;
      const element = [...path, index];
      this.record(this.values, element, this.pos);
      this.scanValue(element);
      this.skipBlank(true);
      if (this.src[this.pos] === ',') this.pos++;
      if (this.pos === before) this.pos++;
    }
  }

  private scanInlineTable(path: readonly PathSegment[]): void {
    this.pos++;
    while (this.pos < this.src.length) {
      this.skipBlank(true);
      if (this.src[this.pos] === '}') {
        this.pos++;
        return;
      }
      const before = this.pos;
      this.scanKeyValue(path);
      this.skipBlank(true);
      if (this.src[this.pos] === ',') this.pos++;
      if (this.pos === before) this.pos++;
    }
  }

  /** Skips a one-line string starting at `pos` and returns its text, quotes included. */
  private skipString(quote: string, escapes: boolean): string {
    const start = this.pos;
    this.pos++;
    while (this.pos < this.src.length && this.src[this.pos] !== quote && this.src[this.pos] !== '\n') {
      this.pos += escapes && this.src[this.pos] === '\\' ? 2 : 1;
    }
    this.pos++;
    return this.src.slice(start, this.pos);
  }

  private skipMultilineString(delimiter: string, escapes: boolean): void {
    this.pos += 3;
    while (this.pos < this.src.length) {
      if (escapes && this.src[this.pos] === '\\') {
        this.pos += 2;
      } else if (this.src.startsWith(delimiter, this.pos)) {
        this.pos += 3;
        // Up to two quotes right before the closing delimiter belong to the string.
        for (let extra = 0; extra < 2 && this.src[this.pos] === delimiter[0]; extra++) this.pos++;
        return;
      } else {
        this.pos++;
      }
    }
  }

  private decodeBasicString(quoted: string): string {
    try {
      return JSON.parse(quoted) as string;
    } catch {
      return quoted.slice(1, -1);
    }
  }

  private skipSpaces(): void {
    while (this.src[this.pos] === ' ' || this.src[this.pos] === '\t') this.pos++;
  }

  /** Skips spaces, comments and (when `newlines`) line breaks. */
  private skipBlank(newlines: boolean): void {
    for (;;) {
      const char = this.src[this.pos];
      if (char === ' ' || char === '\t' || (newlines && (char === '\n' || char === '\r'))) this.pos++;
      else if (char === '#') while (this.pos < this.src.length && this.src[this.pos] !== '\n') this.pos++;
      else return;
    }
  }

  private record(into: Map<string, SourcePosition>, path: readonly PathSegment[], offset: number): void {
    const dotted = formatKeyPath(path);
    if (!into.has(dotted)) into.set(dotted, this.positionOf(offset));
  }

  private positionOf(offset: number): SourcePosition {
    let low = 0;
    let high = this.lineStarts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.lineStarts[middle] as number) <= offset) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: offset - (this.lineStarts[low] as number) + 1 };
  }
}

// ---------------------------------------------------------------------------------------
// Known keys, from the schema itself

interface LooseDef {
  readonly type: string;
  readonly [field: string]: unknown;
}

function defOf(schema: unknown): LooseDef | undefined {
  return (schema as { _zod?: { def?: LooseDef } } | undefined)?._zod?.def;
}

/** Looks through optional/default/prefault/pipe wrappers to the schema that holds the shape. */
function unwrapSchema(schema: unknown): unknown {
  let current = schema;
  for (let depth = 0; depth < 20; depth++) {
    const def = defOf(current);
    if (def === undefined) return current;
    if (['optional', 'default', 'prefault', 'nullable', 'nonoptional', 'readonly', 'catch'].includes(def.type)) current = def.innerType;
    else if (def.type === 'pipe') current = def.in;
    else return current;
  }
  return current;
}

function schemaAtPath(path: readonly PathSegment[]): unknown {
  let current: unknown = specSchema;
  for (const segment of path) {
    const def = defOf(unwrapSchema(current));
    if (def === undefined) return undefined;
    if (def.type === 'object') current = (def.shape as Record<string, unknown>)[String(segment)];
    else if (def.type === 'array') current = def.element;
    else if (def.type === 'record') current = def.valueType;
    else return undefined;
  }
  return unwrapSchema(current);
}

/** The keys a table at `path` may hold, in schema order. */
function knownKeysAt(path: readonly PathSegment[]): string[] {
  const def = defOf(schemaAtPath(path));
  if (def?.type === 'object') return Object.keys(def.shape as Record<string, unknown>);
  if (def?.type === 'record') {
    const keyDef = defOf(unwrapSchema(def.keyType));
    if (keyDef?.type === 'enum') return Object.values(keyDef.entries as Record<string, string>).map(String);
  }
  return [];
}

/** The known key a typo most likely meant, when one is close enough to be a fair guess. */
function closestKey(typed: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    const limit = Math.max(1, Math.floor(Math.max(typed.length, candidate.length) / 3));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Edit distance where swapping two neighbouring letters counts as one edit ("tmieout"). */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  const at = (i: number, j: number): number => rows[i]?.[j] ?? Infinity;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let distance = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) distance = Math.min(distance, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = distance;
    }
  }
  return at(a.length, b.length);
}

// ---------------------------------------------------------------------------------------
// Small helpers

/** `checks.items[1].timeout`; keys that are not bare TOML keys are quoted: `prices."gpt-4.1"`. */
function formatKeyPath(path: readonly PathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else {
      const key = /^[A-Za-z0-9_-]+$/.test(segment) ? segment : JSON.stringify(segment);
      out += out === '' ? key : `.${key}`;
    }
  }
  return out;
}

function valueAtPath(data: unknown, path: readonly PathSegment[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}

const MAX_SHOWN_VALUE = 60;

function showValue(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > MAX_SHOWN_VALUE ? `${text.slice(0, MAX_SHOWN_VALUE - 3)}...` : text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function sourceLines(source: string): string[] {
  return source.split(/\r?\n/);
}

function sortByPosition(problems: SpecProblem[]): SpecProblem[] {
  const rank = (problem: SpecProblem): number => (problem.line ?? Infinity) * 100_000 + (problem.column ?? 0);
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => rank(a.problem) - rank(b.problem) || a.index - b.index)
    .map(({ problem }) => problem);
}
