// Types of import-cycles.mjs, for the tests (TypeScript does not check the .mjs itself: no allowJs).

/** The components of `graph` (file -> files it imports) that hold a circle, each sorted, largest first. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][];

/** The relative imports (type imports included) of every .ts/.tsx file under `srcDir`, paths relative to it. */
export function importGraph(srcDir: string): Map<string, string[]>;
