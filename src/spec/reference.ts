/**
 * The two documents generated from the schema: the spec reference in docs/spec.md (the tables
 * between the `spec-reference` markers) and configs/bestof.schema.json, the JSON Schema that
 * editors with TOML support (Even Better TOML, taplo) use to complete and check a spec.
 * Both are derived here, from the keys' `.meta()`, so the docs cannot drift from what the
 * loader accepts; scripts/gen-spec-docs.mjs writes them, test/spec/generated.test.ts fails
 * when a committed copy differs from what this would write.
 */
import { z } from 'zod';
import { formatKeyPath } from './key-path.js';
import { childrenOf, EVERY_ENTRY, leafDetails, listSpecKeys, unwrapSchema, type LeafDetails, type SpecKey, type UnwrappedSchema } from './schema-walk.js';
import { durationInput, limitInput, specSchema } from './schema.js';

export const REFERENCE_START = '<!-- spec-reference:start: generated from src/spec/schema.ts by `npm run gen:spec`; edit the schema, not this -->';
export const REFERENCE_END = '<!-- spec-reference:end -->';
/** Where the spec reference lives, relative to the package root (between the markers above). */
export const SPEC_REFERENCE_PATH = 'docs/spec.md';
/** Where the JSON Schema lives, relative to the package root (`bestof init` points specs at it). */
export const JSON_SCHEMA_PATH = 'configs/bestof.schema.json';

// ---------------------------------------------------------------------------------------
// The spec reference (docs/spec.md)

/** The Markdown between the markers (markers excluded). */
export function specReferenceMarkdown(): string {
  const keys = listSpecKeys();
  const topLevel = keys.filter((key) => key.pattern.length === 1);
  const scalars = topLevel.filter((key) => !isTable(key));
  const tables = topLevel.filter(isTable);
  const blocks = [
    'The tables below are generated from the schema (`src/spec/schema.ts`), the single source of truth, by `npm run gen:spec`; ' +
      `so is \`${JSON_SCHEMA_PATH}\`, with which an editor that reads JSON Schema for TOML (Even Better TOML, taplo) completes and ` +
      'checks a spec as you type, once its first line is `#:schema <path to bestof.schema.json>` (`bestof init` writes that line).',
    DURATIONS_TEXT,
    section('### Top level', undefined, scalars),
    ...tables.map((table) =>
      section(
        `### ${tableHeading(table)}`,
        table.meta.description,
        keys.filter((key) => isUnder(key, table) && !documentedElsewhere(key)),
      ),
    ),
  ];
  return `${blocks.join('\n\n')}\n`;
}

/** What a duration is, said once above the tables (their type column says `duration`). */
export const DURATIONS_TEXT =
  'A *duration* is a string such as `"90s"`, `"15m"`, `"2h"`, `"1h30m"` or `"500ms"`, or a bare number of seconds ' +
  '(`timeout = 90` is 90 seconds). A duration that is a limit (type `duration > 0`) must be more than 0, since a limit of 0 ' +
  'would stop every call at once: leave the key out for its default (for `loop.duration` and `loop.run_duration`, no limit).';

/** `page` with the region between the markers replaced by `generated`. */
export function withReferenceRegion(page: string, generated: string): string {
  const start = page.indexOf(REFERENCE_START);
  const end = page.indexOf(REFERENCE_END);
  if (start === -1 || end < start) throw new Error(`${SPEC_REFERENCE_PATH} has no spec reference region: add the lines\n${REFERENCE_START}\n${REFERENCE_END}`);
  return `${page.slice(0, start + REFERENCE_START.length)}\n${generated}${page.slice(end)}`;
}

/** The region as it is in `page` (markers excluded), or undefined without markers. */
export function referenceRegionOf(page: string): string | undefined {
  const start = page.indexOf(REFERENCE_START);
  const end = page.indexOf(REFERENCE_END);
  return start === -1 || end < start ? undefined : page.slice(start + REFERENCE_START.length + 1, end);
}

function section(heading: string, intro: string | undefined, rows: readonly SpecKey[]): string {
  const table = ['| key | type | default | meaning |', '| --- | --- | --- | --- |', ...rows.map(row)];
  return [heading, ...(intro === undefined ? [] : [intro]), table.join('\n')].join('\n\n');
}

