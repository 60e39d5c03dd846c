/**
 * Problems found in a spec, and how they are printed. A problem says where (file, line,
 * column, dotted key) and what; only the CLI prints them, through `formatSpecProblems`.
 */

export interface SpecProblem {
  /** The spec's path as the user gave it (relative stays relative). */
  readonly file: string;
  /** 1-based line in the TOML source, when known. */
  readonly line?: number;
  /** 1-based column in the TOML source, when known. */
  readonly column?: number;
  /** The dotted key, e.g. `checks.items[1].timeout`. */
  readonly key?: string;
  readonly message: string;
  /** The TOML source line the problem is on, printed with a caret under `column`. */
  readonly excerpt?: string;
}

export interface FormatSpecProblemsOptions {
  /**
   * The most problems printed; the rest are counted in a last "... and N more" line.
   * @default 10
   */
  readonly max?: number;
}

/**
 * One block per problem:
 *
 * ```
 * spec.toml:12:5: checks.items[1].timeout: expected a duration like "90s", "15m" or "2h", or a number of seconds, got -1
 *    12 |     timeout = -1
 *       |               ^
 * ```
 */
export function formatSpecProblems(problems: readonly SpecProblem[], opts: FormatSpecProblemsOptions = {}): string {
  const max = Math.max(1, opts.max ?? 10);
  const blocks = problems.slice(0, max).map(formatSpecProblem);
  if (problems.length > max) blocks.push(`... and ${problems.length - max} more`);
  return blocks.join('\n');
}

function formatSpecProblem(problem: SpecProblem): string {
  let where = problem.file;
  if (problem.line !== undefined) {
    where += `:${problem.line}`;
    if (problem.column !== undefined) where += `:${problem.column}`;
  }
  const head = [where, problem.key, problem.message].filter((part) => part !== undefined && part !== '').join(': ');
  if (problem.excerpt === undefined || problem.line === undefined) return head;
  return [head, ...formatExcerpt(problem.excerpt, problem.line, problem.column)].join('\n');
}

function formatExcerpt(excerpt: string, line: number, column: number | undefined): string[] {
  const gutter = String(line).padStart(4, ' ');
  const blank = ' '.repeat(gutter.length);
  const text = excerpt.replace(/\r$/, '');
  const lines = [`${gutter} | ${text}`];
  if (column !== undefined && column >= 1) {
    // Keep tabs as tabs so the caret lines up with the text above it in any terminal.
    const indent = Array.from(text.slice(0, column - 1), (char) => (char === '\t' ? '\t' : ' ')).join('');
    lines.push(`${blank} | ${indent}^`);
  }
  return lines;
}

/** Thrown where a caller needs an exception; `loadSpec` itself returns problems as a value. */
export class SpecError extends Error {
  readonly code = 'SPEC_INVALID' as const;

  constructor(readonly problems: SpecProblem[]) {
    super(formatSpecProblems(problems));
    this.name = 'SpecError';
  }
}
