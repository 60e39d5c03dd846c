/**
 * Selection: rank every candidate by its final score and the spec's tie-breaks, and name the
 * winner (src/engine/select/select.ts).
 *
 * The ranking trusts git, not only the record. Before it, every candidate's kept ref and
 * branch must still point at the commit that was scored: one that moved (an agent, or a
 * process it left behind, rewrote it) cannot win, and the ref goes back to the scored commit
 * (the branch too when it is not checked out in the user's checkout), the moved tip kept
 * beside it. And the protected paths each final commit changes are read from git, so that a
 * frozen-path change the record missed still counts.
 */
import { findTampering, frozenPathspecs, keptAsInBase, type TamperedPath } from '../../../checks/frozen.js';
import { runnerKept, withNotes, type RunnerFiles } from '../../../checks/runner-defaults.js';
import { changedPaths } from '../../../git/history/diff.js';
import { commitExists, refCommits, swapRef, updateRef } from '../../../git/history/refs.js';
import { currentBranch } from '../../../git/running/repo.js';
import type { RunContext } from '../run-context.js';
import type { CandidateState } from '../../record/run-state.js';
import { rankCandidates, type CandidateEvidence, type SelectionPolicy } from '../../select/select.js';
import { applyDistinguish } from '../../select/distinguish-order.js';
import type { RankEntry, SelectionPicks } from '../../record/run-types.js';
import { AUTORUN_PATTERNS, describeAutorun } from '../../select/autorun-files.js';
import { besideKeptRef } from '../../workspace/candidate-refs.js';
import { plural } from '../../words.js';

/** The spec's rules of who can win and in what order (also what `[select] stop_others` asks of a candidate, ./threshold-stop.ts). */
export function selectionPolicy(spec: RunContext['plan']['spec']): SelectionPolicy {
  return {
    minScore: spec.select.min_score,
    tieBreak: spec.select.tie_break,
    allowTampered: spec.select.allow_tampered,
    allowAutorun: spec.select.allow_autorun,
  };
}

export async function selection(ctx: RunContext): Promise<void> {
  const { spec, maxScore } = ctx.plan;
  const state = ctx.state();
  const candidates = state.order.map((id) => state.candidates[id]).filter((c) => c !== undefined);
  const committed = committedCandidates(ctx, candidates);
  const tips = await refTips(ctx.plan.repoRoot, committed);
  const evidence = new Map<string, CandidateEvidence>();
  for (const c of committed) evidence.set(c.id, await gatherEvidence(ctx, c, tips.get(c.id)));
  const byChecksAndVote = rankCandidates(candidates, selectionPolicy(spec), evidence);
  const tested = state.distinguish?.result;
  const ranking = applyDistinguish(byChecksAndVote, tested);
  const best = ranking[0];
  const winner = best?.eligible ? best.candidate : undefined;
  const decided = tested && tested.kept.length > 0 && winner !== undefined && best?.distinguish ? `; distinguishing tests: ${tested.decided}` : '';
  ctx.emit({
    type: 'selection.finished',
    ranking,
    winner,
    picks: selectionPicks(ctx, candidates, evidence, byChecksAndVote, ranking),
    message: winner
      ? `${winner} wins with ${best?.score} of ${plural(maxScore, 'point')}${decided}${best?.autorun ? `; it ${describeAutorun(best.autorun)}` : ''}`
      : `no candidate can win: ${ranking.map((r) => `${r.candidate} ${r.reason ?? ''}`.trim()).join('; ') || 'no candidates'}`,
  });
}

/**
 * What each policy picks from the same candidates: by score and `tie_break` alone (the vote's
 * ranking taken away), with the vote's ranking, with the distinguishing tests'. `bestof bench`
 * scores each against the task's oracle, paired, at no extra agent call.
 */
