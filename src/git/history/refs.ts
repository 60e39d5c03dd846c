/** Refs and branches: checkpoint refs under refs/bestof/, candidate branches under refs/heads/. */
import { err, ok, type Result } from '../../result.js';
import { gitMessage, gitOut, runGit, splitLines, type GitCallOptions } from '../running/exec.js';
import { isFullObjectName } from '../running/object-name.js';

export interface RefInfo {
  /** Full ref name, e.g. `refs/bestof/run-1/a/3`. */
  readonly ref: string;
  readonly sha: string;
}

/** Points `ref` (full name, e.g. `refs/bestof/<run>/<candidate>`) at `sha`, creating it if needed. */
export async function updateRef(repo: string, ref: string, sha: string, opts: GitCallOptions = {}): Promise<void> {
  await gitOut(repo, ['update-ref', ref, sha], opts);
}

/**
 * Points one of bestof's own refs (`refs/bestof/...`) at `sha`, whatever stands in its way: a
 * ref named like one of its parent folders (`refs/bestof/<run>/c2`, which git cannot keep beside
 * `refs/bestof/<run>/c2/kept`) or like something under it was put there by someone else (an
 * agent without the sandbox) to make bestof's update fail. Those are deleted (bestof never
 * creates them) and their names returned, so that the caller can say so. git cannot delete one
 * and create the other in one transaction, so an agent that keeps planting them (a loop still
 * running beside) can win the gap once: the update is tried again, up to OWN_REF_ATTEMPTS times.
 */
export async function updateOwnRef(repo: string, ref: string, sha: string, opts: GitCallOptions = {}): Promise<string[]> {
  if (!ref.startsWith('refs/bestof/')) throw new Error(`updateOwnRef is for bestof's own refs, got ${ref}`);
  const parts = ref.split('/');
  const parents = parts.slice(2, -1).map((_, i) => parts.slice(0, i + 3).join('/'));
  const removed = new Set<string>();
  for (let attempt = 1; ; attempt += 1) {
    const run = await runGit(repo, ['update-ref', ref, sha], opts);
    if (run.code === 0) return [...removed];
    if (attempt === OWN_REF_ATTEMPTS)
      throw new Error(`git update-ref ${ref} ${sha} failed in ${repo} ${OWN_REF_ATTEMPTS} times, the last: ${gitMessage(run.stderr || run.stdout)}`);
    const blocking = [
      ...(await Promise.all(parents.map(async (name) => ((await refCommit(repo, name, opts)) !== undefined ? name : undefined)))).filter(
        (n): n is string => n !== undefined,
      ),
      ...(await listRefs(repo, `${ref}/`, opts)).map((r) => r.ref),
    ];
    for (const name of blocking) {
      await deleteRef(repo, name, opts);
      removed.add(name);
    }
  }
}

const OWN_REF_ATTEMPTS = 20;

/** Deletes `ref` only if it still points at `sha` (compare-and-delete); false when it moved or is gone. */
export async function deleteRefIfAt(repo: string, ref: string, sha: string, opts: GitCallOptions = {}): Promise<boolean> {
  return (await runGit(repo, ['update-ref', '-d', ref, sha], opts)).code === 0;
}

/** Deletes `ref`; a ref that does not exist is not an error. */
export async function deleteRef(repo: string, ref: string, opts: GitCallOptions = {}): Promise<void> {
  await gitOut(repo, ['update-ref', '-d', ref], opts);
}

/**
 * Refs whose full name starts with `prefix` (a plain string prefix: `refs/bestof/run-1/` and
 * `refs/bestof/run-1/cand-` both work), sorted by name.
 */
export async function listRefs(repo: string, prefix: string, opts: GitCallOptions = {}): Promise<RefInfo[]> {
  // for-each-ref matches whole path components only, so ask for the enclosing hierarchy and filter here.
  const slash = prefix.lastIndexOf('/');
  const hierarchy = slash >= 0 ? prefix.slice(0, slash + 1) : '';
  const args = ['for-each-ref', '--format=%(objectname) %(refname)'];
  if (hierarchy !== '') args.push(hierarchy);
  const out = await gitOut(repo, args, opts);
  const refs: RefInfo[] = [];
  for (const line of splitLines(out)) {
    const space = line.indexOf(' ');
    const sha = line.slice(0, space);
    const ref = line.slice(space + 1);
    if (ref.startsWith(prefix)) refs.push({ ref, sha });
  }
  return refs;
}

/** Local branch names (without `refs/heads/`) starting with `prefix`, e.g. `bestof/run-1/`. */
export async function listBranches(repo: string, prefix: string, opts: GitCallOptions = {}): Promise<string[]> {
  const refs = await listRefs(repo, `refs/heads/${prefix}`, opts);
  return refs.map((r) => r.ref.slice('refs/heads/'.length));
}