/** Keys of `[provider]` are listed once, by their own name, for `[provider]` and `[[parallel.providers]]`. */
const AGENT_TABLE = 'provider';
const AGENT_ENTRIES = ['parallel', 'providers', EVERY_ENTRY];

function documentedElsewhere(key: SpecKey): boolean {
  return AGENT_ENTRIES.every((segment, index) => key.pattern[index] === segment) && key.pattern.length > AGENT_ENTRIES.length;
}

function row(key: SpecKey): string {
  const name = key.pattern[0] === AGENT_TABLE ? key.pattern.slice(1).join('.') : key.name;
  const cells = [`\`${name}\``, describeType(key), describeDefault(key), key.meta.description ?? ''];
  return `| ${cells.map((cell) => cell.replaceAll('|', '\\|')).join(' | ')} |`;
}

function isTable(key: UnwrappedSchema): boolean {
  const { shape, element, recordValue } = childrenOf(key);
  const tableOf = (schema: unknown): boolean => schema !== undefined && childrenOf(unwrapSchema(schema)).shape !== undefined;
  return shape !== undefined || tableOf(element) || tableOf(recordValue);
}

function isUnder(key: SpecKey, table: SpecKey): boolean {
  return key.pattern.length > table.pattern.length && table.pattern.every((segment, index) => key.pattern[index] === segment);
}

function tableHeading(table: SpecKey): string {
  const { element, recordValue } = childrenOf(table);
  const name = table.name;
  const header = element !== undefined ? `[[${name}]]` : recordValue !== undefined ? `[${name}.<${table.meta.keyName ?? 'name'}>]` : `[${name}]`;
  const agents = name === AGENT_TABLE ? ' and `[[parallel.providers]]`' : '';
  return `\`${header}\`${agents}${table.meta.title === undefined ? '' : ` — ${table.meta.title}`}`;
}

function describeDefault(key: SpecKey): string {
  if (key.default !== undefined && !(isTable(key) && isEmpty(key.default.value))) return `\`${showToml(key.default.value)}\``;
  if (key.meta.defaultText !== undefined) return key.meta.defaultText;
  return key.optional || isTable(key) ? '—' : '*required*';
}

function isEmpty(value: unknown): boolean {
  return (Array.isArray(value) && value.length === 0) || (typeof value === 'object' && value !== null && Object.keys(value).length === 0);
}

/** A default as it would be written in TOML: `"15m"`, `true`, `["score", "cost"]`, `{}`. */
function showToml(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(showToml).join(', ')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.length === 0 ? '{}' : `{ ${entries.map(([k, v]) => `${formatKeyPath([k])} = ${showToml(v)}`).join(', ')} }`;
  }
  return JSON.stringify(value);
}

function describeType(key: UnwrappedSchema): string {
  if (key.isDuration) return key.isLimit ? 'duration > 0' : 'duration';
  const details = leafDetails(key);
  switch (key.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'boolean';
    case 'number':
      return describeNumber(details);
    case 'enum':
      return orList((details.values ?? []).map((value) => `\`${JSON.stringify(value)}\``));
    case 'union':
      return orList((details.options ?? []).map(describeType));
    case 'object':
      return 'table';
    case 'array': {
      const element = unwrapSchema(childrenOf(key).element);
      return element.type === 'enum' ? `list of ${describeType(element)}` : `list of ${plural(describeType(element))}`;
    }
    case 'record':
      return `table of ${plural(describeType(unwrapSchema(childrenOf(key).recordValue)))}`;
    default:
      return key.type;
  }
}

/** `integer ≥ 1`, `number, 0 to 1`. */
function describeNumber({ integer, min, max }: LeafDetails): string {
  const base = integer ? 'integer' : 'number';
  if (min?.inclusive && max?.inclusive) return `${base}, ${min.value} to ${max.value}`;
  const bounds = [
    ...(min === undefined ? [] : [`${min.inclusive ? '≥' : '>'} ${min.value}`]),
    ...(max === undefined ? [] : [`${max.inclusive ? '≤' : '<'} ${max.value}`]),
  ];
  return bounds.length === 0 ? base : `${base} ${bounds.join(', ')}`;
}

