/**
 * Committing a candidate's work: whatever the agent left in its worktree becomes a commit on the
 * candidate's branch (HEAD reclaimed first if the agent moved it), the commit is reworded with its
 * score once it is scored, and only then does the kept ref move to it and the record say so.
 * Nothing an agent wrote is ever left uncommitted.
 *
 * Why the kept ref moves last: the reword makes a new commit (same tree, new message). Were the
 * kept ref and the record to name the commit before the reword, a kill -9 between the two would
 * leave a recorded commit that nothing reaches any more. Until the reword, the commit is reachable
 * from the candidate's branch; a resumed run finds it there and keeps it (`reclaimHead` keeps a
 * branch that builds on the kept commit).
 */
import { rewordCommit } from '../../git/history/checkpoint.js';
import { branchTips, commitAll, foldCommitsAfter, reclaimHead, type CommitHeader, type SkippedFile } from '../../git/history/commit.js';
import { rangeHoldsFiltered } from '../../git/history/commit-filter.js';
import { readHeadView } from '../../git/history/head-view.js';
import { repairWorktreeLinkDetailed } from '../../git/worktrees/worktree-link.js';
import { deleteRefIfAt, isAncestor, updateOwnRef } from '../../git/history/refs.js';
import { besideKeptRef } from '../workspace/candidate-refs.js';
import { currentBranch } from '../../git/running/repo.js';
import type { LoopState } from './loop-state.js';
import type { LoopContext } from './loop-context.js';

/** The outcome of committing the worktree: the new state, and what the record will say once the commit is kept. */
export interface CommittedWork {
  readonly state: LoopState;
  /** The worktree or the branch moved past the last kept commit. */
  readonly changed: boolean;
  /** Files in bestof's commit (0 when the agent committed by itself). */
  readonly changedFiles: number;
  /** bestof's commit and its tree and parents, as commitAll made it: the reword needs not read them back. */
  readonly made?: { readonly commit: string; readonly header: CommitHeader };
  /** The commit the kept ref already points at (the reword moved it with the branch): keepCommitted need not move it. */
  readonly keptAt?: string;
  /**
   * Every tracked path on disk is as in `state.head`: the commit step staged every change and left
   * nothing out (no file too large or holding a secret) and no one moved the branch under it. The
   * scoring tree then need not reset the worktree (ScoringTreeOptions.justCommitted).
   */
  readonly worktreeIsCommit?: boolean;
  /** What the commit left out (../../git/history/commit-filter.ts), as lines for the next prompt (`path: why`). @default none */
  readonly leftOut?: readonly string[];
}

type CommitContext = Pick<LoopContext, 'plan' | 'candidate' | 'emit' | 'setupPaths' | 'secrets'>;

/** Every local branch (`refs/heads/*` -> commit) before the agent call, and after it when the watch's restore read them. */
export interface AgentCallBranches {
  readonly before: ReadonlyMap<string, string>;
  readonly after?: ReadonlyMap<string, string>;
}

/**
 * Commits whatever is in the worktree (never the setup files) on the candidate's branch. An agent
 * may also commit by itself: HEAD is the truth, not what bestof committed, as long as it is the
 * candidate's branch and builds on the last kept commit (`reclaimHead`). The kept ref does not
 * move here: `keepCommitted` does that, after the reword.
 */
