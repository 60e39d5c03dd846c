/**
 * Runs the spec author's checks in a candidate's worktree and turns them into points.
 * Checks run one after another: they often share ports, build folders or a database, and
 * a check's points must not depend on what another check did at the same moment.
 */
import type { Env } from '../env.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkLogName } from './check-log-name.js';
import type { LogRedactor } from '../process/types.js';
import { isDiskFull } from '../process/disk-full.js';
import { runShellIn, type SandboxLayout } from '../process/sandbox.js';
import type { CheckSpec } from '../spec/schema.js';
import type { CheckReport, ParsedReport, TestCaseResult } from './test-report/types.js';
import { judgeReport, partialPoints, type Judgement } from './test-report/judge.js';
import { parseTestReport } from './test-report/parse.js';
import { makeReportDir, readReportDir, stdoutCollector } from './test-report/read-report.js';
import { layHiddenFiles } from './hidden-files.js';
import { failureExcerpt } from './failure-excerpt.js';

const OUTPUT_TAIL_LINES = 40;
const OUTPUT_TAIL_CHARS = 4000;

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]|\u001b\][^\u0007]*\u0007/g;

/**
 * What programs print when the network they want is not there: a refused connection (no server
 * on that loopback), no route out, no name resolution.
 */
const NO_NETWORK =
  /ECONNREFUSED|ENETUNREACH|EAI_AGAIN|ENOTFOUND|Network is unreachable|Connection refused|Could not resolve host|Temporary failure in name resolution|Name or service not known/i;

/** Added to a failed check's output that reads like NO_NETWORK when the check had a network of its own: the author sees why. */
const OWN_NETWORK_HINT =
  '(bestof: this check ran with a network of its own, `[sandbox] check_network = "own"`: its own loopback only, no Internet, no TCP to servers of this machine; `check_network = "shared"` gives it the machine\'s network)';

/** What bash says when it cannot find a program (exit 127). */
const NOT_FOUND = /command not found|No such file or directory/;

/**
 * Added to such a check's output: a check's HOME is a fresh folder of its own (src/engine/scoring/score.ts),
 * so `~/bin/tool` is not the user's, and in the sandbox the rest of the user's HOME is hidden too.
 */
const HIDDEN_PROGRAM_HINT =
  "(bestof: the shell did not find a program this check runs (exit 127); in the sandbox a check sees your PATH folders and toolchain homes, and nothing else of your HOME, and `~` is a fresh HOME of the check's own: put the program's folder on PATH, or name it by its full path with `[sandbox] checks = false`)";
const FRESH_HOME_HINT =
  "(bestof: the shell did not find a program this check runs (exit 127); a check's HOME is a fresh folder of its own, so `~` is not your HOME: name the program by its full path, or put its folder on PATH)";

/** The line bestof adds to a failed check's output to say why it may have failed where bestof runs it, if any. */
function checkHint(exitCode: number | undefined, output: string, sandbox: SandboxLayout | undefined): string {
  if (sandbox?.ownNetwork && NO_NETWORK.test(output)) return OWN_NETWORK_HINT;
  if (exitCode === 127 && NOT_FOUND.test(output)) return sandbox ? HIDDEN_PROGRAM_HINT : FRESH_HOME_HINT;
  return '';
}

/**
 * Control characters other than tab and newline (NUL, backspace, bell, a lone ESC): what a check
 * that prints binary output leaves. The tail goes into the next prompt (a NUL byte cannot be part of
 * a program's argument, so a `command` agent given `{prompt}` could not be started), the terminal UI
 * and the reports; each becomes U+FFFD, which says that something was there.
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f]/g;

/** Output as the record keeps it: no ANSI escapes, no carriage returns, control characters marked. */
function cleanOutput(text: string): string {
  return text.replace(ANSI, '').replace(/\r/g, '').replace(CONTROL, '\uFFFD');
}

export function outputTail(text: string): string {
  const lines = cleanOutput(text).trimEnd().split('\n');
  const tail = lines.slice(-OUTPUT_TAIL_LINES).join('\n');
  return tail.length > OUTPUT_TAIL_CHARS ? tail.slice(-OUTPUT_TAIL_CHARS) : tail;
}

