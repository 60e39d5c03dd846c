/**
 * The layering of DESIGN.md, checked on the source: the engine never imports the UI (nor
 * Ink or React), nothing imports the CLI, and only src/process spawns processes.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from './helpers/cli.js';

const SRC = join(PROJECT_ROOT, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) ? [path] : [];
  });
}

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => (m[1] ?? m[2]) as string);
}

const files = sourceFiles(SRC).map((path) => ({ path: relative(SRC, path), imports: importsOf(path) }));

describe('architecture', () => {
  it('finds the source files', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('the engine and everything below it never import the UI, Ink or React', () => {
    const offenders = files
      .filter((f) => !f.path.startsWith('ui/') && !f.path.startsWith('cli/'))
      .flatMap((f) => f.imports.filter((i) => /(^|\/)ui\/|^ink|^react/.test(i)).map((i) => `${f.path} imports ${i}`));
    expect(offenders).toEqual([]);
  });

  it('nothing imports the CLI', () => {
    const offenders = files.filter((f) => !f.path.startsWith('cli/')).flatMap((f) => f.imports.filter((i) => /(^|\/)cli\//.test(i)).map((i) => `${f.path} imports ${i}`));
    expect(offenders).toEqual([]);
  });

  it('only src/process spawns processes (git goes through simple-git in src/git)', () => {
    const offenders = files
      .filter((f) => !f.path.startsWith('process/'))
      .flatMap((f) => f.imports.filter((i) => i === 'execa' || i === 'node:child_process' || i === 'child_process').map((i) => `${f.path} imports ${i}`));
    expect(offenders).toEqual([]);
  });
});
