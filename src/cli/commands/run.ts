import { parseCommandArgs } from '../args.js';
import { loadSpecOrExplain } from '../load-spec-or-explain.js';
import { planWithMergeChecks } from '../plan-or-explain.js';
import { EXIT_CODES } from '../../engine/exit-codes.js';
import { runPlanned } from '../run-session.js';
import { runInsideForCopyOnWrite, withWorktreeMode } from '../worktree-mode.js';

/** `bestof run [spec]`: load, plan (bad input exits 2 with nothing created), run. */
export async function runCommand(args: readonly string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('run', args);
  const loaded = await loadSpecOrExplain(positionals[0]);
  if (!loaded) return EXIT_CODES.badInput;
  // Copy-on-write worktrees: the rest happens in a mount namespace (../worktree-mode.ts).
  const inside = await runInsideForCopyOnWrite(loaded.spec);
  if ('exitCode' in inside) return inside.exitCode;
  const planned = await planWithMergeChecks(loaded);
  if (!planned.ok) {
    for (const problem of planned.error) process.stderr.write(`${loaded.specPath}: ${problem}\n`);
    process.stderr.write('bestof: nothing was run or created.\n');
    return EXIT_CODES.badInput;
  }

  return runPlanned(withWorktreeMode(planned.value, inside.why), { json: values.json === true, noTui: values['no-tui'] === true });
}
