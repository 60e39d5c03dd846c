/**
 * TAP (13 and 14) from a check's stdout, as `node --test --test-reporter=tap` prints it and as the
 * TAP 14 specification describes it: test points `ok` / `not ok` with a number, a description and
 * a `# SKIP` or `# TODO` directive, subtests indented under their parent, a YAML diagnostic block
 * under a test point, `Bail out!`. Lines that are not TAP (a test's own output) are ignored.
 *
 * Only leaf tests count. A test with subtests is named in its subtests' names (`parent > child`,
 * node's `describe` blocks alike, as ./junit.ts names node's suites), not counted on its own: its
 * `ok` says no more than its subtests do, and node writes a `describe` block as such a test. One
 * exception, so that no failure is lost: a parent that failed while none of its subtests failed (a
 * throw in its body after them, a failing hook) is counted as a failed test of its own.
 *
 * Outcomes: `ok` passed; `not ok` failed, or errored for node's failures that say the test did not
 * run (./not-run-failures.ts); `# SKIP` skipped; `# TODO` skipped too, passing or failing (a todo
 * is not yet expected to pass, so its failure is not one). A failure's message is its YAML block's
 * `error` (node), else `message`. A test with no description is named by its number.
 *
 * `Bail out!` ends the reading: the tests read so far are the report, and the rest of the plan is
 * not invented (their names are unknown), so the judge finds them missing. Tests whose parent never
 * ended (a bail out inside subtests) are named by the `# Subtest:` headers that opened them. A plan
 * `1..0` with no test is an empty report; a stream with no test point, plan or bail out at all
 * (a `TAP version` line alone included) is no report.
 */
import type { ParsedReport, TestCaseResult, TestOutcome } from './types.js';
import { boundedMessage } from './bounded-message.js';
import { isNotRunFailure } from './not-run-failures.js';
import { yamlValue } from './tap-diagnostics.js';

const SUITE_SEPARATOR = ' > ';
/** A YAML block's lines kept past this are never looked at: the message is bounded anyway. */
const MAX_YAML_LINES = 400;

/** A test point read, with what came under it. */
interface TestPoint {
  readonly indent: number;
  readonly description: string;
  readonly ok: boolean;
  readonly directive?: { readonly kind: 'skip' | 'todo'; readonly reason: string };
  readonly yaml: string[];
  children: TestPoint[];
}

/** The state of a reading, line after line. */
interface TapReading {
  /** Test points read whose parent has not ended yet, in order (the top level's stay here). */
  readonly pending: TestPoint[];
  /** `# Subtest:` headers of tests not ended yet, outermost first. */
  readonly openHeaders: Array<{ readonly indent: number; readonly name: string }>;
  /** The test point whose YAML block is being read, if one is. */
  yamlOf?: TestPoint;
  yamlIndent: number;
  /** The last line read was this test point (its YAML block may start). */
  justRead?: TestPoint;
  sawTap: boolean;
}

/** The tests of a TAP stream, leaves only, in the order they ended; `missing` when it holds no TAP. */
export function readTap(stdout: string): ParsedReport {
  const reading: TapReading = { pending: [], openHeaders: [], yamlIndent: 0, sawTap: false };
  for (const line of stdout.split(/\r?\n/)) {
    if (readLine(reading, line) === 'bail-out') break;
  }
  if (!reading.sawTap) return { ok: false, reason: 'missing', detail: 'the output has no TAP test line, plan or bail out' };
  return { ok: true, tests: leavesOf(reading) };
}