export async function commitWork(ctx: CommitContext, state: LoopState, label: string, branches?: AgentCallBranches): Promise<CommittedWork> {
  const { plan, candidate } = ctx;
  const branchesBefore = branches?.before;
  const kept = state.head ?? plan.baseCommit; // the last kept commit: every iteration keeps its commit before it ends
  // An agent may have destroyed its worktree's `.git` link (`rm .git`, `git init`): repaired first,
  // its files untouched, so that what it wrote can be committed.
  // One git process for the link check's top level, HEAD and the branch's tip (../../git/history/head-view.ts);
  // HEAD and the tip count only when the link is intact (else they were read through a broken link).
  // A git that cannot even start there (the folder is gone) leaves the judging to the repair, as before.
  const own = `refs/heads/${candidate.branch}`;
  const view = await readHeadView(candidate.worktree, [own]).catch(() => undefined);
  const link = await repairWorktreeLinkDetailed(plan.repoRoot, candidate.worktree, candidate.branch, { topLevel: view?.topLevel });
  const seen = view && link.ok && link.value.status === 'intact' ? { headRef: view.headRef, head: view.head, ownTip: view.tips.get(own)! } : undefined;
  if (link.ok && link.value.status === 'repaired') {
    const aside = link.value.movedAside ? `; its own .git folder was moved to ${link.value.movedAside}` : '';
    ctx.emit({
      type: 'run.warning',
      candidate: candidate.id,
      message: `its agent broke the worktree's git link (${link.value.problem ?? 'unknown'}); bestof repaired it, the files as they are${aside}`,
    });
  }
  const agentBranches = branches ? await branchesMadeByAgent(ctx, kept, branches) : [];
  const head = await reclaimHead(candidate.worktree, { branch: candidate.branch, kept, seen, ...(branchesBefore ? { branchesBefore } : {}) });
  if (agentBranches.length > 0) await adoptAgentBranches(ctx, agentBranches);
  // Where HEAD is before bestof's commit: the candidate's work when the agent changed nothing more.
  const headBefore = await foldFilteredAgentCommits(ctx, kept, head.head);
  if (head.headWas !== undefined || head.rewound) {
    const what = [
      head.headWas !== undefined ? `its agent had moved HEAD (${head.headWas}); bestof put HEAD back on ${candidate.branch}` : '',
      head.rewound ? `its branch had lost the last kept commit ${kept.slice(0, 12)}; bestof set it back and commits the agent's files on top` : '',
      head.branchRestored ? `${head.branchRestored} was moved back where it was` : '',
    ].filter(Boolean);
    ctx.emit({ type: 'run.warning', candidate: candidate.id, message: what.join('; ') });
  }
  const committed = await commitAll(candidate.worktree, {
    message: `bestof: ${candidate.id} ${label}`,
    excludePaths: [...ctx.setupPaths],
    secrets: ctx.secrets,
    maxFileSizeBytes: plan.spec.git.max_file_size,
    // On top of where bestof left the branch: a rival that moves the branch meanwhile (only possible
    // without the sandbox) gets neither its commit recorded as this candidate's nor built upon.
    onto: { branch: candidate.branch, head: headBefore },
  });
  reportLeftOut(ctx, committed.skipped);
  if (committed.commit !== undefined && committed.branchWasMoved !== undefined) {
    ctx.emit({
      type: 'run.warning',
      candidate: candidate.id,
      message: `its branch was moved to ${committed.branchWasMoved.slice(0, 12)} while bestof committed its work (only possible without the sandbox); bestof put it back on its own commit ${committed.commit.slice(0, 12)}`,
    });
  }
  const now = committed.commit ?? headBefore;
  const worktreeIsCommit = committed.skipped.length === 0 && (committed.commit === undefined || committed.branchWasMoved === undefined);
  const leftOut = committed.skipped.map(leftOutLine);
  if (!now || now === kept) return { state, changed: false, changedFiles: 0, worktreeIsCommit, leftOut };
  return {
    state: { ...state, head: now, headIsOurs: committed.commit !== undefined },
    changed: true,
    leftOut,
    changedFiles: committed.commit ? committed.changedFiles : 0,
    worktreeIsCommit,
    ...(committed.commit !== undefined ? { made: { commit: committed.commit, header: committed.header } } : {}),
  };
}

/**
 * The kept ref moves to the state's head and the record says so (candidate.committed), when the
 * head is new. Call it once on every way out of an iteration that made a commit.
 */
export async function keepCommitted(ctx: Pick<LoopContext, 'plan' | 'candidate' | 'emit'>, work: CommittedWork): Promise<LoopState> {
  const { state } = work;
  if (!work.changed || !state.head) return state;
  const removed = work.keptAt === state.head ? [] : await updateOwnRef(ctx.plan.repoRoot, ctx.candidate.ref, state.head);
  if (removed.length > 0) {
    // Only possible without the sandbox: a ref planted in the way cannot make the work unreachable.
    ctx.emit({
      type: 'run.warning',
      candidate: ctx.candidate.id,
      message: `refs planted in the way of its kept ref were removed (${removed.join(', ')}); an agent wrote into bestof's refs`,
    });
  }
  ctx.emit({ type: 'candidate.committed', candidate: ctx.candidate.id, iteration: state.iteration, commit: state.head, changedFiles: work.changedFiles });
  return state;
}

/**
 * The iteration's commit says its score, when bestof made it (an agent's own commit is left alone).
 * The kept ref moves with the branch when it can (one git transaction, `keptAt`); keepCommitted
 * records it either way, and moves the ref itself when the reword could not.
 */
export async function rewordWithScore(ctx: Pick<LoopContext, 'candidate' | 'emit'>, work: CommittedWork): Promise<CommittedWork> {
  const { state } = work;
  if (!work.changed || !state.head || !state.headIsOurs) return work;
  const { candidate } = ctx;
  const reworded = await rewordCommit(candidate.worktree, {
    commit: state.head,
    branch: candidate.branch,
    message: `bestof: ${candidate.id} iteration ${state.iteration}, score ${state.lastScore}`,
    // Only for the very commit commitAll made: anything else is read from git.
    header: work.made?.commit === state.head ? work.made.header : undefined,
    keepRef: candidate.ref,
  });
  if (reworded.branchWasMoved) {
    ctx.emit({
      type: 'run.warning',
      candidate: candidate.id,
      message: `its branch was moved to ${reworded.branchWasMoved.slice(0, 12)} while its work was checked (only possible without the sandbox); bestof put it back on the commit it scored`,
    });
  }
  return { ...work, state: { ...state, head: reworded.commit }, ...(reworded.kept ? { keptAt: reworded.commit } : {}) };
}