function selectionPicks(
  ctx: RunContext,
  candidates: readonly CandidateState[],
  evidence: ReadonlyMap<string, CandidateEvidence>,
  byChecksAndVote: readonly RankEntry[],
  final: readonly RankEntry[],
): SelectionPicks {
  const { spec } = ctx.plan;
  const state = ctx.state();
  const first = (ranking: readonly RankEntry[]): string | null => (ranking[0]?.eligible ? ranking[0].candidate : null);
  const withoutVote = candidates.map((c) => (c.vote === undefined ? c : { ...c, vote: undefined }));
  const policy = {
    minScore: spec.select.min_score,
    tieBreak: spec.select.tie_break.filter((k) => k !== 'votes'),
    allowTampered: spec.select.allow_tampered,
    allowAutorun: spec.select.allow_autorun,
  };
  const tieBreak = rankCandidates(withoutVote, policy, evidence);
  return {
    tie_break: first(tieBreak),
    ...(state.vote?.result ? { vote: first(byChecksAndVote) } : {}),
    ...(state.distinguish?.result ? { distinguish: first(state.vote?.result ? applyDistinguish(tieBreak, state.distinguish.result) : final) } : {}),
  };
}

/** Where a candidate's kept ref and branch point (undefined: missing), as verifyRefs reads them. */
export interface RefTips {
  readonly refAt: string | undefined;
  readonly branchAt: string | undefined;
}

/** A candidate with a scored commit, under its plan's names (not the record's: the record is a file, the plan is derived from the run id). */
interface CommittedCandidate {
  readonly id: string;
  readonly commit: string;
  readonly ref: string;
  readonly branch: string;
}

function committedCandidates(ctx: RunContext, candidates: readonly CandidateState[]): CommittedCandidate[] {
  return candidates.flatMap((c) => {
    const planned = ctx.plan.candidates.find((p) => p.id === c.id);
    return c.commit && planned ? [{ id: c.id, commit: c.commit, ref: planned.ref, branch: planned.branch }] : [];
  });
}

/**
 * Every candidate's kept ref and branch, read in one git process (refCommits) rather than two per
 * candidate: a read only, so it may come before any candidate's refs are put back (each
 * candidate's put-back touches only its own refs).
 */
async function refTips(repo: string, candidates: readonly CommittedCandidate[]): Promise<Map<string, RefTips>> {
  const shas = await refCommits(
    repo,
    candidates.flatMap((c) => [c.ref, `refs/heads/${c.branch}`]),
  );
  return new Map(candidates.map((c, i) => [c.id, { refAt: shas[2 * i], branchAt: shas[2 * i + 1] }]));
}

async function gatherEvidence(ctx: RunContext, c: CommittedCandidate, tips: RefTips | undefined): Promise<CandidateEvidence> {
  const untrusted = await verifyRefs(ctx, c, c.commit, tips);
  if (untrusted !== undefined) return { untrusted };
  return protectedEvidence(ctx, c);
}

/** What git says the candidate's commit changes that matters to who can win: protected paths, files that run code in the user's checkout. Reads only. */
export async function protectedEvidence(ctx: Pick<RunContext, 'plan'>, c: { readonly commit: string }): Promise<CandidateEvidence> {
  const { plan } = ctx;
  const [tampered, autorun] = await Promise.all([
    protectedChanges(plan.repoRoot, {
      base: plan.baseCommit,
      commit: c.commit,
      frozen: keptAsInBase(plan.spec.checks),
      editable: plan.spec.checks.editable,
      runner: plan.runner,
    }),
    changedPaths(plan.repoRoot, plan.baseCommit, c.commit, frozenPathspecs(AUTORUN_PATTERNS)),
  ]);
  // Deleted ones run nothing any more.
  const running = autorun.filter((change) => change.status !== 'D').map((change) => change.path);
  return { tampered, ...(running.length > 0 ? { autorun: running } : {}) };
}

/** Where a moved ref's or branch's tip is kept: beside the candidate's kept ref, under refs/bestof/<run>/. */
export function movedTipRef(keptRef: string, what: 'ref' | 'branch'): string {
  return besideKeptRef(keptRef, `moved-${what}`);
}

/**
 * Undefined when the candidate's kept ref and branch point at `scored`; otherwise why it cannot
 * win, after putting them back (and one run.warning that says what happened and what was kept).
 */
