/**
 * Each candidate's diff for report.html, from git: the run's base commit against the
 * candidate's kept ref (refs/bestof/<run>/<candidate>/kept), or its recorded commit when the
 * ref is gone (`bestof clean` removes refs). A diff that cannot be read is a value that says
 * why; the report shows it in the candidate's place.
 */
import { diffText } from '../../git/history/diff.js';
import { commitExists, refCommit, refCommits } from '../../git/history/refs.js';
import { err, ok } from '../../result.js';
import type { RunState } from '../../engine/record/run-state.js';
import type { CandidateDiff } from './run-html.js';

/** git diffs at once: a 64-candidate run should not start 64 git processes on 2 cores. */
const CONCURRENCY = 4;

export async function collectRunDiffs(state: RunState, options: { readonly signal?: AbortSignal } = {}): Promise<Map<string, CandidateDiff>> {
  const diffs = new Map<string, CandidateDiff>();
  const tips = await keptTips(state, options.signal);
  const queue = [...state.order];
  const worker = async (): Promise<void> => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) diffs.set(id, await candidateDiff(state, id, tips, options.signal));
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return new Map(state.order.flatMap((id) => (diffs.has(id) ? [[id, diffs.get(id) as CandidateDiff] as const] : [])));
}

/**
 * Where each committed candidate's kept ref points (undefined: gone), every ref read in one git
 * process (refCommits); undefined when that cannot be asked (the record names a ref that is not a
 * full ref name, git fails): each candidate's is then read on its own, and its error is its own.
 */
async function keptTips(state: RunState, signal: AbortSignal | undefined): Promise<Map<string, string | undefined> | undefined> {
  const committed = state.order.flatMap((id) => {
    const c = state.candidates[id];
    return c?.commit !== undefined ? [c] : [];
  });
  try {
    const shas = await refCommits(
      state.repo,
      committed.map((c) => c.ref),
      { signal },
    );
    return new Map(committed.map((c, i) => [c.id, shas[i]]));
  } catch {
    return undefined;
  }
}

async function candidateDiff(
  state: RunState,
  id: string,
  tips: Map<string, string | undefined> | undefined,
  signal: AbortSignal | undefined,
): Promise<CandidateDiff> {
  const c = state.candidates[id];
  if (!c) return err(`${id} is not in the run's record`);
  if (c.commit === undefined) return ok('');
  try {
    const refAt = tips?.has(id) ? tips.get(id) : await refCommit(state.repo, c.ref, { signal });
    const at = refAt ?? ((await commitExists(state.repo, c.commit, { signal })) ? c.commit : undefined);
    if (at === undefined) return err(`neither ${c.ref} nor its commit ${c.commit.slice(0, 10)} is in ${state.repo} any more`);
    return ok(await diffText(state.repo, state.baseCommit, at, { signal }));
  } catch (error) {
    return err(`git diff ${state.baseCommit.slice(0, 10)} ${c.ref} failed in ${state.repo}: ${(error as Error).message}`);
  }
}
