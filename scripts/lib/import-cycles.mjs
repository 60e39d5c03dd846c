/**
 * Circles in an import graph, type imports included (a type cycle ties files together for a reader
 * as much as a value cycle does): the strongly connected components of more than one file, or of
 * one file importing itself. Pure over a graph, so that the architecture test can check a folder's
 * files with it; run as a script, it prints the cycles of src/:
 *
 *   node scripts/lib/import-cycles.mjs [src-folder]
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The components of `graph` (file -> files it imports) that hold a circle, each sorted, largest
 * first (Tarjan's algorithm, iterative so that a long chain cannot overflow the stack).
 */
export function importCycles(graph) {
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const cycles = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work = [{ node: root, edges: [...(graph.get(root) ?? [])], at: 0 }];
    index.set(root, next);
    low.set(root, next);
    next += 1;
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      if (frame.at < frame.edges.length) {
        const to = frame.edges[frame.at];
        frame.at += 1;
        if (!graph.has(to)) continue;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next);
          next += 1;
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edges: [...(graph.get(to) ?? [])], at: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(to)));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node), low.get(frame.node)));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component = [];
      for (;;) {
        const member = stack.pop();
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      const selfLoop = component.length === 1 && (graph.get(frame.node) ?? []).includes(frame.node);
      if (component.length > 1 || selfLoop) cycles.push(component.sort());
    }
  }
  return cycles.sort((a, b) => b.length - a.length || a[0].localeCompare(b[0]));
}

const IMPORT =
  /^[ \t]*(?:import|export)\s+(?:type\s+)?[^;'"]*?\s*from\s*['"]([^'"]+)['"]|^[ \t]*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/gm;

/** The relative imports of every .ts/.tsx file under `srcDir`, as paths relative to it with `.ts`/`.tsx`. */
export function importGraph(srcDir) {
  const files = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) files.push(relative(srcDir, path).split(sep).join('/'));
    }
  };
  walk(srcDir);
  const known = new Set(files);
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(join(srcDir, file), 'utf8');
    const edges = new Set();
    for (const m of text.matchAll(IMPORT)) {
      const specifier = m[1] ?? m[2] ?? m[3];
      if (!specifier.startsWith('.')) continue;
      const base = relative(srcDir, resolve(srcDir, dirname(file), specifier))
        .split(sep)
        .join('/')
        .replace(/\.js$/, '');
      const to = [`${base}.ts`, `${base}.tsx`].find((candidate) => known.has(candidate));
      if (to) edges.add(to);
    }
    graph.set(file, [...edges]);
  }
  return graph;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const srcDir = resolve(process.argv[2] ?? 'src');
  const cycles = importCycles(importGraph(srcDir));
  for (const cycle of cycles) process.stdout.write(`${cycle.length} files: ${cycle.join(' ')}\n`);
  if (cycles.length === 0) process.stdout.write('no import cycles\n');
}
