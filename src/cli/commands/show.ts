import { parseCommandArgs } from '../args.js';
import { currentRepoRoot, findRun, loadRunState } from '../run-lookup.js';
import { buildJsonReport, renderMarkdownReport } from '../../report/report.js';

/** `bestof show [run]`: the report of a run, rebuilt from its event log. */
export async function showCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('show', args, { json: { type: 'boolean' } });
  const run = await findRun(await currentRepoRoot(), positionals[0]);
  const state = await loadRunState(run.runDir);
  process.stdout.write(values.json ? `${JSON.stringify(buildJsonReport(state), null, 2)}\n` : renderMarkdownReport(state));
  return 0;
}
