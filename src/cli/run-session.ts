/**
 * Running a planned run with the plain reporter and clean cancellation on SIGINT / SIGTERM
 * (a second signal quits at once). Used by `bestof resume`.
 */
import { EXIT_CODES, executeRun } from '../engine/run.js';
import type { RunPlan } from '../engine/plan.js';
import type { RunState } from '../engine/run-state.js';
import { buildJsonReport } from '../report/report.js';
import { createPlainReporter } from '../ui/plain-reporter.js';

export async function runPlanned(plan: RunPlan, options: { json: boolean; resume?: RunState }): Promise<number> {
  const controller = new AbortController();
  let signals = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    signals += 1;
    if (signals > 1) {
      process.stderr.write('bestof: quitting now; work not yet committed may be left in the worktrees (`bestof clean` commits and keeps it)\n');
      process.exit(EXIT_CODES.cancelled);
    }
    process.stderr.write(`\nbestof: ${name}: cancelling; stopping every agent and keeping what each wrote (press Ctrl-C again to quit at once)\n`);
    controller.abort(new Error(`cancelled by ${name}`));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const out = options.json ? process.stderr : process.stdout;
  try {
    const state = await executeRun(plan, {
      signal: controller.signal,
      listeners: [createPlainReporter((line) => out.write(line))],
      ...(options.resume ? { resume: options.resume } : {}),
    });
    if (options.json) process.stdout.write(`${JSON.stringify(buildJsonReport(state), null, 2)}\n`);
    return state.exitCode ?? 70;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
