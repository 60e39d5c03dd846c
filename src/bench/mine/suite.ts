/**
 * One run of the repo's report check over a tree of files (a validation way of ./validate.ts): the
 * spec author's command, with bash, in the tree, in the checks' sandbox when bubblewrap works here
 * (a fresh HOME, a private /tmp, nothing of the user's HOME, the mining folder or the repo but the
 * tree itself), its report read test by test with the parsers the run's scoring uses
 * (src/checks/test-report/), so that the names mining records are the names the bench's oracle reads.
 */
import { mkdir, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseTestReport } from '../../checks/test-report/parse.js';
import { readReportDir, stdoutCollector } from '../../checks/test-report/read-report.js';
import type { TestOutcome } from '../../checks/test-report/types.js';
import { probeSandbox, runShellIn, type SandboxLayout } from '../../process/sandbox.js';
import type { TestReportKind } from '../../spec/schema-parts.js';

export interface SuiteCheck {
  readonly command: string;
  readonly report: TestReportKind;
  readonly timeoutMs: number;
  /** `[setup] commands` of the repo's spec, run in the tree before the check (an install). */
  readonly setup: readonly string[];
}

export type SuiteRun =
  | { readonly ok: true; readonly outcomes: ReadonlyMap<string, TestOutcome>; readonly exitCode: number | undefined }
  | { readonly ok: false; readonly why: 'timeout' | 'setup-failed'; readonly detail: string };

/** The sandbox every validation run gets (undefined: bubblewrap does not work here, runs go as the user). */
export interface SuiteSandbox {
  readonly base: Omit<SandboxLayout, 'workdir' | 'home'> | undefined;
}

export async function suiteSandbox(hidden: readonly string[], env: NodeJS.ProcessEnv): Promise<SuiteSandbox> {
  const probe = await probeSandbox();
  if (!probe.ok) return { base: undefined };
  const home = env.HOME || homedir();
  return {
    base: {
      bwrap: probe.bwrap,
      hidden: [...hidden, ...(home !== '/' ? [home] : [])],
      writable: [],
      readOnly: [],
      pathVariable: env.PATH,
      ownNetwork: true,
    },
  };
}

/** Runs the setup then the check in `tree`; `scratch` is a folder of this run's own (HOME, report folder), removed after. */
export async function runSuite(
  check: SuiteCheck,
  tree: string,
  scratch: string,
  sandbox: SuiteSandbox,
  env: NodeJS.ProcessEnv,
  signal: AbortSignal,
): Promise<SuiteRun> {
  const home = join(scratch, 'home');
  const reportDir = join(scratch, 'report');
  await mkdir(home, { recursive: true });
  await mkdir(reportDir, { recursive: true });
  const layout: SandboxLayout | undefined = sandbox.base && { ...sandbox.base, workdir: tree, home, writable: [reportDir] };
  const runEnv = { ...env, HOME: home, BESTOF_REPORT_DIR: reportDir };
  try {
    for (const command of check.setup) {
      // An install downloads: the setup gets the machine's network, as the run's setup does.
      const set = await runShellIn(command, { cwd: tree, env: runEnv, timeoutMs: check.timeoutMs, signal }, layout && { ...layout, ownNetwork: false });
      if (set.timedOut) return { ok: false, why: 'timeout', detail: `setup \`${command}\` timed out` };
      if (!set.ok) return { ok: false, why: 'setup-failed', detail: `setup \`${command}\` failed: ${tail(set.stderr || set.stdout)}` };
    }
    const stdout = stdoutCollector();
    const result = await runShellIn(check.command, { cwd: tree, env: runEnv, timeoutMs: check.timeoutMs, signal, onStdoutLine: stdout.onLine }, layout);
    if (result.timedOut) return { ok: false, why: 'timeout', detail: `\`${check.command}\` timed out` };
    const parsed = parseTestReport(check.report, await readReportDir(reportDir, stdout.text()));
    if (!parsed.ok || !parsed.tests.some((t) => t.outcome !== 'skipped')) {
      const said = tail(`${result.stderr}\n${result.stdout}`);
      return { ok: false, why: 'setup-failed', detail: `no test report (${parsed.ok ? 'no test ran' : parsed.detail})${said ? `: ${said}` : ''}` };
    }
    return { ok: true, outcomes: new Map(parsed.tests.map((t) => [t.name, t.outcome])), exitCode: result.exitCode };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

function tail(text: string): string {
  return text.trim().split('\n').slice(-3).join(' / ').slice(0, 400);
}
