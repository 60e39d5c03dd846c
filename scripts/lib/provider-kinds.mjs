// The spec's list of provider kinds, read from the provider table (src/providers/table.ts) and
// written as src/spec/provider-kinds.ts. The spec layer imports nothing of ours (the layer order of
// docs/design/architecture.md), so it cannot import the table; this generator carries the table's
// kind names and what the spec checks of each (a row's `spec` field) across, and
// test/spec/provider-kinds.test.ts fails while the generated file is not what the table says.
// Adding a provider is its file and its row; `npm run gen:spec` writes this file again.
import ts from 'typescript';

export const TABLE_PATH = 'src/providers/table.ts';
export const KINDS_PATH = 'src/spec/provider-kinds.ts';

/** The value of a literal of the `spec` field: strings and objects of them, nothing computed. */
function literal(node, where) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return node.text;
  if (ts.isObjectLiteralExpression(node)) {
    const out = {};
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property)) throw new Error(`${where}: only plain properties in a row's spec field`);
      out[propertyName(property.name, where)] = literal(property.initializer, where);
    }
    return out;
  }
  throw new Error(`${where}: a row's spec field holds only string literals and objects of them`);
}

function propertyName(name, where) {
  if (ts.isIdentifier(name) || ts.isStringLiteral(name)) return name.text;
  throw new Error(`${where}: a computed property name`);
}

/** The rows of PROVIDER_TABLE in `source` (the text of table.ts), in order: each kind and its `spec` field ({} without one). */
export function kindsFromTable(source) {
  const file = ts.createSourceFile(TABLE_PATH, source, ts.ScriptTarget.Latest, true);
  let table;
  const visit = (node) => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.name.text === 'PROVIDER_TABLE') table = node.initializer;
    else ts.forEachChild(node, visit);
  };
  visit(file);
  while (table && (ts.isSatisfiesExpression(table) || ts.isAsExpression(table))) table = table.expression;
  if (!table || !ts.isObjectLiteralExpression(table)) throw new Error(`${TABLE_PATH}: no PROVIDER_TABLE = { ... } found`);
  return table.properties.map((row) => {
    if (!ts.isPropertyAssignment(row) || !ts.isObjectLiteralExpression(row.initializer))
      throw new Error(`${TABLE_PATH}: every row of PROVIDER_TABLE is \`kind: { ... }\``);
    const kind = propertyName(row.name, TABLE_PATH);
    const spec = row.initializer.properties.find((p) => ts.isPropertyAssignment(p) && propertyName(p.name, TABLE_PATH) === 'spec');
    return { kind, spec: spec ? literal(spec.initializer, `${TABLE_PATH}: ${kind}`) : {} };
  });
}

/** A value as TypeScript source, in the formatter's style (single quotes, spaces inside braces). */
function source(value) {
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  return `{ ${entries.map(([key, v]) => `${/^[A-Za-z_$][\w$]*$/.test(key) ? key : source(key)}: ${source(v)}`).join(', ')} }`;
}

/** The text of src/spec/provider-kinds.ts for these rows. */
export function kindsModule(rows) {
  return `/**
 * GENERATED from ${TABLE_PATH} by scripts/lib/provider-kinds.mjs (\`npm run gen:spec\`): do not edit.
 * The provider kinds of the spec language, in the table's order, and what the spec checks of each.
 */

/** What the spec language says of one provider kind (a row's \`spec\` field in the provider table). */
export interface KindInSpec {
  /** Said after its name where the kinds are listed. */
  readonly note?: string;
  /** The key its agents cannot do without, and an example value for the message that asks for it. */
  readonly needs?: { readonly key: 'command' | 'script'; readonly example: string };
}

export const PROVIDER_KIND_FACTS = {
${rows.map((row) => `  ${row.kind}: ${source(row.spec)},`).join('\n')}
} as const satisfies Readonly<Record<string, KindInSpec>>;
`;
}