/** One check's result in one iteration (carried by `check.finished` events). */
export interface CheckOutcome {
  readonly name: string;
  readonly passed: boolean;
  /** Points earned: the check's score when it passed, else 0. */
  readonly points: number;
  readonly maxPoints: number;
  readonly exitCode: number | undefined;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** The last lines of the check's output, ANSI-free, bounded. */
  readonly outputTail: string;
  /**
   * A failed check's failing part (./failure-excerpt.ts), cut from its whole output around the
   * first line a test runner marks as a failure: what the dashboard, `bestof show`, the reports and
   * the retry prompt show. None when it passed, and in records older than it (read outputTail's end).
   */
  readonly excerpt?: string;
  /** With the check's `report`: its tests judged against base's (./test-report/judge.ts). */
  readonly report?: CheckReport;
  /**
   * A hidden check (`hidden`) without `show_output`: its output and test names are never an agent's
   * to read; the retry prompt says only how many of its tests failed (../engine/loop/prompts.ts).
   */
  readonly hidden?: boolean;
  /** Why it failed, where neither its exit code nor its report says (a hidden check's files could not be laid, or were changed). */
  readonly why?: string;
}

export interface RunChecksOptions {
  readonly cwd: string;
  readonly env: Env;
  readonly signal: AbortSignal;
  /** Folder for one log file per check. */
  readonly logDir: string;
  /** Secret redaction for the checks' logs: a new redactor per check. @default none */
  readonly logRedactor?: (() => LogRedactor) | undefined;
  readonly onCheck?: (outcome: CheckOutcome) => void;
  /** The checks' sandbox (src/engine/sandbox/agent-sandbox.ts checkSandbox), or none: they run as the user. */
  readonly sandbox?: SandboxLayout | undefined;
  /** Runs before each check; what it throws ends the checks (../engine/scoring/score.ts: the worktree folder looked at, its own git files put back). */
  readonly beforeEach?: (() => Promise<void>) | undefined;
  /**
   * Where each check with a `report` gets a fresh folder of its own (`$BESTOF_REPORT_DIR`): outside
   * the worktree, writable by the check, read when it ends (the scoring's HOME, removed after).
   * @default a folder under the OS's temp folder
   */
  readonly reportRoot?: string | undefined;
  /**
   * Base's tests by check name (../engine/run/reference.ts): a report check is held to them
   * (./test-report/judge.ts). A report check without an entry is judged by its report alone.
   */
  readonly reference?: ReadonlyMap<string, readonly TestCaseResult[]> | undefined;
}

export async function runChecks(checks: readonly CheckSpec[], options: RunChecksOptions): Promise<CheckOutcome[]> {
  const outcomes: CheckOutcome[] = [];
  const reports = options.reportRoot === undefined && checks.some((check) => check.report) ? await mkdtemp(join(tmpdir(), 'bestof-reports-')) : undefined;
  try {
    for (const [index, check] of checks.entries()) {
      if (options.signal.aborted) break;
      await options.beforeEach?.();
      const reportDir = check.report ? await makeReportDir(options.reportRoot ?? reports!, index) : undefined;
      const outcome = check.hidden !== undefined ? await runHiddenCheck(check, options, reportDir) : await runOneCheck(check, options, reportDir);
      if (outcome === 'canceled') break;
      outcomes.push(outcome);
      options.onCheck?.(outcome);
    }
  } finally {
    if (reports) await rm(reports, { recursive: true, force: true });
  }
  return outcomes;
}

/** One check run and scored: by its exit code, or by its report held to base's. */
async function runOneCheck(check: CheckSpec, options: RunChecksOptions, reportDir: string | undefined): Promise<CheckOutcome | 'canceled'> {
  const stdoutReport = check.report === 'tap' || check.report === 'go-json' ? stdoutCollector() : undefined;
  // A shell on purpose: check commands are the spec author's own, written as shell lines.
  const result = await runShellIn(
    check.command,
    {
      cwd: options.cwd,
      env: reportDir ? { ...options.env, BESTOF_REPORT_DIR: reportDir } : options.env,
      timeoutMs: check.timeout,
      signal: options.signal,
      logFile: join(options.logDir, checkLogName(check.name)),
      ...(options.logRedactor ? { logRedactor: options.logRedactor() } : {}),
      ...(stdoutReport ? { onStdoutLine: stdoutReport.onLine } : {}),
    },
    options.sandbox,
  );
  if (result.canceled) return 'canceled';
  // A check that could not start because the disk is full (its log file) says nothing of the
  // candidate's work: scoring it 0 would be unfair. Thrown, so that the run stops and can be resumed.
  if (result.spawnError !== undefined && isDiskFull({ message: result.spawnError }))
    throw new Error(`check ${check.name} could not start: ${result.spawnError}`);
  const output = [result.stdout, result.stderr, result.spawnError ?? '', result.timedOut ? `(timed out after ${check.timeout} ms)` : '']
    .filter(Boolean)
    .join('\n');
  const hint = result.ok ? '' : checkHint(result.exitCode, output, options.sandbox);
  const judged = check.report
    ? await judgeCheckReport(check, { cwd: options.cwd, reportDir: reportDir!, stdout: stdoutReport?.text() ?? '' }, options.reference?.get(check.name))
    : undefined;
  // With a report, both: the exit code (the spec author's command may do more than run the tests)
  // and the report (every test of base there and passing: an early exit 0 is not a pass).
  const passed = result.ok && (judged?.passed ?? true);
  const report = judged && result.ok === false && judged.passed ? { ...judged.report, failure: exitWords(result) } : judged?.report;
  return {
    name: check.name,
    passed,
    points: pointsOf(check, passed, report),
    maxPoints: check.score,
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: Math.round(result.durationMs),
    outputTail: hint ? `${outputTail(output).slice(-(OUTPUT_TAIL_CHARS - hint.length - 1))}\n${hint}` : outputTail(output),
    ...(passed ? {} : { excerpt: [failureExcerpt(cleanOutput(output)), hint].filter(Boolean).join('\n') }),
    ...(report ? { report } : {}),
  };
}

