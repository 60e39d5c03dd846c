/**
 * The plan of a run with the checks of the merge at its end (src/engine/plan/merge-preflight.ts):
 * what `validate`, `run` and `resume` ask before anything is created, so that a run that could
 * only fail at its merge fails now, with exit 2 and nothing created.
 */
import { openRepo } from '../git/running/repo.js';
import { pullRequestReadiness } from '../engine/plan/merge-preflight.js';
import { planRun, type PlanOptions, type PlanResult } from '../engine/plan/plan.js';
import { err, ok } from '../result.js';
import { resolveSpecPath, type LoadedSpec } from '../spec/load.js';
import { startLoadingAgentKinds, startSandboxProbe } from './early-probes.js';

/**
 * planRun (which judges the branch to merge into, ../engine/plan/merge-preflight.ts mergeTargetProblem),
 * then what a pull request needs: gh, its login, an origin (it runs `gh`, which the engine's plan,
 * also made for tests and benches, does not need to).
 */
export async function planWithMergeChecks(loaded: LoadedSpec, options: PlanOptions = {}): Promise<PlanResult> {
  // Ready by the time planRun asks, after its git calls (./early-probes.ts).
  startSandboxProbe(loaded.spec);
  startLoadingAgentKinds(loaded.spec);
  const planned = await planRun(loaded, options);
  if (!planned.ok && planned.error.some((p) => p.startsWith('repo:'))) return planned;
  const root = planned.ok ? planned.value.repoRoot : await repoRootOf(loaded);
  if (root === undefined) return planned;
  const { spec } = loaded;
  const problems: string[] = [];
  const warnings: string[] = [];
  if (spec.select.merge === 'pr') {
    const readiness = await pullRequestReadiness(root);
    problems.push(...readiness.problems);
    warnings.push(...readiness.warnings);
  }
  if (!planned.ok) return err([...planned.error, ...problems]);
  if (problems.length > 0) return err(problems);
  return ok({ ...planned.value, warnings: [...planned.value.warnings, ...warnings] });
}

async function repoRootOf(loaded: LoadedSpec): Promise<string | undefined> {
  const repo = await openRepo(loaded.spec.repo ? resolveSpecPath(loaded.specDir, loaded.spec.repo) : loaded.specDir);
  return repo.ok ? repo.value.root : undefined;
}
