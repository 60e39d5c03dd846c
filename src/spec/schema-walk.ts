/**
 * The one walk over the zod schema. Zod has no public way to list a table's keys through
 * the optional / default / pipe wrappers, or to read the metadata of a wrapped key, so this
 * reads `_zod.def` and zod's global registry. Everything that asks the schema about its
 * shape goes through here: the did-you-mean suggestions, the file rules, the reference docs
 * and the JSON Schema's extras. A zod upgrade that moves its internals touches this file only.
 */
import { z } from 'zod';
import { isPlainObject, type PathSegment } from './key-path.js';
import { durationInput, limitInput, specSchema, type SpecKeyMeta } from './schema.js';

interface LooseDef {
  readonly type: string;
  readonly [field: string]: unknown;
}

function defOf(schema: unknown): LooseDef | undefined {
  return (schema as { _zod?: { def?: LooseDef } } | undefined)?._zod?.def;
}

const WRAPPERS = new Set(['optional', 'default', 'prefault', 'nullable', 'nonoptional', 'readonly', 'catch']);

/** A key's schema seen through its wrappers. */
export interface UnwrappedSchema {
  /** The schema that holds the shape: object, array, record, string, enum, ... */
  readonly schema: unknown;
  readonly type: string;
  /** The metadata of every layer, the outer layer's winning. */
  readonly meta: SpecKeyMeta;
  /** The key may be left out (optional, or it has a default). */
  readonly optional: boolean;
  /** The default as the TOML would write it; absent when the key has none. */
  readonly default?: { readonly value: unknown };
  /** A duration ("90s", "15m"): a string or number (of seconds) parsed to milliseconds. */
  readonly isDuration: boolean;
  /** A duration that is a limit, so more than 0 (every one but a wait such as `loop.rate_limit_backoff`). */
  readonly isLimit: boolean;
}

export function unwrapSchema(schema: unknown): UnwrappedSchema {
  let current = schema;
  let meta: SpecKeyMeta = {};
  let optional = false;
  let defaultValue: { value: unknown } | undefined;
  for (let depth = 0; depth < 20; depth++) {
    meta = { ...(z.globalRegistry.get(current as z.ZodType) as SpecKeyMeta | undefined), ...meta };
    const def = defOf(current);
    if (def === undefined) break;
    if (def.type === 'pipe' && (def.in === durationInput || def.in === limitInput)) {
      return {
        schema: current,
        type: 'duration',
        meta,
        optional,
        ...(defaultValue ? { default: defaultValue } : {}),
        isDuration: true,
        isLimit: def.in === limitInput,
      };
    }
    if (WRAPPERS.has(def.type)) {
      if (def.type === 'optional' || def.type === 'default' || def.type === 'prefault') optional = true;
      if ((def.type === 'default' || def.type === 'prefault') && defaultValue === undefined) defaultValue = { value: def.defaultValue };
      current = def.innerType;
    } else if (def.type === 'pipe') {
      current = def.in;
    } else {
      break;
    }
  }
  return {
    schema: current,
    type: defOf(current)?.type ?? 'unknown',
    meta,
    optional,
    ...(defaultValue ? { default: defaultValue } : {}),
    isDuration: false,
    isLimit: false,
  };
}

/** The shape of an object schema, the element of an array, the value of a record. */
export function childrenOf(unwrapped: UnwrappedSchema): { shape?: Record<string, unknown>; element?: unknown; recordValue?: unknown; recordKey?: unknown } {
  const def = defOf(unwrapped.schema);
  if (def?.type === 'object') return { shape: def.shape as Record<string, unknown> };
  if (def?.type === 'array') return { element: def.element };
  if (def?.type === 'record') return { recordValue: def.valueType, recordKey: def.keyType };
  return {};
}

/** What a leaf schema accepts, for the reference docs. */
export interface LeafDetails {
  /** An enum's values. */
  readonly values?: readonly string[];
  /** A union's options. */
  readonly options?: readonly UnwrappedSchema[];
  /** A number's checks: `.int()`, `.min()`, `.max()`. */
  readonly integer: boolean;
  readonly min?: { readonly value: number; readonly inclusive: boolean };
  readonly max?: { readonly value: number; readonly inclusive: boolean };
}