/**
 * A hidden check: its files laid into the tree (./hidden-files.ts) for it alone, taken away after
 * whatever happened; read-only to it in the sandbox, compared after it without one.
 */
async function runHiddenCheck(check: CheckSpec, options: RunChecksOptions, reportDir: string | undefined): Promise<CheckOutcome | 'canceled'> {
  const laid = await layHiddenFiles(options.cwd, { name: check.name, hidden: check.hidden!, into: check.into ?? '' });
  if (!laid.ok) {
    if (reportDir) await rm(reportDir, { recursive: true, force: true });
    // Nothing hidden ran: the reason (bestof's own words) may be read.
    const why = 'its hidden files could not be laid';
    return {
      name: check.name,
      passed: false,
      points: 0,
      maxPoints: check.score,
      exitCode: undefined,
      timedOut: false,
      durationMs: 0,
      outputTail: laid.reason,
      excerpt: laid.reason,
      why,
    };
  }
  try {
    const sandbox = options.sandbox && { ...options.sandbox, readOnly: [...options.sandbox.readOnly, laid.path] };
    const outcome = await runOneCheck(check, { ...options, sandbox }, reportDir);
    if (outcome === 'canceled') return outcome;
    const withheld = check.show_output ? outcome : { ...outcome, hidden: true };
    const changed = options.sandbox ? [] : await laid.changed();
    if (changed.length === 0) return withheld;
    // Withheld with the output: the names of the hidden files.
    const why = 'its hidden files were changed while it ran';
    const note = `(bestof: ${why}, ${changed.join(', ')}: the code the check ran rewrote the tests it was judged by)`;
    return {
      ...withheld,
      passed: false,
      points: 0,
      why,
      outputTail: `${outcome.outputTail}\n${note}`,
      excerpt: outcome.excerpt ? `${outcome.excerpt}\n${note}` : note,
    };
  } finally {
    await laid.remove();
  }
}

/** Why a check whose report passed did not: how its command ended. */
function exitWords(result: { readonly exitCode: number | undefined; readonly timedOut: boolean; readonly signal: string | undefined }): string {
  if (result.timedOut) return 'timed out (every test of its report passed)';
  if (result.exitCode !== undefined) return `exit code ${result.exitCode} (every test of its report passed)`;
  return `ended by ${result.signal ?? 'an error'} (every test of its report passed)`;
}

/** The report the check left, read at once (before anything of the candidate's runs again) and its folder removed. */
async function judgeCheckReport(
  check: CheckSpec,
  at: { readonly cwd: string; readonly reportDir: string; readonly stdout: string },
  reference: readonly TestCaseResult[] | undefined,
): Promise<Judgement> {
  const { cwd, reportDir, stdout } = at;
  try {
    const input = await readReportDir(reportDir, stdout);
    return judgeReport(check.report!, withoutFolder(parseTestReport(check.report!, input), cwd), reference);
  } finally {
    await rm(reportDir, { recursive: true, force: true });
  }
}

/**
 * Test names without the worktree's path: a runner that names a test by its file's absolute path
 * (node --test names a file that ran no test so) would name it differently in base's worktree and in
 * each candidate's.
 */
function withoutFolder(report: ParsedReport, cwd: string): ParsedReport {
  if (!report.ok) return report;
  const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return { ok: true, tests: report.tests.map((test) => (test.name.includes(prefix) ? { ...test, name: test.name.replaceAll(prefix, '') } : test)) };
}

/** A check's points: its score when it passed; with `partial`, the share of base's tests that pass. */
function pointsOf(check: CheckSpec, passed: boolean, report: CheckReport | undefined): number {
  if (passed) return check.score;
  return check.partial && report ? partialPoints(check.score, report) : 0;
}
