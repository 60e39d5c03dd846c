import { EXIT_CODES } from '../../engine/exit-codes.js';
import { parseCommandArgs } from '../args.js';
import { startSandboxProbe } from '../early-probes.js';
import { loadSpecOrExplain } from '../load-spec-or-explain.js';

/** `bestof validate [spec]`: the spec's syntax and schema, then everything a run would check before it starts. */
export async function validateCommand(args: readonly string[]): Promise<number> {
  const { positionals } = parseCommandArgs('validate', args);
  const loaded = await loadSpecOrExplain(positionals[0]);
  if (!loaded) return EXIT_CODES.badInput;
  // The sandbox probe (a bwrap process) runs while the planner's modules load (git's runner among
  // them), which a spec that does not load never needs.
  startSandboxProbe(loaded.spec);
  const { planWithMergeChecks } = await import('../plan-or-explain.js');
  const planned = await planWithMergeChecks(loaded);
  if (!planned.ok) {
    for (const problem of planned.error) process.stderr.write(`${loaded.specPath}: ${problem}\n`);
    return EXIT_CODES.badInput;
  }
  for (const warning of planned.value.warnings) process.stderr.write(`warning: ${warning}\n`);
  process.stdout.write('ok\n');
  return EXIT_CODES.ok;
}