export function leafDetails(unwrapped: UnwrappedSchema): LeafDetails {
  const def = defOf(unwrapped.schema);
  let integer = false;
  let min: LeafDetails['min'];
  let max: LeafDetails['max'];
  for (const check of (def?.checks as unknown[] | undefined) ?? []) {
    const checkDef = defOf(check) as { check?: string; format?: string; value?: number; inclusive?: boolean } | undefined;
    if (checkDef?.check === 'number_format' && checkDef.format?.includes('int')) integer = true;
    if (checkDef?.check === 'greater_than') min = { value: Number(checkDef.value), inclusive: checkDef.inclusive === true };
    if (checkDef?.check === 'less_than') max = { value: Number(checkDef.value), inclusive: checkDef.inclusive === true };
  }
  return {
    ...(def?.type === 'enum' ? { values: Object.values(def.entries as Record<string, string>).map(String) } : {}),
    ...(def?.type === 'union' ? { options: (def.options as unknown[]).map(unwrapSchema) } : {}),
    integer,
    ...(min === undefined ? {} : { min }),
    ...(max === undefined ? {} : { max }),
  };
}

/** The schema of the key at a concrete path (`checks.items[1].timeout`), or undefined. */
export function schemaAtPath(path: readonly PathSegment[]): UnwrappedSchema | undefined {
  let current = unwrapSchema(specSchema);
  for (const segment of path) {
    const { shape, element, recordValue } = childrenOf(current);
    const next = shape !== undefined ? shape[String(segment)] : (element ?? recordValue);
    if (next === undefined) return undefined;
    current = unwrapSchema(next);
  }
  return current;
}

/** The keys a table at `path` may hold, in schema order. */
export function knownKeysAt(path: readonly PathSegment[]): string[] {
  const at = schemaAtPath(path);
  if (at === undefined) return [];
  const { shape, recordKey } = childrenOf(at);
  if (shape !== undefined) return Object.keys(shape);
  const keyDef = defOf(recordKey === undefined ? undefined : unwrapSchema(recordKey).schema);
  if (keyDef?.type === 'enum') return Object.values(keyDef.entries as Record<string, string>).map(String);
  return [];
}

/** The segment of a key pattern that stands for every entry of a list. */
export const EVERY_ENTRY = '[]';

/** One key of the spec language, as a pattern over every spec. */
export interface SpecKey extends UnwrappedSchema {
  /** `['checks', 'items', '[]', 'name']`; a table with free keys has `<kind>`-like segments. */
  readonly pattern: readonly string[];
  /** `checks.items[].name`, `providers.<kind>.max_concurrency`. */
  readonly name: string;
}

function patternName(pattern: readonly string[]): string {
  return pattern.reduce((out, segment) => (segment === EVERY_ENTRY ? `${out}[]` : out === '' ? segment : `${out}.${segment}`), '');
}

function isFreeKey(segment: string): boolean {
  return segment.startsWith('<');
}

/** Every key of the spec language, depth first in schema order (a table before its keys). */
export function listSpecKeys(): SpecKey[] {
  const keys: SpecKey[] = [];
  const visitTable = (schema: UnwrappedSchema, pattern: readonly string[]): void => {
    const { shape, element, recordValue } = childrenOf(schema);
    if (shape !== undefined) {
      for (const [key, child] of Object.entries(shape)) {
        const unwrapped = unwrapSchema(child);
        const childPattern = [...pattern, key];
        keys.push({ ...unwrapped, pattern: childPattern, name: patternName(childPattern) });
        visitTable(unwrapped, childPattern);
      }
    } else if (element !== undefined) {
      visitTable(unwrapSchema(element), [...pattern, EVERY_ENTRY]);
    } else if (recordValue !== undefined) {
      visitTable(unwrapSchema(recordValue), [...pattern, `<${schema.meta.keyName ?? 'name'}>`]);
    }
  };
  visitTable(unwrapSchema(specSchema), []);
  return keys;
}

/** Where a key pattern occurs in parsed TOML: every concrete path and the value there. */
export function occurrencesOf(pattern: readonly string[], data: unknown): Array<{ path: PathSegment[]; value: unknown }> {
  let found: Array<{ path: PathSegment[]; value: unknown }> = [{ path: [], value: data }];
  for (const segment of pattern) {
    found = found.flatMap(({ path, value }) => {
      if (segment === EVERY_ENTRY) return Array.isArray(value) ? value.map((entry, index) => ({ path: [...path, index], value: entry })) : [];
      if (!isPlainObject(value)) return [];
      if (isFreeKey(segment)) return Object.entries(value).map(([key, entry]) => ({ path: [...path, key], value: entry }));
      return Object.hasOwn(value, segment) ? [{ path: [...path, segment], value: value[segment] }] : [];
    });
  }
  return found;
}
