/**
 * The failing part of a failed check's output: what a user (and the next prompt) should read
 * first. The end of the output is often not it: node's test runner ends with its TAP summary
 * (`# fail 1`, `# duration_ms`), nyc with its coverage table, and a runner that logs a lot buries
 * its `not ok` lines thousands of lines up. So the excerpt is cut from the whole output, around
 * the first line that a test runner uses to mark a failure; only an output with no such line
 * falls back to its end.
 *
 * Markers come in three strengths, and a stronger one anywhere wins over a weaker one earlier:
 * where a runner tells a failure in detail (`not ok` and its YAML block, an AssertionError, jest's
 * `●`, a traceback), then where it only marks one (`FAIL file`, `✖ name`), then words that may
 * be noise (a bare `Error:` is often a cache that could not be written, or a deprecation).
 */

/** Lines an excerpt holds at most: the marker, a few lines before it, and what follows it (the assertion, the diff; node 22 and later write ten lines of YAML before `actual:`). */
export const EXCERPT_LINES = 24;
/** Characters an excerpt holds at most (a minified line can be very long). */
const EXCERPT_CHARS = 2000;
/** Lines kept above the marker: a test's name is often printed just before its failure (go test -v, vitest's `FAIL file > test`, pytest's `>` line). */
const LINES_BEFORE = 2;
/** Non-blank lines of the end when no marker is found. */
const TAIL_LINES = 8;

/**
 * Lines where a test runner starts telling one failure in detail: the assertion, the diff, the
 * traceback follow them.
 */
const DETAIL: readonly RegExp[] = [
  /^\s*not ok\b(?!.*#\s*(TODO|SKIP))/i, // TAP (tape, node --test's tap reporter, prove), its YAML block after
  /^\s*(AssertionError|AssertError)\b/, // node's assert (node --test's spec reporter, mocha, vitest, tape's stack)
  /^\s*● /, // jest's failure detail `● suite › test`
  /^\s*--- FAIL:/, // go test
  /^Traceback \(most recent call last\):/, // Python
  /^E\s{2,}\S/, // pytest's assertion lines
  /panicked at/, // Rust
];

/** Lines that mark a test as failed without the detail (a list of results, a headline). */
const MARKS: readonly RegExp[] = [
  /^\s*(FAIL|FAILED|ERROR)\b/, // jest/vitest `FAIL file`, pytest's short summary `FAILED t.py::x`, unittest's `FAIL: test_x`
  /^\s*[✖×✗]/, // node --test's spec reporter, vitest's and others' failed marks
  /^_{3,} .+ _{3,}$/, // pytest's failure section header `____ test_x ____`
  /^test .+ \.\.\. FAILED$/, // cargo test
];

/** Words that often, but not always, mean the failure (a bare `Error:` may be a cache that could not be written). */
const WEAK: readonly RegExp[] = [/\b\w*Error\b:?/, /\berror\b:/i, /\bfail(ed|ure)?\b/i, /\bexpected\b/i];

/** A passing test's line (TAP's `ok`, a runner's tick): never context for another test's failure. */
const PASSED = /^\s*(ok\b|[✓✔√])/;

/** A TAP or runner summary line, which says that something failed but not what: never an excerpt's start. */
const SUMMARY = /^\s*(#\s*(fail|tests|pass|skip|todo|duration|cancelled|suites)\b|Tests?:|Test Files\b|\d+ (passed|failed)\b)/i;

/**
 * The failing part of `output` (ANSI-free, as outputTail cleans it): from a little before the
 * first failure marker of the strongest kind found over at most EXCERPT_LINES lines, with a
 * "…" line where lines were left out above; the last non-blank lines when there is no marker.
 */
export function failureExcerpt(output: string): string {
  const lines = output.replace(/\r/g, '').trimEnd().split('\n');
  const at = firstMatch(lines, DETAIL) ?? firstMatch(lines, MARKS) ?? firstMatch(lines, WEAK);
  if (at === undefined) return bounded(lastNonBlank(lines, TAIL_LINES));
  // The lines above, unless they are other tests' passes (tape prints hundreds of `ok` lines).
  let start = at;
  while (start > 0 && start > at - LINES_BEFORE && !PASSED.test(lines[start - 1]!)) start--;
  // Up to the next test's pass: what follows a failure is its story (the YAML block, the diff, the
  // stack) until another test is reported.
  const next = lines.findIndex((line, index) => index > at && PASSED.test(line));
  const picked = lines.slice(start, Math.min(start + EXCERPT_LINES, next < 0 ? lines.length : next));
  // Blank lines at its ends say nothing; inside they keep a diff's shape.
  while (picked.length > 0 && picked[0]!.trim() === '') picked.shift();
  while (picked.length > 0 && picked.at(-1)!.trim() === '') picked.pop();
  const above = start > 0 ? [`… (${start} ${start === 1 ? 'line' : 'lines'} above)`] : [];
  return bounded([...above, ...picked]);
}

function firstMatch(lines: readonly string[], patterns: readonly RegExp[]): number | undefined {
  const index = lines.findIndex((line) => !SUMMARY.test(line) && patterns.some((pattern) => pattern.test(line)));
  return index < 0 ? undefined : index;
}

function lastNonBlank(lines: readonly string[], count: number): string[] {
  return lines.filter((line) => line.trim() !== '').slice(-count);
}

/** At most EXCERPT_CHARS, cut at a line's end where one is near, and said to be cut. */
function bounded(lines: readonly string[]): string {
  const text = lines.join('\n');
  if (text.length <= EXCERPT_CHARS) return text;
  const cut = text.slice(0, EXCERPT_CHARS);
  const lineEnd = cut.lastIndexOf('\n');
  return `${lineEnd > EXCERPT_CHARS / 2 ? cut.slice(0, lineEnd) : cut}\n… (cut)`;
}