/**
 * Branches the agent made during its call (`git checkout -b`, `git branch`): new under refs/heads/,
 * not one of this run's candidate branches, and either checked out in the candidate's worktree or
 * holding the candidate's commits. A branch the user makes meanwhile in their own checkout builds
 * on their branch, not on the candidate's work, and is left alone. (On the first iteration the
 * candidate's work is the base commit: a new branch there that the worktree has not checked out
 * cannot be told from the user's, so it is left alone too.)
 */
async function branchesMadeByAgent(ctx: CommitContext, kept: string, branches: AgentCallBranches): Promise<{ ref: string; sha: string }[]> {
  const { candidate, plan } = ctx;
  const runBranches = `refs/heads/${candidate.branch.slice(0, candidate.branch.lastIndexOf('/') + 1)}`;
  const after = branches.after ?? (await branchTips(candidate.worktree));
  const fresh = [...after].filter(([ref]) => !branches.before.has(ref) && !ref.startsWith(runBranches));
  if (fresh.length === 0) return [];
  const branch = await currentBranch(candidate.worktree);
  const checkedOut = branch !== undefined ? `refs/heads/${branch}` : undefined;
  const made: { ref: string; sha: string }[] = [];
  for (const [ref, sha] of fresh) {
    const holdsCandidateWork = kept !== plan.baseCommit && (sha === kept || (await isAncestor(candidate.worktree, kept, sha)));
    if (ref === checkedOut || holdsCandidateWork) made.push({ ref, sha });
  }
  return made;
}

/**
 * The agent's branches leave the user's branch namespace: each is kept under the candidate's refs
 * (refs/bestof/<run>/<candidate>/agent-branches/<name>, so no commit on it is lost) and deleted from
 * refs/heads/, if it still points where the agent left it.
 */
async function adoptAgentBranches(ctx: CommitContext, branches: readonly { ref: string; sha: string }[]): Promise<void> {
  const { plan, candidate } = ctx;
  const kept = (name: string): string => besideKeptRef(candidate.ref, `agent-branches/${name}`);
  const names: string[] = [];
  for (const { ref, sha } of branches) {
    const name = ref.slice('refs/heads/'.length);
    await updateOwnRef(plan.repoRoot, kept(name), sha);
    await deleteRefIfAt(plan.repoRoot, ref, sha);
    names.push(name);
  }
  ctx.emit({
    type: 'run.warning',
    candidate: candidate.id,
    message: `its agent made branch${names.length === 1 ? '' : 'es'} ${names.join(', ')} in your repository; bestof removed ${names.length === 1 ? 'it' : 'them'} from your branches and keeps ${names.length === 1 ? 'it' : 'them'} at ${kept('')}`,
  });
}

/** A file the commit left out, for the agent's next prompt: the path, then why (a submodule's detail names its path itself). */
function leftOutLine(file: SkippedFile): string {
  return file.reason === 'submodule' ? file.detail : `${file.path} ${file.detail}`;
}

/** Per candidate, the files already reported as left out: a file stays on disk, so every later commit finds it again. */
const reportedLeftOut = new WeakMap<object, Set<string>>();

/** A run.warning per file the commit left out (too large, holding a secret value: named, never the value; a changed submodule; a link out of the worktree, a nested repository), once per file and reason. */
function reportLeftOut(ctx: CommitContext, skipped: readonly SkippedFile[]): void {
  let seen = reportedLeftOut.get(ctx.candidate);
  if (!seen) reportedLeftOut.set(ctx.candidate, (seen = new Set()));
  for (const file of skipped) {
    const key = `${file.reason}\0${file.path}`;
    if (seen.has(key)) continue;
    seen.add(key);
    // The front ends name the candidate; a submodule's detail names its path itself.
    const message = file.reason === 'submodule' ? file.detail : `${file.path} was not committed: ${file.detail}`;
    ctx.emit({ type: 'run.warning', candidate: ctx.candidate.id, message });
  }
}

/**
 * An agent's own commits bypass the commit filter: when one of them holds a secret value or a file
 * over `[git] max_file_size` (even one deleted again later), or their last tree adds a symbolic
 * link or a gitlink (which may lead out of the worktree: ../../git/guards/escapes.ts), they are folded into
 * bestof's commit (the branch goes back to the kept commit, their changes stay staged), whose
 * filter leaves such files out. Their blobs stay in .git/objects, unreachable, until git's garbage collection.
 * `head`: where reclaimHead left HEAD (adopting the agent's branches moves no HEAD); returns where
 * HEAD is after (`kept` when folded).
 */
async function foldFilteredAgentCommits(ctx: CommitContext, kept: string, head: string): Promise<string> {
  const { candidate, plan } = ctx;
  if (head === kept) return head;
  const reason = await rangeHoldsFiltered(candidate.worktree, kept, head, { secrets: ctx.secrets, maxFileSizeBytes: plan.spec.git.max_file_size });
  if (reason === undefined) return head;
  await foldCommitsAfter(candidate.worktree, kept);
  ctx.emit({
    type: 'run.warning',
    candidate: candidate.id,
    message: `its agent's own commits held ${reason}; bestof folded them into one commit of its own, whose filter leaves out what must not be committed`,
  });
  return kept;
}
