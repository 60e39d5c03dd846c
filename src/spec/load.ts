/**
 * Loading a spec: read -> TOML parse -> zod schema -> rules that need the file system.
 * This file is the pipeline only; the wording is in messages.ts, key positions in
 * toml-positions.ts, the file rules in file-rules.ts. Every step turns what went wrong into
 * `SpecProblem`s that name the file, the line and the dotted key; nothing here prints, throws
 * on bad input, or writes anything to disk.
 */
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { err, ok, type Result } from '../result.js';
import type { SpecProblem } from './errors.js';
import { fileSystemProblems } from './file-rules.js';
import { humanIssueMessage, schemaProblems, tomlSyntaxProblem } from './messages.js';
import { specSchema, type Spec } from './schema.js';
import { SourceLocator } from './toml-positions.js';

export { resolveSpecPath } from './file-rules.js';

/** A spec that loaded: what the engine plans a run from. */
export interface LoadedSpec {
  /** Parsed, with every default filled in; paths stay as written (see `resolveSpecPath`). */
  readonly spec: Spec;
  /** Absolute path of the spec file. */
  readonly specPath: string;
  /** Absolute path of the folder that holds the spec; relative paths in the spec start here. */
  readonly specDir: string;
  /** The TOML text as read. */
  readonly source: string;
}

export type LoadSpecResult = Result<LoadedSpec, SpecProblem[]>;

export interface LoadSpecOptions {
  /**
   * The folder that relative paths in the spec start from; default: the spec file's folder.
   * `bestof resume` loads a run's frozen copy of the spec against the original folder.
   */
  readonly baseDir?: string;
}

export async function loadSpec(specPath: string, options: LoadSpecOptions = {}): Promise<LoadSpecResult> {
  const absolutePath = resolve(specPath);
  const specDir = options.baseDir ?? dirname(absolutePath);
  const read = await readSource(specPath, absolutePath);
  if (!read.ok) return err([read.error]);
  const source = read.value;

  let data: unknown;
  try {
    data = parse(source);
  } catch (error) {
    return err([tomlSyntaxProblem(specPath, source, error)]);
  }

  const locator = new SourceLocator(specPath, source);
  // jitless: zod's default compiles a parser per table on the first parse (`new Function`), which
  // costs more than the one or two parses of a spec per process ever win back (scripts/bench-startup.mjs).
  const parsed = specSchema.safeParse(data, { error: humanIssueMessage, jitless: true });
  const problems = [
    ...(parsed.success ? [] : parsed.error.issues.flatMap((issue) => schemaProblems(issue, data, locator))),
    ...(await fileSystemProblems(data, specDir, locator)),
  ];
  if (!parsed.success || problems.length > 0) return err(sortByPosition(problems));
  return ok({ spec: parsed.data, specPath: absolutePath, specDir, source });
}

async function readSource(file: string, absolutePath: string): Promise<Result<string, SpecProblem>> {
  try {
    const info = await stat(absolutePath);
    if (info.isDirectory()) return err({ file, message: `${absolutePath} is a folder, expected a TOML spec file` });
    const text = await readFile(absolutePath, 'utf8');
    return ok(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? `file not found: ${absolutePath} (create one with \`bestof init\`)`
        : `cannot read ${absolutePath}: ${(error as Error).message}`;
    return err({ file, message });
  }
}

function sortByPosition(problems: SpecProblem[]): SpecProblem[] {
  const rank = (problem: SpecProblem): number => (problem.line ?? Infinity) * 100_000 + (problem.column ?? 0);
  return problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => rank(a.problem) - rank(b.problem) || a.index - b.index)
    .map(({ problem }) => problem);
}
