/**
 * The words of a bad spec: TOML syntax errors said in terms of what to type, zod issues
 * said in the spec's own language ("a table", "a list", "true or false") with the value that
 * was given, and where the key is (through SourceLocator). Wording lives here, apart from the
 * load pipeline, so every message can be read and changed in one place; test/spec/bad-specs
 * pins them.
 */
import { TomlError } from 'smol-toml';
import type { z } from 'zod';
import type { SpecProblem } from './errors.js';
import { formatKeyPath, isPlainObject, valueAtPath, type PathSegment } from './key-path.js';
import { closestKey, unknownKeyMessage } from './suggestions.js';
import { sourceLines, type SourceLocator } from './toml-positions.js';

// ---------------------------------------------------------------------------------------
// TOML syntax

export function tomlSyntaxProblem(file: string, source: string, error: unknown): SpecProblem {
  if (!(error instanceof TomlError)) {
    return { file, message: `invalid TOML: ${error instanceof Error ? error.message : String(error)}` };
  }
  const excerpt = sourceLines(source)[error.line - 1];
  // smol-toml appends its own numbered code block to the message; we print our excerpt instead.
  const raw =
    error.message
      .split('\n\n')[0]
      ?.replace(/^Invalid TOML document:\s*/, '')
      .trim() ?? '';
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

/** Codes whose message reads better followed by the value that was given. */
const VALUE_ISSUES = new Set(['invalid_type', 'invalid_value', 'too_small', 'too_big', 'invalid_format', 'invalid_union', 'not_multiple_of']);

/**
 * Messages for the issues the schema does not word itself. Zod prefers the schema's own
 * messages over these, so the schema stays the single place that can say it better.
 */
export const humanIssueMessage: z.core.$ZodErrorMap = (issue) => {
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

export function schemaProblems(issue: z.core.$ZodIssue, data: unknown, locator: SourceLocator): SpecProblem[] {
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
  if (issue.code === 'invalid_value') message += closestValueHint(issue.values, value);
  return [locator.problem(path, message, 'value')];
}

/** Did-you-mean for a value out of a fixed list (`kind = "cluade"`), as keys get one. */
function closestValueHint(allowed: readonly unknown[], value: unknown): string {
  if (typeof value !== 'string') return '';
  const suggestion = closestKey(
    value,
    allowed.filter((option): option is string => typeof option === 'string'),
  );
  return suggestion === undefined || suggestion === value ? '' : ` — did you mean "${suggestion}"?`;
}

/** The two table spellings are easy to mix up; say which one the key needs. */
function tableSyntaxHint(expected: string, path: readonly PathSegment[], value: unknown): string {
  if (!path.every((segment) => typeof segment === 'string')) return '';
  const name = formatKeyPath(path);
  if (expected === 'array' && isPlainObject(value)) return ` (write [[${name}]] once per entry)`;
  if (expected === 'object' && Array.isArray(value) && value.every(isPlainObject)) return ` (write [${name}], not [[${name}]])`;
  return '';
}

// ---------------------------------------------------------------------------------------
// Values

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
