import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunSummary } from '../run-lookup.js';
import { buildJsonReport, renderMarkdownReport } from '../../report/report.js';
import { wantsInteractiveUi } from '../wants-interactive-ui.js';

/** `bestof show [run] [--json] [--no-tui]`: the report of a run, from its snapshot or else its event log (the compare view on a terminal). */
export async function showCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('show', args, { json: { type: 'boolean' }, 'no-tui': { type: 'boolean' } });
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  const state = await loadRunSummary(run.runDir);
  if (wantsInteractiveUi({ json: values.json, noTui: values['no-tui'] })) {
    // The compare view; choosing and merging another winner there sets the exit code like `bestof run`.
    // Loaded only here: the Markdown and JSON reports need neither the UI nor the merge code.
    const { reviewRunInTerminal } = await import('../interactive-ui.js');
    const choice = await reviewRunInTerminal(state);
    return choice === undefined || choice.ok ? EXIT_CODES.ok : EXIT_CODES.mergeFailed;
  }
  process.stdout.write(values.json ? `${JSON.stringify(buildJsonReport(state), null, 2)}\n` : renderMarkdownReport(state));
  return EXIT_CODES.ok;
}
