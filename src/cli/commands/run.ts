import { parseCommandArgs } from '../args.js';
import { loadSpecOrExplain } from '../load-spec-or-explain.js';
import { planRun } from '../../engine/plan.js';
import { EXIT_CODES, executeRun } from '../../engine/run.js';
import { buildJsonReport } from '../../report/report.js';
import { createPlainReporter } from '../../ui/plain-reporter.js';

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
  let signals = 0;
  const onSignal = (name: NodeJS.Signals): void => {
    signals += 1;
    if (signals === 1) {
      process.stderr.write(`\nbestof: ${name}: cancelling; stopping every agent and keeping what each wrote (press Ctrl-C again to quit at once)\n`);
      controller.abort(new Error(`cancelled by ${name}`));
    } else {
      process.stderr.write('bestof: quitting now; work not yet committed may be left in the worktrees (`bestof clean` commits and keeps it)\n');
      process.exit(EXIT_CODES.cancelled);
    }
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  // The Ink dashboard is not part of this version; every front end is the plain reporter for now.
  const out = values.json ? process.stderr : process.stdout;
  const reporter = createPlainReporter((line) => out.write(line));
  try {
    const state = await executeRun(planned.plan, { signal: controller.signal, listeners: [reporter] });
    if (values.json) process.stdout.write(`${JSON.stringify(buildJsonReport(state), null, 2)}\n`);
    return state.exitCode ?? 70;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
