/**
 * `go test -json` from a check's stdout: one test2json event a line (`{"Action":"fail","Package":
 * "example.com/m/pkg","Test":"TestX/sub"}`), Action run, output, pass, fail, skip (and pause, cont,
 * start, bench, which say nothing of an outcome). Lines that are not JSON are ignored, but for the
 * two that go prints as text about a package that could not build (below).
 *
 * A test is named `package/Test`, a subtest `package/Test/sub` as go names it (spaces made `_`, a
 * repeated name given `#01` by go itself). A test with subtests is a test of its own too: go
 * reports its outcome, and it may fail by itself (a `t.Error` in its body); a failing subtest thus
 * fails its parent as well, as go says. A test run again (`go test -count=2`) is a test per run,
 * the second named `... #2`. The order is that of each run's first event. A test that
 * started and never ended (the binary panicked or timed out) is errored. A failure's message is the
 * test's own output, go's `=== RUN` and `--- FAIL` lines left out.
 *
 * A package that failed to build is one test named by its import path, errored, its build output
 * as the message. Go 1.19 to 1.23 print `FAIL <package> [build failed]` as text on stdout and the
 * compiler's output on stderr, as `# <package>` and its lines (read when the check merges stderr
 * into stdout); go 1.24 and later send `build-output` and `build-fail` events and a package `fail`
 * with `FailedBuild`. A package that failed with none of its tests failing (a TestMain that exits
 * 1, a panic outside a test, a timeout between tests) is such a test too, its output as the message,
 * so that the failure is not lost. A package with no test files reports nothing.
 *
 * No event at all (neither a JSON event nor a `[build failed]` line) is no report.
 */
import { boundedMessage } from './bounded-message.js';
import type { ParsedReport, TestCaseResult } from './types.js';

/** Lines of output kept per test or package: the message is bounded to fewer. */
const MAX_OUTPUT_LINES = 40;
/** go's own framing of a test's output, which says nothing the outcome does not. */
const FRAMING = /^\s*(=== (RUN|PAUSE|CONT|NAME)|--- (PASS|FAIL|SKIP):)/;

interface Entry {
  readonly name: string;
  readonly packageName: string;
  readonly at: number;
  outcome?: 'passed' | 'failed' | 'skipped';
  readonly output: string[];
}

interface PackageState {
  readonly output: string[];
  readonly buildOutput: string[];
  buildFailed: boolean;
  failed: boolean;
  /** Where its errored entry goes in the report: where its failure was first seen. */
  failureAt?: number;
}

interface GoReading {
  /** Every run of every test, in the order of its first event. */
  readonly runs: Entry[];
  /** The latest run of each test, by package and test name. */
  readonly latest: Map<string, Entry>;
  readonly packages: Map<string, PackageState>;
  /** The package whose `# <package>` build output the text lines now belong to. */
  buildOutputOf?: string;
  events: number;
  sequence: number;
}

interface GoEvent {
  readonly Action: string;
  readonly Package?: string;
  readonly Test?: string;
  readonly Output?: string;
  readonly ImportPath?: string;
  readonly FailedBuild?: string;
}

/** The tests of a `go test -json` stream; `missing` when it holds no event. */
export function readGoTestJson(stdout: string): ParsedReport {
  const reading: GoReading = { runs: [], latest: new Map(), packages: new Map(), events: 0, sequence: 0 };
  for (const line of stdout.split(/\r?\n/)) {
    const event = jsonEvent(line);
    if (event === undefined) readTextLine(reading, line);
    else {
      reading.buildOutputOf = undefined;
      reading.events += 1;
      readEvent(reading, event);
    }
  }
  if (reading.events === 0) return { ok: false, reason: 'missing', detail: 'the output has no `go test -json` event' };
  return { ok: true, tests: resultsOf(reading) };
}

function jsonEvent(line: string): GoEvent | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== 'object' || value === null || typeof (value as { Action?: unknown }).Action !== 'string') return undefined;
    return value as GoEvent;
  } catch {
    return undefined;
  }
}

/** The text go prints about a package that could not build; every other text line is ignored. */
function readTextLine(reading: GoReading, line: string): void {
  const failed = /^FAIL\s+(\S+)\s+\[(build|setup) failed\]\s*$/.exec(line);
  if (failed !== null) {
    reading.buildOutputOf = undefined;
    reading.events += 1;
    markFailed(reading, failed[1]!, true);
    return;
  }
  const header = /^# (\S+)/.exec(line);
  if (header !== null) {
    reading.buildOutputOf = header[1]!;
    return;
  }
  if (reading.buildOutputOf !== undefined && line.trim() !== '') keepLine(packageOf(reading, reading.buildOutputOf).buildOutput, line);
}