/** `git branch -d` (or `-D` with `force`). */
export async function deleteBranch(repo: string, name: string, opts: { force?: boolean; signal?: AbortSignal } = {}): Promise<Result<void>> {
  const run = await runGit(repo, ['branch', opts.force ? '-D' : '-d', name], { signal: opts.signal });
  if (run.code !== 0) {
    return err(`cannot delete branch ${name}: ${gitMessage(run.stderr || run.stdout)}`);
  }
  return ok();
}

/**
 * True when `ancestor` is `descendant` or one of its ancestors (`git merge-base --is-ancestor`).
 * Both must name commits; anything else is a bug and throws.
 */
export async function isAncestor(repo: string, ancestor: string, descendant: string, opts: GitCallOptions = {}): Promise<boolean> {
  const run = await runGit(repo, ['merge-base', '--is-ancestor', ancestor, descendant], opts);
  if (run.code === 0) return true;
  if (run.code === 1) return false;
  throw new Error(`git merge-base --is-ancestor ${ancestor} ${descendant} failed in ${repo}: ${gitMessage(run.stderr)}`);
}

/** How many commits `to` has that `from` has not (`git rev-list --count from..to`). */
export async function commitsSince(repo: string, from: string, to: string, opts: GitCallOptions = {}): Promise<number> {
  return Number((await gitOut(repo, ['rev-list', '--count', `${from}..${to}`], opts)).trim());
}

/** Local branches (names without `refs/heads/`) that contain the commit `sha`. */
export async function branchesContaining(repo: string, sha: string, opts: GitCallOptions = {}): Promise<string[]> {
  // Full ref names: the short name of refs/heads/bestof/<run>/c1 is ambiguous with refs/bestof/<run>/c1.
  const out = await gitOut(repo, ['for-each-ref', '--format=%(refname)', '--contains', sha, 'refs/heads'], opts);
  return splitLines(out).map((ref) => ref.trim().slice('refs/heads/'.length));
}

/** True when some local branch contains `sha` (false also when the commit does not exist). */
export async function isReachableFromAnyBranch(repo: string, sha: string, opts: GitCallOptions = {}): Promise<boolean> {
  const exists = await runGit(repo, ['cat-file', '-e', `${sha}^{commit}`], opts);
  if (exists.code !== 0) return false;
  const out = await gitOut(repo, ['for-each-ref', '--count=1', '--format=%(refname)', '--contains', sha, 'refs/heads'], opts);
  return out.trim() !== '';
}

/** The commit a full ref name (`refs/heads/x`, `refs/bestof/...`) points at, or undefined when it does not exist. */
export async function refCommit(repo: string, ref: string, opts: GitCallOptions = {}): Promise<string | undefined> {
  if (!ref.startsWith('refs/')) throw new Error(`refCommit needs a full ref name, got ${ref}`);
  const run = await runGit(repo, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`], opts);
  const sha = run.stdout.trim();
  return run.code === 0 && sha !== '' ? sha : undefined;
}

/**
 * refCommit of several full ref names, in one git process when they all name a commit: `git
 * rev-parse <a>^{commit} <b>^{commit} --` answers each in order, one line each (then `--`), and fails
 * as a whole when one of them names no commit; then each is asked on its own, as refCommit does,
 * and only the missing ones are undefined. The same peeling as refCommit (`^{commit}`, which reads
 * the object), so a ref that resolves here names a commit that is in the repository.
 */
export async function refCommits(repo: string, refs: readonly string[], opts: GitCallOptions = {}): Promise<(string | undefined)[]> {
  for (const ref of refs) if (!ref.startsWith('refs/')) throw new Error(`refCommits needs full ref names, got ${ref}`);
  if (refs.length < 2) return Promise.all(refs.map((ref) => refCommit(repo, ref, opts)));
  // Every argument starts with `refs/`, so none is taken for an option; `--` ends them, so none is taken for a file either.
  const run = await runGit(repo, ['rev-parse', ...refs.map((ref) => `${ref}^{commit}`), '--'], opts);
  const lines = splitLines(run.stdout);
  const shas = lines.slice(0, refs.length);
  if (run.code === 0 && lines.length === refs.length + 1 && lines[refs.length] === '--' && shas.every(isFullObjectName)) return shas;
  return Promise.all(refs.map((ref) => refCommit(repo, ref, opts)));
}

/** True when `sha` names a commit object of this repository. */
export async function commitExists(repo: string, sha: string, opts: GitCallOptions = {}): Promise<boolean> {
  const run = await runGit(repo, ['cat-file', '-e', `${sha}^{commit}`], opts);
  return run.code === 0;
}

/**
 * Points the full ref `ref` at `to`, only if it still points at `from` (undefined: only if it
 * does not exist): a compare-and-swap, so that a ref someone moves meanwhile is never clobbered.
 */
export async function swapRef(repo: string, ref: string, to: string, from: string | undefined, opts: GitCallOptions = {}): Promise<Result<void>> {
  const zero = '0'.repeat(to.length);
  const run = await runGit(repo, ['update-ref', '--no-deref', ref, to, from ?? zero], opts);
  return run.code === 0 ? ok() : err(`cannot move ${ref} to ${to.slice(0, 10)}: ${gitMessage(run.stderr || run.stdout)}`);
}