export async function verifyRefs(
  ctx: Pick<RunContext, 'plan' | 'emit'>,
  c: { readonly id: string; readonly ref: string; readonly branch: string },
  scored: string,
  /** The two refs as the caller has just read them (selection reads every candidate's at once). @default read here */
  tips?: RefTips,
): Promise<string | undefined> {
  const repo = ctx.plan.repoRoot;
  const branchRef = `refs/heads/${c.branch}`;
  // Read only, so they may come first: a ref that resolves to the scored commit (peeled with
  // `^{commit}`, which reads the object) shows that the commit is there, without a `git cat-file`.
  const [refAt, branchAt] = tips ? [tips.refAt, tips.branchAt] : await refCommits(repo, [c.ref, branchRef]);
  if (refAt !== scored && branchAt !== scored && !(await commitExists(repo, scored))) {
    const reason = `its scored commit ${scored.slice(0, 10)} is gone from the repository`;
    ctx.emit({ type: 'run.warning', candidate: c.id, message: `${reason}: it cannot win` });
    return reason;
  }
  const moved: string[] = [];
  const notes: string[] = [];
  if (refAt === undefined) {
    // Nothing vouches for the recorded commit (on resume, the record may be forged): not recreated.
    moved.push(`its kept ref ${c.ref} is missing`);
  } else if (refAt !== scored) {
    moved.push(`its kept ref ${c.ref} moved to ${refAt.slice(0, 10)}`);
    await updateRef(repo, movedTipRef(c.ref, 'ref'), refAt);
    const back = await swapRef(repo, c.ref, scored, refAt);
    notes.push(back.ok ? `${c.ref} is back at ${scored.slice(0, 10)} (the moved tip is kept at ${movedTipRef(c.ref, 'ref')})` : back.error);
  }
  if (branchAt !== undefined && branchAt !== scored) {
    moved.push(`its branch ${c.branch} moved to ${branchAt.slice(0, 10)}`);
    await updateRef(repo, movedTipRef(c.ref, 'branch'), branchAt);
    if ((await currentBranch(repo)) === c.branch) {
      notes.push(`${c.branch} is checked out in ${repo}, so bestof left it; the moved tip is also kept at ${movedTipRef(c.ref, 'branch')}`);
    } else {
      const back = await swapRef(repo, branchRef, scored, branchAt);
      notes.push(back.ok ? `${c.branch} is back at ${scored.slice(0, 10)} (the moved tip is kept at ${movedTipRef(c.ref, 'branch')})` : back.error);
    }
  }
  if (moved.length === 0) return undefined;
  const reason = `${moved.join(' and ')} since its commit ${scored.slice(0, 10)} was scored`;
  ctx.emit({ type: 'run.warning', candidate: c.id, message: `${reason}: it cannot win${notes.length > 0 ? `; ${notes.join('; ')}` : ''}` });
  return reason;
}

export interface ProtectedChangesOptions {
  readonly base: string;
  readonly commit: string;
  readonly frozen: readonly string[];
  /** `[checks] editable`; empty: every path that is not frozen is editable. */
  readonly editable: readonly string[];
  /** The test runners' files (RunPlan.runner), frozen too where `editable` does not cover them (../../../checks/runner-defaults.ts). @default none */
  readonly runner?: RunnerFiles | undefined;
}

/**
 * What `commit` changed that it must not, compared with `base`, from git: frozen paths and the
 * test runners' files (`rule: 'frozen'`), then paths outside `editable` that are not frozen
 * (`rule: 'editable'`).
 */
export async function protectedChanges(repo: string, opts: ProtectedChangesOptions): Promise<TamperedPath[]> {
  const runner = await runnerKept(repo, { base: opts.base, commit: opts.commit, runner: opts.runner, editable: opts.editable });
  const kept = await findTampering(repo, { base: opts.base, commit: opts.commit, frozen: [...opts.frozen, ...runner.pathspecs] });
  const frozen = withNotes(kept, runner.notes).map((p) => ({ ...p, rule: 'frozen' as const }));
  const allowed = frozenPathspecs(opts.editable);
  if (allowed.length === 0) return frozen;
  const seen = new Set(frozen.map((p) => p.path));
  const inside = new Set((await changedPaths(repo, opts.base, opts.commit, allowed)).map((p) => p.path));
  const CHANGE = { M: 'modified', A: 'added', D: 'deleted', T: 'type_changed' } as const;
  const outside = (await changedPaths(repo, opts.base, opts.commit, [':/']))
    .filter((p) => !inside.has(p.path) && !seen.has(p.path))
    .map((p) => ({ path: p.path, change: CHANGE[p.status], rule: 'editable' as const }));
  return [...frozen, ...outside];
}
