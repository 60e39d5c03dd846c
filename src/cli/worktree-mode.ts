/**
 * `[git] worktrees = "copy-on-write"`: whether this run gets them, and how. The mounts must be
 * made inside a mount namespace that every process of the run shares (src/process/namespace.ts),
 * so the outer bestof, once the spec and plan are known to be good (bad input has exited 2 by
 * then, with nothing created), runs the same command again inside one and only waits for it.
 * Where that cannot work (not Linux, no overlayfs in user namespaces, a path overlayfs cannot
 * carry, BESTOF_OVERLAY=off), the run goes on with plain worktrees and says why.
 */
import { cowBaseDir, cowLayerDir } from '../engine/cow-layout.js';
import type { RunPlan } from '../engine/plan.js';
import { insideMountNamespace, namespaceMounts, runAgainInMountNamespace } from '../process/namespace.js';
import { overlayAvailable, overlayPathProblem } from '../process/overlay-holder.js';

export type WorktreeMode = { readonly kind: 'run'; readonly plan: RunPlan } | { readonly kind: 'ran-inside'; readonly exitCode: number };

/** The plan to run here (with copy-on-write mounts, or plain worktrees and a warning), or the exit code of the same command run inside a mount namespace. */
export async function chooseWorktreeMode(plan: RunPlan): Promise<WorktreeMode> {
  if (plan.spec.git.worktrees !== 'copy-on-write') return { kind: 'run', plan };
  if (insideMountNamespace()) return { kind: 'run', plan: { ...plan, cow: { mounts: namespaceMounts } } };
  const unavailable = await whyNotCopyOnWrite(plan);
  if (unavailable === undefined) {
    const ran = await runAgainInMountNamespace();
    if (ran.ok) return { kind: 'ran-inside', exitCode: ran.value };
    return plainInstead(plan, ran.error);
  }
  return plainInstead(plan, unavailable);
}

function plainInstead(plan: RunPlan, why: string): WorktreeMode {
  const warning = `git.worktrees = "copy-on-write" cannot be used here (${why}): plain worktrees instead, one full checkout per candidate`;
  return { kind: 'run', plan: { ...plan, warnings: [...plan.warnings, warning] } };
}

async function whyNotCopyOnWrite(plan: RunPlan): Promise<string | undefined> {
  const probe = await overlayAvailable();
  if (!probe.ok) return probe.reason;
  for (const candidate of plan.candidates) {
    for (const path of [candidate.worktree, cowBaseDir(candidate.worktree), cowLayerDir(candidate.worktree)]) {
      const problem = overlayPathProblem(path);
      if (problem) return problem;
    }
  }
  return undefined;
}
