/**
 * A tiny validator for the part of JSON Schema that configs/bestof.schema.json and bench.schema.json use, so a
 * test can check real specs against it without a dependency. It refuses any keyword it does
 * not know, so the generated schema cannot grow past what is checked here unnoticed.
 */
type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set(['$schema', 'title', 'description', 'default']);
const CHECKED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'items',
  'enum',
  'anyOf',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'minItems',
]);

/** Every place `value` breaks `schema`, as `path: what`; empty when it fits. */
export function validateJsonSchema(schema: Schema, value: unknown, path = '$'): string[] {
  for (const keyword of Object.keys(schema)) {
    if (!ANNOTATIONS.has(keyword) && !CHECKED.has(keyword)) throw new Error(`${path}: the test validator does not know the keyword "${keyword}"`);
  }
  if (schema.anyOf !== undefined) {
    const fits = (schema.anyOf as Schema[]).some((option) => validateJsonSchema(option, value, path).length === 0);
    if (!fits) return [`${path}: matches none of the allowed forms`];
  }
  if (schema.enum !== undefined && !(schema.enum as unknown[]).includes(value))
    return [`${path}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`];
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((type) => hasType(value, type))) return [`${path}: expected ${types.join(' or ')}, got ${JSON.stringify(value)}`];
  }
  const problems: string[] = [];
  if (typeof value === 'string') {
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) problems.push(`${path}: shorter than ${schema.minLength}`);
    if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) problems.push(`${path}: longer than ${schema.maxLength}`);
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) problems.push(`${path}: does not match ${schema.pattern}`);
  }
  if (typeof value === 'number') {
    if (typeof schema.minimum === 'number' && value < schema.minimum) problems.push(`${path}: below ${schema.minimum}`);
    if (typeof schema.exclusiveMinimum === 'number' && value <= schema.exclusiveMinimum) problems.push(`${path}: not above ${schema.exclusiveMinimum}`);
    if (typeof schema.maximum === 'number' && value > schema.maximum) problems.push(`${path}: above ${schema.maximum}`);
  }
  if (Array.isArray(value) && typeof schema.minItems === 'number' && value.length < schema.minItems)
    problems.push(`${path}: fewer than ${schema.minItems} items`);
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, index) => {
      problems.push(...validateJsonSchema(schema.items as Schema, item, `${path}[${index}]`));
    });
  }
  if (isObject(value)) problems.push(...validateObject(schema, value, path));
  return problems;
}

function validateObject(schema: Schema, value: Record<string, unknown>, path: string): string[] {
  const problems: string[] = [];
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  for (const key of (schema.required ?? []) as string[]) if (!(key in value)) problems.push(`${path}.${key}: required`);
  for (const [key, item] of Object.entries(value)) {
    if (schema.propertyNames !== undefined) problems.push(...validateJsonSchema(schema.propertyNames as Schema, key, `${path}.${key} (name)`));
    const known = properties[key];
    if (known !== undefined) problems.push(...validateJsonSchema(known, item, `${path}.${key}`));
    else if (schema.additionalProperties === false) problems.push(`${path}.${key}: unknown key`);
    else if (isObject(schema.additionalProperties)) problems.push(...validateJsonSchema(schema.additionalProperties, item, `${path}.${key}`));
  }
  return problems;
}

function hasType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return isObject(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'number':
      return typeof value === 'number';
    case 'string':
      return typeof value === 'string';
    case 'boolean':
      return typeof value === 'boolean';
    case 'null':
      return value === null;
    default:
      throw new Error(`the test validator does not know the type "${type}"`);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
