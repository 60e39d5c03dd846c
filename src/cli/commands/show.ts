import { resolve } from 'node:path';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { takeHtmlOption } from '../html-option.js';
import { currentRepoRoot, findRun, loadRunSummary } from '../run-lookup.js';
import { renderJsonReport, renderMarkdownReport } from '../../report/report.js';
import { wantsInteractiveUi } from '../wants-interactive-ui.js';

/**
 * `bestof show [run] [--json] [--no-tui] [--html [file]]`: the report of a run, from its snapshot
 * or else its event log (the compare view on a terminal); with --html, its HTML report written
 * to a file (default: report.html in the run folder) and the file's path printed.
 */
export async function showCommand(args: readonly string[]): Promise<number> {
  const taken = takeHtmlOption('show', args, { valued: true });
  const { values, positionals } = parseCommandArgs('show', taken.args);
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  const state = await loadRunSummary(run.runDir);
  if (taken.html !== false) {
    // Loaded only here: the diff viewer's bundle is read from disk when the page is written.
    const { writeRunHtml } = await import('../../report/html/write-run-html.js');
    const written = await writeRunHtml(run.runDir, state, typeof taken.html === 'string' ? { file: resolve(taken.html) } : {});
    if (!written.ok) {
      process.stderr.write(`bestof show: ${written.error} (write it elsewhere with --html=<file>)\n`);
      return EXIT_CODES.badInput;
    }
    process.stdout.write(`${written.value}\n`);
    return EXIT_CODES.ok;
  }
  if (wantsInteractiveUi({ json: values.json, noTui: values['no-tui'] })) {
    // The compare view; choosing and merging another winner there sets the exit code like `bestof run`.
    // Loaded only here: the Markdown and JSON reports need neither the UI nor the merge code.
    const { reviewRunInTerminal } = await import('../interactive-ui.js');
    const choice = await reviewRunInTerminal(state);
    return choice === undefined || choice.ok ? EXIT_CODES.ok : EXIT_CODES.mergeFailed;
  }
  process.stdout.write(values.json ? renderJsonReport(state) : renderMarkdownReport(state));
  return EXIT_CODES.ok;
}
