// Types of provider-kinds.mjs, for the tests (TypeScript does not check the .mjs itself: no allowJs).

export const TABLE_PATH: string;
export const KINDS_PATH: string;

/** The rows of PROVIDER_TABLE in the text of table.ts, in order: each kind and its `spec` field ({} without one). */
export function kindsFromTable(source: string): { kind: string; spec: Record<string, unknown> }[];

/** The text of src/spec/provider-kinds.ts for these rows. */
export function kindsModule(rows: readonly { kind: string; spec: Record<string, unknown> }[]): string;
