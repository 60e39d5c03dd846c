/**
 * The layering of docs/design/architecture.md, checked on the source:
 *
 *   cli -> (ui, engine, bench, report) -> engine -> (providers, checks, vote, git, spec) -> process
 *
 * (beside them, report reads bench's summary for bench.html, and ui a bench's types; never the reverse)
 * plus the leaves every layer may import and which import nothing of ours: src/result.ts,
 * src/package-root.ts (where the package's own files are), src/owned-tree.ts, src/proc-stat.ts and
 * src/printable.ts (text safe to print, for every writer of plain output), src/env.ts (the Env type). Every
 * relative import of every file under src/ is checked against the table below; so are the
 * packages that belong to one layer only (ink and react to the UI, child_process to src/process
 * and to src/git/running/spawn-git.ts, git's own runner).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/cli.js';
import { importCycles, importGraph } from '../scripts/lib/import-cycles.mjs';

const SRC = join(PROJECT_ROOT, 'src');

type Layer =
  | 'cli'
  | 'ui'
  | 'bench'
  | 'report'
  | 'engine'
  | 'providers'
  | 'checks'
  | 'vote'
  | 'distinguish'
  | 'git'
  | 'spec'
  | 'process'
  | 'result'
  | 'package-root'
  | 'owned-tree'
  | 'proc-stat'
  | 'printable'
  | 'env';

const BELOW_ENGINE: readonly Layer[] = ['providers', 'checks', 'vote', 'distinguish', 'git', 'spec', 'process'];
/** Modules of one file that every layer may import, and that import nothing of ours. */
const LEAVES: readonly Layer[] = ['result', 'package-root', 'owned-tree', 'proc-stat', 'printable', 'env'];

/**
 * Which layers each layer may import (besides itself and `result`). A layer may reach past the
 * one right below it (the CLI opens the repo through src/git), never up, never into cli.
 */
const ALLOWED: Record<Layer, readonly Layer[]> = {
  cli: ['ui', 'engine', 'bench', 'report', ...BELOW_ENGINE],
  // docs/design/architecture.md: the UI imports the engine, and only types from the layers under it (run-state's reducer is the UI's snapshot).
  ui: ['engine'],
  bench: ['engine', ...BELOW_ENGINE],
  // A bench's report (bench.html) reads the bench's summary and number formats; bench never imports report.
  report: ['engine', 'bench', ...BELOW_ENGINE],
  engine: BELOW_ENGINE,
  // The layers under the engine are peers; these are the edges between them that make sense:
  // everyone reads the spec's types, the frozen-files check needs git, a cross-review runs providers.
  providers: ['spec', 'process'],
  checks: ['spec', 'git', 'process'],
  vote: ['providers', 'spec', 'process'],
  // The distinguish step's pure core (its record, ranking and prompt) needs nothing of ours.
  distinguish: [],
  git: [],
  spec: [],
  process: [],
  result: [],
  'package-root': [],
  'owned-tree': [],
  'proc-stat': [],
  printable: [],
  env: [],
};

/**
 * Layers a layer may import types from (`import type`, erased at build time) though not values:
 * the types that RunEvent carries live with their producers (CheckOutcome in src/checks,
 * Outcome in src/providers, MergeMode in src/spec), and the UI renders them.
 */
const TYPES_FROM: Partial<Record<Layer, readonly Layer[]>> = {
  // …and the vote's verdicts (PairOutcome) that vote.call carries.
  // …and a bench's events and records (src/bench), for the bench's front ends.
  // …and the distinguish step's record (src/distinguish/types.ts).
  ui: ['checks', 'providers', 'spec', 'vote', 'distinguish', 'bench'],
};

/**
 * Imports that break the order today and are being fixed elsewhere. Each entry is
 * `<file> -> <imported file>`, both relative to src/. Empty this list as they go; an entry that
 * no longer matches an import fails the test, so the list cannot go stale.
 */
const KNOWN_EXCEPTIONS: readonly string[] = [
  // The plain reporter formats durations with the spec's formatter; the UI should get it from the
  // engine (or a shared formatting module both may import) instead.
  'ui/plain-reporter.ts -> spec/duration.js',
];

interface Import {
  readonly specifier: string;
  readonly typeOnly: boolean;
}

interface SourceFile {
  /** Relative to src/, with `/`. */
  readonly path: string;
  readonly layer: string;
  readonly imports: readonly Import[];
  readonly text: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.d\.ts$/.test(name) ? [path] : [];
  });
}