/** "string, number or boolean" -> "strings, numbers or booleans". */
function plural(type: string): string {
  return type.replace(/\b(string|number|integer|boolean|table|duration)\b/g, '$1s');
}

function orList(items: readonly string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} or ${items.at(-1)}`;
}

// ---------------------------------------------------------------------------------------
// The JSON Schema

/** Fields of our `.meta()` that mean something to the docs and the loader, nothing to JSON Schema. */
const OWN_META_FIELDS = ['defaultText', 'pathRule', 'keyName'];

/** Durations as `parseDuration` reads them: "90s", "1h30m", "500ms", or a bare number of seconds. */
const NUMBER = '\\d+(\\.\\d+)?';
const UNIT = '(ms|s|m|h|d)';
const DURATION_PATTERN = `^\\s*(${NUMBER}|(${NUMBER}${UNIT})+)\\s*$`;
/**
 * The same, with a digit other than 0 somewhere: a limit of "0s" or "0h0m" is refused. Spelled
 * without lookahead, which taplo's regex engine (Rust's `regex`) does not have.
 */
const NONZERO_NUMBER = '(\\d*[1-9]\\d*(\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)';
const LIMIT_PATTERN = `^\\s*(${NONZERO_NUMBER}|(${NUMBER}${UNIT})*${NONZERO_NUMBER}${UNIT}(${NUMBER}${UNIT})*)\\s*$`;

/**
 * The spec's JSON Schema, for editors. It describes what a spec may be written as (`io:
 * "input"`), draft-07 because that is what taplo reads. The refinements that need the whole
 * spec (`text` or `file`, unique check names, file rules) stay with `bestof validate`.
 */
export function specJsonSchema(): Record<string, unknown> {
  return jsonSchemaFor(specSchema, {
    title: 'bestof spec',
    description: 'One bestof run: the task, the agents, the checks, the stop rules, the vote and the merge. See docs/spec.md.',
  });
}

/** The JSON Schema of a spec-like zod schema (the run spec's, the bench spec's): draft-07, as written, our durations spelled out. */
export function jsonSchemaFor(schema: z.ZodType, head: { readonly title: string; readonly description: string }): Record<string, unknown> {
  const generated = z.toJSONSchema(schema, {
    io: 'input',
    target: 'draft-07',
    override: (ctx) => {
      if (ctx.zodSchema !== durationInput && ctx.zodSchema !== limitInput) return;
      const isLimit = ctx.zodSchema === limitInput;
      for (const field of Object.keys(ctx.jsonSchema)) delete (ctx.jsonSchema as Record<string, unknown>)[field];
      Object.assign(ctx.jsonSchema, {
        anyOf: [
          { type: 'string', pattern: isLimit ? LIMIT_PATTERN : DURATION_PATTERN },
          isLimit ? { type: 'number', exclusiveMinimum: 0 } : { type: 'number', minimum: 0 },
        ],
      });
    },
  }) as Record<string, unknown>;
  const { $schema, ...rest } = generated;
  return { $schema, ...head, ...(tidy(rest) as Record<string, unknown>) };
}

/** Drops our own meta fields and zod's safe-integer bounds, and spells out tables keyed by an enum. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(node)) {
    if (OWN_META_FIELDS.includes(field)) continue;
    if ((field === 'maximum' && value === Number.MAX_SAFE_INTEGER) || (field === 'minimum' && value === Number.MIN_SAFE_INTEGER)) continue;
    out[field] = tidy(value);
  }
  // `[providers.<kind>]`: named properties complete in an editor, `propertyNames` does not.
  const names = (out.propertyNames as { enum?: unknown[] } | undefined)?.enum;
  if (names !== undefined && typeof out.additionalProperties === 'object') {
    out.properties = Object.fromEntries(names.map((name) => [String(name), out.additionalProperties]));
    out.additionalProperties = false;
    delete out.propertyNames;
  }
  return out;
}

/** The file's text: what scripts/gen-spec-docs.mjs writes and the test compares. */
export function specJsonSchemaText(): string {
  return `${JSON.stringify(specJsonSchema(), null, 2)}\n`;
}