function readEvent(reading: GoReading, event: GoEvent): void {
  if (event.Action === 'build-output' || event.Action === 'build-fail') {
    const name = (event.ImportPath ?? '').split(' ')[0]!;
    if (name === '') return;
    if (event.Action === 'build-fail') markFailed(reading, name, true);
    else if (event.Output !== undefined) keepLine(packageOf(reading, name).buildOutput, event.Output);
    return;
  }
  const packageName = event.Package ?? '';
  if (event.Test === undefined) {
    if (event.Action === 'output' && event.Output !== undefined) keepLine(packageOf(reading, packageName).output, event.Output);
    if (event.Action === 'fail') markFailed(reading, packageName, event.FailedBuild !== undefined);
    return;
  }
  const test = testOf(reading, packageName, event.Test, event.Action === 'run');
  if (event.Action === 'output' && event.Output !== undefined && !FRAMING.test(event.Output)) keepLine(test.output, event.Output);
  else if (event.Action === 'pass') test.outcome = 'passed';
  else if (event.Action === 'fail') test.outcome = 'failed';
  else if (event.Action === 'skip') test.outcome = 'skipped';
}

/**
 * The entry of a test's events. A `run` of a test that has ended already (`-count=2`) is a run of
 * its own, numbered by ./duplicate-names.ts like any name met twice: the last run's outcome must not
 * stand for the first's (a test that failed once and then passed is not a pass).
 */
function testOf(reading: GoReading, packageName: string, test: string, starts: boolean): Entry {
  const key = `${packageName}\u0000${test}`;
  let entry = reading.latest.get(key);
  if (entry === undefined || (starts && entry.outcome !== undefined)) {
    entry = { name: `${packageName}/${test}`, packageName, output: [], at: reading.sequence++ };
    reading.latest.set(key, entry);
    reading.runs.push(entry);
  }
  return entry;
}

function packageOf(reading: GoReading, name: string): PackageState {
  let state = reading.packages.get(name);
  if (state === undefined) {
    state = { output: [], buildOutput: [], buildFailed: false, failed: false };
    reading.packages.set(name, state);
  }
  return state;
}

function markFailed(reading: GoReading, name: string, build: boolean): void {
  const state = packageOf(reading, name);
  state.failed = true;
  state.buildFailed ||= build;
  state.failureAt ??= reading.sequence++;
}

function keepLine(lines: string[], text: string): void {
  if (lines.length < MAX_OUTPUT_LINES) lines.push(text.replace(/\r?\n$/, ''));
}

/** Every test in the order of its first event, with the packages that failed by themselves where their failure was seen. */
function resultsOf(reading: GoReading): TestCaseResult[] {
  const placed: Array<{ readonly at: number; readonly result: TestCaseResult }> = [];
  const failingPackages = new Set<string>();
  for (const test of reading.runs) {
    const result = testResult(test);
    if (result.outcome === 'failed' || result.outcome === 'errored') failingPackages.add(test.packageName);
    placed.push({ at: test.at, result });
  }
  for (const [name, state] of reading.packages) {
    if (!state.failed || state.failureAt === undefined) continue;
    if (!state.buildFailed && failingPackages.has(name)) continue;
    placed.push({ at: state.failureAt, result: packageResult(name, state) });
  }
  return placed.sort((a, b) => a.at - b.at).map((entry) => entry.result);
}

function testResult(test: Entry): TestCaseResult {
  if (test.outcome === 'passed' || test.outcome === 'skipped') return { name: test.name, outcome: test.outcome };
  const output = test.output.join('\n');
  if (test.outcome === 'failed') return withMessage(test.name, 'failed', boundedMessage(output));
  return withMessage(test.name, 'errored', boundedMessage(`the test started and never ended (its binary panicked, timed out or was killed)\n${output}`));
}

function packageResult(name: string, state: PackageState): TestCaseResult {
  const output = [...state.buildOutput, ...state.output.filter((line) => !/^(FAIL|ok)\s/.test(line) && line !== 'FAIL')];
  const why = state.buildFailed ? 'the package failed to build' : 'the package failed with no test failing';
  return withMessage(name, 'errored', boundedMessage(output.length === 0 ? why : `${why}\n${output.join('\n')}`));
}

function withMessage(name: string, outcome: 'failed' | 'errored', message: string | undefined): TestCaseResult {
  return message === undefined ? { name, outcome } : { name, outcome, message };
}
