/**
 * Running a planned run (`bestof run`, `bestof resume`) with its front end: the Ink dashboard
 * on an interactive terminal, else one plain line per event (on stderr with --json, whose
 * report owns stdout). Ctrl-C (SIGINT) and SIGTERM cancel the run cleanly: every agent's
 * process tree is stopped, what each candidate wrote is committed and kept, and the exit
 * code is 130. A second Ctrl-C quits at once, and takes every process of the run with it:
 * agents, checks and setup commands, their process groups and anything carrying the run's
 * key (a daemon one of them started), all SIGKILLed before bestof exits.
 */
import { EXIT_CODES } from '../engine/exit-codes.js';
import { killRunProcessesNow } from '../engine/sandbox/leftovers.js';
import { executeRun } from '../engine/run/run.js';
import { readRunSecrets } from '../engine/run/run-context.js';
import type { RunEventListener } from '../engine/record/events.js';
import type { RunPlan } from '../engine/plan/plan.js';
import type { RunState } from '../engine/record/run-state.js';
import type { SecretSet } from '../engine/sandbox/secrets.js';
import { FORWARDED_CANCEL } from '../process/namespace.js';
import { killAllChildrenNow } from '../process/run-process.js';
import { renderJsonReport } from '../report/report.js';
import { writeRunHtml } from '../report/html/write-run-html.js';
import { createRunRecord, type RunRecord } from '../report/run-record.js';
import { createPlainReporter } from '../ui/plain-reporter.js';
import { startLiveFrontEnd, wantsInteractiveUi, writeClosingLines, type LiveFrontEnd, type LiveFrontEndOptions } from './interactive-ui.js';
import { runEnd } from './run-exit-code.js';
import { INITIAL_SIGNAL_STATE, nextSignalStep, type SignalInput } from './signal-machine.js';

export interface SessionOptions {
  readonly json: boolean;
  readonly noTui: boolean;
  /** Continue this interrupted run (`bestof resume`). */
  readonly resume?: RunState;
}

export async function runPlanned(plan: RunPlan, options: SessionOptions): Promise<number> {
  const controller = new AbortController();
  let ui: LiveFrontEnd | undefined;
  const quitNow = (): never => {
    killAllChildrenNow();
    killRunProcessesNow(plan.runKey);
    process.stderr.write(
      `bestof: quit at once: every process of run ${plan.runId} was killed; work not yet committed stays in the worktrees (\`bestof resume ${plan.runId}\` goes on with it, \`bestof clean\` commits and keeps it)\n`,
    );
    process.exit(EXIT_CODES.cancelled);
  };
  // Set once the run has ended and its result is known (its record, reports and output written).
  let ended: number | undefined;
  // What each signal does is decided in ./signal-machine.ts; here it is carried out.
  let signalState = INITIAL_SIGNAL_STATE;
  const onSignalInput = (input: SignalInput): void => {
    const step = nextSignalStep(signalState, input, ended);
    signalState = step.state;
    const action = step.action;
    switch (action.kind) {
      case 'cancel':
        // The dashboard says it itself (a line on stderr would land in the middle of its frame).
        if (ui) ui.cancelling();
        else
          process.stderr.write(`\nbestof: ${action.name}: cancelling; stopping every agent and keeping what each wrote (press Ctrl-C again to quit at once)\n`);
        controller.abort(new Error(`cancelled by ${action.name}`));
        return;
      case 'cancelFromDashboard':
        controller.abort(new Error('cancelled from the dashboard'));
        return;
      case 'quitNow':
        return quitNow();
      case 'exit':
        return process.exit(action.code);
      case 'closeUi':
        return ui?.close();
      case 'none':
        return;
    }
  };
  const onDirect = (name: NodeJS.Signals): void => onSignalInput({ kind: 'direct', name });
  const onForwarded = (): void => onSignalInput({ kind: 'forwarded' });
  process.on('SIGINT', onDirect);
  process.on('SIGTERM', onDirect);
  process.on(FORWARDED_CANCEL, onForwarded);
  // bestof's own git children carry the run's key too, so that a resume or clean after a kill -9
  // finds a git command of the dead run still writing in a worktree (one run per bestof process).
  process.env.BESTOF_RUN_KEY = plan.runKey;
  // A closed terminal (SIGHUP) is no reason to stop a run: it goes on to its end without a screen.
  const onHangup = (): void => onSignalInput({ kind: 'hangup' });
  process.on('SIGHUP', onHangup);

  const reporter = plainReporter(options);
  ui = await startFrontEnd(plan, options, {
    fallback: reporter,
    quitNow,
    // The dashboard asks before it cancels; then it is the same cancel as Ctrl-C on the plain path.
    cancel: () => onSignalInput({ kind: 'dashboardCancel' }),
  });
  const { record, health } = openRunRecord(plan, options, { ui, controller });
  try {
    // Read once: the run redacts with them, and so does report.html after it.
    const secrets = await readRunSecrets(plan, { signal: controller.signal });
    const state = await executeRun(plan, {
      signal: controller.signal,
      secrets,
      listeners: [...record.listeners, ui ? ui.listener : reporter],
      ...(options.resume ? { resume: options.resume } : {}),
    });
    ended = await finishRun(plan, options, state, { secrets, ui, health });
    return ended;
  } finally {
    record.close();
    ui?.close();
    // SIGINT and SIGTERM stay handled (onDirect) when the run has ended: removed, a signal in the
    // instants before Node exits would take the default action, 130 or 143 for a finished run.
    // So does the outer bestof's forwarded cancel (its default action would end this one by SIGUSR2).
    if (ended === undefined) {
      process.off('SIGINT', onDirect);
      process.off('SIGTERM', onDirect);
      process.off(FORWARDED_CANCEL, onForwarded);
    }
    process.off('SIGHUP', onHangup);
  }
}

