import { parseCommandArgs } from '../args.js';
import { loadSpecOrExplain } from '../load-spec-or-explain.js';
import { planRun } from '../../engine/plan.js';
import { EXIT_CODES, executeRun } from '../../engine/run.js';
import { buildJsonReport } from '../../report/report.js';
import { createPlainReporter } from '../../ui/plain-reporter.js';
import { startLiveFrontEnd, wantsInteractiveUi, type LiveFrontEnd } from '../interactive-ui.js';

/**
 * `bestof run [spec]`. Ctrl-C (SIGINT) and SIGTERM cancel the run cleanly: every agent's
 * process tree is stopped, what each candidate wrote is committed and kept, and the exit
 * code is 130. A second Ctrl-C quits at once.
 */
export async function runCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', args, {
    json: { type: 'boolean' },
    'no-tui': { type: 'boolean' },
  });
  const loaded = await loadSpecOrExplain(positionals[0]);
  if (!loaded) return EXIT_CODES.badInput;
  const planned = await planRun(loaded);
  if (!planned.ok) {
    for (const problem of planned.problems) process.stderr.write(`${loaded.specPath}: ${problem}\n`);
    process.stderr.write('bestof: nothing was run or created.\n');
    return EXIT_CODES.badInput;
  }

  const controller = new AbortController();
  let ui: LiveFrontEnd | undefined;
  let signals = 0;
  const quitNow = (): never => {
    process.stderr.write('bestof: quitting now; work not yet committed may be left in the worktrees (`bestof clean` commits and keeps it)\n');
    process.exit(EXIT_CODES.cancelled);
  };
  const onSignal = (name: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) {
      // The dashboard says it itself (a line on stderr would land in the middle of its frame).
      if (ui) ui.cancelling();
      else process.stderr.write(`\nbestof: ${name}: cancelling; stopping every agent and keeping what each wrote (press Ctrl-C again to quit at once)\n`);
      controller.abort(new Error(`cancelled by ${name}`));
    } else {
      quitNow();
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // Front end: the Ink dashboard on an interactive terminal, else one plain line per event
  // (on stderr with --json, whose report owns stdout).
  const out = values.json ? process.stderr : process.stdout;
  const reporter = createPlainReporter((line) => out.write(line));
  ui = wantsInteractiveUi({ json: values.json, noTui: values['no-tui'] })
    ? await startLiveFrontEnd({
        runDir: planned.plan.runDir,
        budgetUsd: planned.plan.spec.budget.max_total_cost_usd,
        into: planned.plan.into,
        // The dashboard asks before it cancels; then it is the same cancel as Ctrl-C on the plain path.
        cancel: () => {
          signals = Math.max(signals, 1);
          controller.abort(new Error('cancelled from the dashboard'));
        },
        quitNow,
        fallback: reporter,
      })
    : undefined;
  try {
    const state = await executeRun(planned.plan, { signal: controller.signal, listeners: [ui ? ui.listener : reporter] });
    const choice = await ui?.finish();
    if (values.json) process.stdout.write(`${JSON.stringify(buildJsonReport(state), null, 2)}\n`);
    // A winner the user chose in the compare view decides the exit code, as a policy winner would.
    if (choice) return choice.ok ? EXIT_CODES.winner : EXIT_CODES.mergeFailed;
    return state.exitCode ?? 70;
  } finally {
    ui?.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
