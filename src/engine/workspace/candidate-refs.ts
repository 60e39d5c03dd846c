/**
 * The refs bestof keeps for a candidate, all beside its kept ref (`refs/bestof/<run>/<id>/kept`,
 * named by the plan): `.../<id>/reverted` (the revert commit made before a merge),
 * `.../<id>/leftover` (work a worktree held past its last commit at the end of a run),
 * `.../<id>/moved-ref` and `.../<id>/moved-branch` (the tips of a kept ref or branch that had
 * moved, kept when they are put back), `.../<id>/agent-branches/<name>` (branches the agent made).
 * A run from before the `/kept` rename kept `.../<id>` itself; its siblings are `.../<id>-<name>`.
 */
export function besideKeptRef(keptRef: string, name: string): string {
  return keptRef.endsWith('/kept') ? `${keptRef.slice(0, -'kept'.length)}${name}` : `${keptRef}-${name}`;
}
