import { parseCommandArgs } from '../args.js';
import { loadSpecOrExplain } from '../load-spec-or-explain.js';
import { planWithMergeChecks } from '../plan-or-explain.js';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { runPlanned } from '../run-session.js';
import { chooseWorktreeMode } from '../worktree-mode.js';

/** `bestof run [spec]`: load, plan (bad input exits 2 with nothing created), run. */
export async function runCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', args);
  const loaded = await loadSpecOrExplain(positionals[0]);
  if (!loaded) return EXIT_CODES.badInput;
  const planned = await planWithMergeChecks(loaded);
  if (!planned.ok) {
    for (const problem of planned.error) process.stderr.write(`${loaded.specPath}: ${problem}\n`);
    process.stderr.write('bestof: nothing was run or created.\n');
    return EXIT_CODES.badInput;
  }

  const mode = await chooseWorktreeMode(planned.value);
  if (mode.kind === 'ran-inside') return mode.exitCode;
  return runPlanned(mode.plan, { json: values.json === true, noTui: values['no-tui'] === true });
}
