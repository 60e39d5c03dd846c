/**
 * `[git] worktrees = "copy-on-write"`: whether this run gets them, and how. The mounts must be
 * made inside a mount namespace that every process of the run shares (src/process/namespace.ts),
 * so the outer bestof, as soon as it has read the spec, runs the same command again inside one and
 * only waits for it: the inner one plans (bad input exits 2 there, with nothing created, and the
 * outer one exits with its code) and runs. Where the namespace cannot be had (not Linux, no
 * overlayfs in user namespaces, BESTOF_OVERLAY=off), or a path overlayfs cannot carry, the run goes
 * on with plain worktrees and says why.
 */
import { cowBaseDir, cowLayerDir } from '../engine/workspace/cow-layout.js';
import type { RunPlan } from '../engine/plan/plan.js';
import type { Spec } from '../spec/schema.js';
import { insideMountNamespace, namespaceMounts, runAgainInMountNamespace } from '../process/namespace.js';
import { overlayAvailable, overlayPathProblem } from '../process/overlay-holder.js';

/**
 * Before planning: the exit code of this same command run again inside a mount namespace, when
 * the spec asks for copy-on-write worktrees and this machine can mount them; undefined: go on here
 * (`why` then says why copy-on-write worktrees cannot be had, if they were asked for).
 */
export async function runInsideForCopyOnWrite(spec: Spec): Promise<{ readonly exitCode: number } | { readonly why?: string }> {
  if (spec.git.worktrees !== 'copy-on-write' || insideMountNamespace()) return {};
  const probe = await overlayAvailable();
  if (!probe.ok) return { why: probe.reason };
  const ran = await runAgainInMountNamespace();
  return ran.ok ? { exitCode: ran.value } : { why: ran.error };
}

/** After planning: the plan with copy-on-write mounts (inside the namespace), or with plain worktrees and a warning that says why. */
export function withWorktreeMode(plan: RunPlan, why: string | undefined): RunPlan {
  if (plan.spec.git.worktrees !== 'copy-on-write') return plan;
  const problem = why ?? (insideMountNamespace() ? pathProblem(plan) : 'bestof is not running in a mount namespace');
  if (problem === undefined) return { ...plan, cow: { mounts: namespaceMounts } };
  const warning = `git.worktrees = "copy-on-write" cannot be used here (${problem}): plain worktrees instead, one full checkout per candidate`;
  return { ...plan, warnings: [...plan.warnings, warning] };
}

function pathProblem(plan: RunPlan): string | undefined {
  for (const candidate of plan.candidates) {
    for (const path of [candidate.worktree, cowBaseDir(candidate.worktree), cowLayerDir(candidate.worktree)]) {
      const problem = overlayPathProblem(path);
      if (problem) return problem;
    }
  }
  return undefined;
}