const STATIC_IMPORT = /^[ \t]*(?:import|export)\s+(type\s+)?([^;'"]*?)\s*from\s*['"]([^'"]+)['"]/gm;
const SIDE_EFFECT_IMPORT = /^[ \t]*import\s*['"]([^'"]+)['"]/gm;
const DYNAMIC_IMPORT = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** `import { type A, type B } from` is as type-only as `import type { A, B } from`. */
function onlyTypes(clause: string): boolean {
  const braces = /^\{([\s\S]*)\}$/.exec(clause.trim());
  if (!braces) return false;
  const names = (braces[1] ?? '')
    .split(',')
    .map((n) => n.trim())
    .filter((n) => n !== '');
  return names.length > 0 && names.every((n) => n.startsWith('type '));
}

export function importsOf(text: string): Import[] {
  const found: Import[] = [];
  for (const m of text.matchAll(STATIC_IMPORT)) {
    found.push({ specifier: m[3] as string, typeOnly: m[1] !== undefined || onlyTypes(m[2] ?? '') });
  }
  for (const m of text.matchAll(SIDE_EFFECT_IMPORT)) found.push({ specifier: m[1] as string, typeOnly: false });
  for (const m of text.matchAll(DYNAMIC_IMPORT)) found.push({ specifier: m[1] as string, typeOnly: false });
  return found;
}

function layerOf(path: string): string {
  const slash = path.indexOf('/');
  return slash < 0 ? path.replace(/\.(tsx?|js)$/, '') : path.slice(0, slash);
}

/** The src/-relative path of a relative import (`.js` as written), or undefined for a package. */
function target(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const abs = resolve(SRC, dirname(from), specifier);
  return relative(SRC, abs).split(sep).join('/');
}

const files: SourceFile[] = sourceFiles(SRC).map((abs) => {
  const path = relative(SRC, abs).split(sep).join('/');
  const text = readFileSync(abs, 'utf8');
  return { path, layer: layerOf(path), imports: importsOf(text), text };
});

function packageImports(test: (specifier: string) => boolean, allowedIn: (file: SourceFile) => boolean): string[] {
  return files.filter((f) => !allowedIn(f)).flatMap((f) => f.imports.filter((i) => test(i.specifier)).map((i) => `${f.path} imports ${i.specifier}`));
}

/**
 * The rooms of src/engine and src/git, bottom to top: a file imports files of its own room and of
 * the rooms below, never above (docs/design/architecture.md says what each holds). `.` is the
 * folder itself (words.ts, exit-codes.ts), below every room. A room's sub-folders are the room's
 * (the run's stages are the run's).
 */
const ROOMS: Readonly<Record<'engine' | 'git', readonly string[]>> = {
  engine: ['.', 'record', 'workspace', 'sandbox', 'plan', 'scoring', 'select', 'loop', 'vote', 'distinguish', 'merge', 'cleanup', 'run'],
  git: ['running', 'guards', 'worktrees', 'history'],
};

/** `engine/loop/iteration.ts` -> { layer: 'engine', room: 'loop' }; `engine/words.ts` -> room '.'. */
function roomOf(path: string): { layer: 'engine' | 'git'; room: string } | undefined {
  const [layer, room, ...rest] = path.split('/');
  if (layer !== 'engine' && layer !== 'git') return undefined;
  return { layer, room: rest.length === 0 ? '.' : (room as string) };
}

describe('architecture', () => {
  it('finds the source files, each in a layer of the table', () => {
    expect(files.length).toBeGreaterThan(20);
    expect(files.filter((f) => !(f.layer in ALLOWED)).map((f) => f.path)).toEqual([]);
  });

  it('reads type-only, multi-line, side-effect and dynamic imports', () => {
    const text = [
      "import type { A } from '../engine/events.js';",
      "import { type B, type C } from '../checks/frozen.js';",
      "import { d, type E } from '../git/repo.js';",
      'import {\n  f,\n  g,\n} from "./x.js";',
      "export { h } from '../spec/schema.js';",
      "import 'side-effect';",
      "const ui = await import('../ui/app.js');",
      " * import { not } from 'a-comment';",
    ].join('\n');
    expect(importsOf(text)).toEqual([
      { specifier: '../engine/events.js', typeOnly: true },
      { specifier: '../checks/frozen.js', typeOnly: true },
      { specifier: '../git/repo.js', typeOnly: false },
      { specifier: './x.js', typeOnly: false },
      { specifier: '../spec/schema.js', typeOnly: false },
      { specifier: 'side-effect', typeOnly: false },
      { specifier: '../ui/app.js', typeOnly: false },
    ]);
  });

  it('every relative import follows the layer order of docs/design/architecture.md', () => {
    const violations: string[] = [];
    for (const f of files) {
      const allowed = ALLOWED[f.layer as Layer] ?? [];
      const typesFrom = TYPES_FROM[f.layer as Layer] ?? [];
      for (const i of f.imports) {
        const to = target(f.path, i.specifier);
        if (to === undefined) continue;
        const toLayer = layerOf(to);
        if (toLayer === f.layer || LEAVES.includes(toLayer as Layer)) continue;
        if (allowed.includes(toLayer as Layer)) continue;
        if (i.typeOnly && typesFrom.includes(toLayer as Layer)) continue;
        violations.push(`${f.path} -> ${to}`);
      }
    }
    expect(violations.filter((v) => !KNOWN_EXCEPTIONS.includes(v))).toEqual([]);
    // A fixed exception must leave the list, so that it cannot come back unnoticed.
    expect(KNOWN_EXCEPTIONS.filter((e) => !violations.includes(e))).toEqual([]);
  });

  it('the leaves (src/result.ts, src/package-root.ts, src/owned-tree.ts) import nothing of ours', () => {
    for (const path of LEAVES.map((leaf) => `${leaf}.ts`)) {
      const file = files.find((f) => f.path === path);
      expect(file, path).toBeDefined();
      expect(
        file?.imports.filter((i) => i.specifier.startsWith('.')),
        path,
      ).toEqual([]);
    }
  });

  it('no files import each other in a circle, type imports included: a reader can start at the bottom of each folder', () => {
    expect(importCycles(importGraph(SRC))).toEqual([]);
  });

  it('every file of src/engine and src/git is in a room of the table', () => {
    const stray = files.flatMap((f) => {
      const at = roomOf(f.path);
      return at && !ROOMS[at.layer].includes(at.room) ? [f.path] : [];
    });
    expect(stray).toEqual([]);
    // And every room of the table holds files: a room that went away leaves the table.
    for (const layer of ['engine', 'git'] as const) {
      const rooms = new Set(files.flatMap((f) => (roomOf(f.path)?.layer === layer ? [roomOf(f.path)?.room] : [])));
      expect(
        ROOMS[layer].filter((room) => !rooms.has(room)),
        layer,
      ).toEqual([]);
    }
  });

  it('each room of src/engine and src/git imports only its own and the rooms below it, type imports included', () => {
    const upward = files.flatMap((f) => {
      const from = roomOf(f.path);
      if (!from) return [];
      const order = ROOMS[from.layer];
      return f.imports.flatMap((i) => {
        const to = roomOf(target(f.path, i.specifier) ?? '');
        if (!to || to.layer !== from.layer) return [];
        return order.indexOf(to.room) > order.indexOf(from.room) ? [`${f.path} (${from.room}) -> ${i.specifier} (${to.room})`] : [];
      });
    });
    expect(upward).toEqual([]);
  });

  it('the stages of the run are its own: only src/engine/run/run.ts lists them', () => {
    const importers = files.flatMap((f) =>
      f.imports.some((i) => (target(f.path, i.specifier) ?? '').startsWith('engine/run/stages/')) && !f.path.startsWith('engine/run/stages/') ? [f.path] : [],
    );
    expect(importers).toEqual(['engine/run/run.ts']);
  });

  it('nothing imports the CLI', () => {
    const offenders = files
      .filter((f) => f.layer !== 'cli')
      .flatMap((f) => f.imports.filter((i) => layerOf(target(f.path, i.specifier) ?? '') === 'cli').map((i) => `${f.path} imports ${i.specifier}`));
    expect(offenders).toEqual([]);
  });

  it('only the UI imports Ink or React: the engine and everything below it never do', () => {
    expect(
      packageImports(
        (s) => /^(ink|react)($|\/|-)/.test(s),
        (f) => f.layer === 'ui',
      ),
    ).toEqual([]);
  });

  it("only src/process spawns processes, and git's runner (src/git/running/spawn-git.ts) git", () => {
    expect(
      packageImports(
        (s) => /^(node:)?child_process$/.test(s),
        (f) => f.layer === 'process' || f.path === 'git/running/spawn-git.ts',
      ),
    ).toEqual([]);
  });

  it('git runs only in src/git: only it imports its runners, and nobody spawns git', () => {
    const runner = files
      .filter((f) => f.layer !== 'git')
      .flatMap((f) =>
        f.imports
          .filter((i) => ['git/running/exec.js', 'git/running/spawn-git.js'].includes(target(f.path, i.specifier) ?? ''))
          .map((i) => `${f.path} imports ${i.specifier}`),
      );
    expect(runner).toEqual([]);
    const spawnsGit = files
      .filter((f) => f.path !== 'git/running/spawn-git.ts')
      .filter((f) => /\b(runProcess|runShell|execa|spawn|execFile)\(\s*['"`]git['"`\s]/.test(f.text))
      .map((f) => f.path);
    expect(spawnsGit).toEqual([]);
  });
});