function readLine(reading: TapReading, line: string): 'bail-out' | undefined {
  const content = line.trimStart();
  const indent = line.length - content.length;
  if (reading.yamlOf !== undefined) {
    if (content.trimEnd() === '...' && indent === reading.yamlIndent) reading.yamlOf = undefined;
    else if (reading.yamlOf.yaml.length < MAX_YAML_LINES) reading.yamlOf.yaml.push(line);
    return undefined;
  }
  const justRead = reading.justRead;
  reading.justRead = undefined;
  if (content.trimEnd() === '---' && justRead !== undefined && indent > justRead.indent) {
    reading.yamlOf = justRead;
    reading.yamlIndent = indent;
    return undefined;
  }
  if (content.startsWith('Bail out!')) {
    reading.sawTap = true;
    return 'bail-out';
  }
  const header = /^# Subtest:\s?(.*)$/.exec(content);
  if (header !== null) {
    closeHeaders(reading, indent);
    reading.openHeaders.push({ indent, name: unescapeTap(header[1]!.trimEnd()) });
    return undefined;
  }
  if (/^\d+\.\.\d+(\s|$)/.test(content)) {
    reading.sawTap = true;
    return undefined;
  }
  const point = testPoint(content, indent);
  if (point === undefined) return undefined;
  reading.sawTap = true;
  closeHeaders(reading, indent);
  // The points read deeper than this one since the last at its depth are its subtests.
  const firstChild = reading.pending.findIndex((pending) => pending.indent > indent);
  if (firstChild !== -1) point.children = reading.pending.splice(firstChild);
  reading.pending.push(point);
  reading.justRead = point;
  return undefined;
}

function closeHeaders(reading: TapReading, indent: number): void {
  while (reading.openHeaders.length > 0 && reading.openHeaders[reading.openHeaders.length - 1]!.indent >= indent) reading.openHeaders.pop();
}

/** `ok 3 - name # SKIP reason` read, or undefined for a line that is not a test point. */
function testPoint(content: string, indent: number): TestPoint | undefined {
  const match = /^(not )?ok(?:\s+(\d+))?(?:\s+(.*))?$/.exec(content.trimEnd());
  if (match === null) return undefined;
  let text = match[3] ?? '';
  if (text === '-' || text.startsWith('- ')) text = text.slice(2);
  const hash = unescapedHash(text);
  const directiveText = hash === -1 ? '' : text.slice(hash + 1).trim();
  const directive = /^(skip|todo)\S*\s*(.*)$/i.exec(directiveText);
  const described = directive === null ? text : text.slice(0, hash);
  const description = unescapeTap(described.trim()) || (match[2] ?? '');
  const base = { indent, description, ok: match[1] === undefined, yaml: [], children: [] };
  if (directive === null) return base;
  return { ...base, directive: { kind: directive[1]!.toLowerCase() === 'skip' ? 'skip' : 'todo', reason: directive[2]!.trim() } };
}

/** Where the description's first `#` not escaped by a backslash is, or -1. */
function unescapedHash(text: string): number {
  for (let at = 0; at < text.length; at += 1) {
    if (text[at] === '\\') at += 1;
    else if (text[at] === '#') return at;
  }
  return -1;
}

/** TAP 14's two escapes, `\#` and `\\`, read back. */
function unescapeTap(text: string): string {
  return text.replace(/\\([\\#])/g, '$1');
}

/** The leaves of every test point read, named by their parents; those whose parent never ended by the open headers. */
function leavesOf(reading: TapReading): TestCaseResult[] {
  const tests: TestCaseResult[] = [];
  for (const point of reading.pending) {
    const parents = reading.openHeaders.filter((header) => header.indent < point.indent).map((header) => header.name);
    collectLeaves(point, parents.length === 0 ? '' : `${parents.join(SUITE_SEPARATOR)}${SUITE_SEPARATOR}`, tests);
  }
  return tests;
}

function collectLeaves(point: TestPoint, prefix: string, into: TestCaseResult[]): void {
  const name = `${prefix}${point.description}`;
  if (point.children.length === 0) {
    into.push(result(name, point));
    return;
  }
  const before = into.length;
  for (const child of point.children) collectLeaves(child, `${name}${SUITE_SEPARATOR}`, into);
  const childFailed = into.slice(before).some((test) => test.outcome === 'failed' || test.outcome === 'errored');
  if (!point.ok && point.directive === undefined && !childFailed) into.push(result(name, point));
}

function result(name: string, point: TestPoint): TestCaseResult {
  if (point.directive !== undefined) {
    return point.directive.reason === '' ? { name, outcome: 'skipped' } : { name, outcome: 'skipped', message: boundedMessage(point.directive.reason)! };
  }
  if (point.ok) return { name, outcome: 'passed' };
  const outcome: TestOutcome = isNotRunFailure(yamlValue(point.yaml, 'failureType')) ? 'errored' : 'failed';
  const message = boundedMessage(yamlValue(point.yaml, 'error') ?? yamlValue(point.yaml, 'message'));
  return message === undefined ? { name, outcome } : { name, outcome, message };
}
