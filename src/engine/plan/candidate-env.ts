/**
 * The environments a candidate's processes get: the agent's (also its setup commands'), and the
 * checks' (also the reviewer's), which never see the agent's extra env. Both carry the run's key
 * (BESTOF_RUN_KEY), by which the processes of a killed bestof are found (../sandbox/leftovers.ts).
 */
import { delimiter, dirname, isAbsolute, resolve, sep } from 'node:path';
import { RUN_KEY_VAR } from '../sandbox/leftovers.js';
import { toolchainHomes } from '../sandbox/toolchain-homes.js';
import { worktreesRoot, type CandidatePlan, type RunPlan } from './plan.js';

export function candidateEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return {
    ...process.env,
    // Where rustup's proxies (`~/.cargo/bin/cargo`, `rustc`) find the toolchains: in the sandbox
    // HOME is the agent's own, and the sandbox binds this folder back read-only (../sandbox/agent-sandbox.ts).
    // Cargo's own home stays the agent's: it writes its downloads there.
    ...toolchainHomes(['RUSTUP_HOME']),
    ...candidate.settings.env,
    BESTOF_RUN: plan.runId,
    [RUN_KEY_VAR]: plan.runKey,
    BESTOF_CANDIDATE: candidate.id,
    BESTOF_INDEX: String(candidate.index),
    // No BESTOF_RUN_DIR: the run folder is the record, and agents get neither its path nor (in the sandbox) a view of it.
    PORT: String(candidate.port),
  };
}

/**
 * Environment of the checks (and the reviewer): the user's, plus the candidate's identity and port,
 * never the agent's extra env; and a PATH that nothing a candidate can write shadows: the user's
 * PATH minus relative entries (`.`, empty: they would mean the worktree) and minus any entry inside
 * the worktree or the worktrees root. The checks' HOME is a fresh empty folder per scoring, made by
 * src/engine/scoring/score.ts (the reviewer, an agent CLI, keeps the user's HOME for its login).
 *
 * Toolchain homes stay the user's (RUSTUP_HOME, CARGO_HOME, GOPATH when they exist), so that a
 * fresh HOME does not lose the installed toolchains and caches; their config files are the user's
 * as well: the checks' sandbox shows them read-only (../sandbox/agent-sandbox.ts checkSandbox), and without
 * it a check's code can write them.
 *
 * What this cannot protect: a runner that puts folders of the worktree on PATH by itself (`npm test`
 * prepends every `node_modules/.bin` from the worktree up), or loads files from it (pytest's
 * `conftest.py`, Python's `sitecustomize.py`, `.npmrc`, `.cargo/config.toml`). Untracked and ignored
 * files there are moved aside before the checks (src/checks/scoring-tree.ts); what a candidate
 * committed is its work, and `[checks] editable` is the way to keep such files out of it.
 */
export function checkEnv(plan: RunPlan, candidate: CandidatePlan): Record<string, string | undefined> {
  return {
    ...process.env,
    ...toolchainHomes(['RUSTUP_HOME', 'CARGO_HOME', 'GOPATH']),
    PATH: unshadowablePath(process.env.PATH ?? '', [candidate.worktree, worktreesRoot(plan.repoRoot), dirname(dirname(candidate.worktree))]),
    BESTOF_RUN: plan.runId,
    [RUN_KEY_VAR]: plan.runKey,
    BESTOF_CANDIDATE: candidate.id,
    BESTOF_INDEX: String(candidate.index),
    PORT: String(candidate.port),
  };
}

/** `path` without relative entries and without entries inside any of `writable` (absolute folders). */
export function unshadowablePath(path: string, writable: readonly string[]): string {
  const roots = writable.map((w) => resolve(w));
  return path
    .split(delimiter)
    .filter((entry) => entry !== '' && isAbsolute(entry))
    .filter((entry) => !roots.some((root) => resolve(entry) === root || resolve(entry).startsWith(root + sep)))
    .join(delimiter);
}