/** One plain line per event: on stdout, or on stderr with --json, whose report owns stdout. */
function plainReporter(options: SessionOptions): RunEventListener {
  const out = options.json ? process.stderr : process.stdout;
  return createPlainReporter((line) => out.write(line));
}

/**
 * The Ink dashboard, on an interactive terminal without --json or --no-tui; undefined where the
 * plain reporter is the front end. A resumed run keeps the plain reporter: the dashboard folds a
 * run from its run.started event.
 */
async function startFrontEnd(
  plan: RunPlan,
  options: SessionOptions,
  controls: Pick<LiveFrontEndOptions, 'cancel' | 'quitNow' | 'fallback'>,
): Promise<LiveFrontEnd | undefined> {
  if (options.resume || !wantsInteractiveUi({ json: options.json, noTui: options.noTui })) return undefined;
  return startLiveFrontEnd({ runDir: plan.runDir, budgetUsd: plan.spec.budget.max_total_cost_usd, into: plan.into, ...controls });
}

/** What went wrong with the run's record while the run went on: read when it ends. */
interface RecordHealth {
  /** The event log could not be written (the run was stopped for it): its record has a hole from there. */
  logFailure: Error | undefined;
  /** report.json or report.md could not be written (a warning said so). */
  reportFailed: boolean;
}

/**
 * The run's record (event log, state.json, reports), whose listeners go first, so that it holds an
 * event before any front end reacts to it. A log that cannot be written (a full disk) stops the run
 * as a Ctrl-C would, while git may still commit each candidate's work: a run whose record has a
 * hole could be neither resumed nor judged.
 */
function openRunRecord(
  plan: RunPlan,
  options: SessionOptions,
  run: { readonly ui: LiveFrontEnd | undefined; readonly controller: AbortController },
): { readonly record: RunRecord; readonly health: Readonly<RecordHealth> } {
  const health: RecordHealth = { logFailure: undefined, reportFailed: false };
  const record = createRunRecord(plan.runDir, {
    ...(options.resume ? { resume: options.resume } : {}),
    onLogFailure: (error) => {
      health.logFailure = error;
      const why = `bestof: cannot write the run's record (${plan.runDir}/events.jsonl: ${error.message}): stopping the run; what each candidate did is committed and kept where git can still write`;
      if (run.ui) run.ui.cancelling();
      process.stderr.write(`\n${why}\n`);
      run.controller.abort(new Error(why));
    },
    onReportFailure: (error) => {
      health.reportFailed = true;
      process.stderr.write(
        `bestof: warning: cannot write report.json or report.md in ${plan.runDir} (${error.message}); \`bestof show ${plan.runId}\` rebuilds the report from the event log\n`,
      );
    },
  });
  return { record, health };
}

/**
 * After the run: report.html, the compare view, the JSON report, and the exit code (./run-exit-code.ts),
 * with a last word when the record could not be written.
 */
async function finishRun(
  plan: RunPlan,
  options: SessionOptions,
  state: RunState,
  run: { readonly secrets: SecretSet; readonly ui: LiveFrontEnd | undefined; readonly health: Readonly<RecordHealth> },
): Promise<number> {
  const { health } = run;
  // report.html beside report.json, before the compare view opens (a winner chosen there rewrites
  // it, src/report/after-run.ts). A report that cannot be written never fails the run.
  const html = await writeRunHtml(plan.runDir, state, { secrets: run.secrets, tieBreak: plan.spec.select.tie_break });
  const choice = await run.ui?.finish();
  if (!html.ok) {
    const others = health.reportFailed || health.logFailure !== undefined ? '' : '; report.json and report.md are complete';
    process.stderr.write(`bestof: warning: ${html.error}${others} (\`bestof show ${plan.runId} --html\` tries again)\n`);
  }
  if (options.json) process.stdout.write(renderJsonReport(state));
  // The way on, last: where the report is and the command that shows it again (on stderr with
  // --json, whose report owns stdout). A run that could not write it says so above.
  if (html.ok) writeClosingLines(whereTheReportIs(plan.runId, html.value), options.json ? process.stderr : process.stdout);
  const end = runEnd({ choice, logFailed: health.logFailure !== undefined, runExitCode: state.exitCode });
  if (end.sayIncomplete) {
    // The log ends where the write failed: what happened after it (the cancel, the commits it
    // made) is in git, not in the log. A resume folds the log, finds the refs ahead of it and keeps them.
    process.stderr.write(
      `bestof: run ${plan.runId} is incomplete: its record could not be written (${health.logFailure?.message}); the candidates' commits are under refs/bestof/${plan.runId}/ and any work git could not commit is in the worktrees; make room on that disk, then \`bestof resume ${plan.runId}\` goes on (or \`bestof clean\` commits and keeps what is left)\n`,
    );
  }
  return end.exitCode;
}

/** The run's last line: report.html's path, and `bestof show` for the report again (the compare view on a terminal); printable and wrapped by writeClosingLines. */
export function whereTheReportIs(runId: string, htmlFile: string): string {
  return `report: ${htmlFile} (\`bestof show ${runId}\` shows it again, \`bestof show ${runId} --html\` writes it again)`;
}
