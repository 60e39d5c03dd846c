/**
 * `bestof clean` and copy-on-write worktrees (src/git/worktrees/cow-worktree.ts) that a killed run left:
 * their changes are in layers on disk, and outside a mount namespace their folders hold only the
 * `.git` file, where git would see every file deleted. So clean, like the run, runs itself again
 * in a mount namespace (src/process/namespace.ts), mounts each such worktree again over the run's
 * base checkout, and then saves and removes it as a plain one; the base checkout and the layers go
 * last. Where the namespace cannot be had, those worktrees are kept, and clean says where the
 * changes are.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { prepareCowBase, remountCowWorktree, removeCowBase, removeCowWorktree } from '../../git/worktrees/cow-worktree.js';
import { cowBaseDir, cowDir, cowLayerDir, isCowWorktree } from '../workspace/cow-layout.js';
import { insideMountNamespace, namespaceMounts, runAgainInMountNamespace } from '../../process/namespace.js';
import { overlayAvailable } from '../../process/overlay-holder.js';
import type { Result } from '../../result.js';
import { err, ok } from '../../result.js';

/** How clean deals with copy-on-write worktrees: none to deal with, mounts here, cannot (why), or ran inside a namespace (its exit code). */
export type CleanCowMode =
  | { readonly kind: 'none' | 'mount' }
  | { readonly kind: 'unavailable'; readonly why: string }
  | { readonly kind: 'ran-inside'; readonly exitCode: number };

/** `worktrees`: the worktree folders of the runs clean is about to handle. */
export async function cleanCowMode(worktrees: readonly string[], dryRun: boolean): Promise<CleanCowMode> {
  if (!worktrees.some(isCowWorktree)) return { kind: 'none' };
  if (insideMountNamespace()) return { kind: 'mount' };
  const probe = await overlayAvailable();
  if (!probe.ok) return { kind: 'unavailable', why: probe.reason };
  if (dryRun) return { kind: 'mount' }; // says what it would do; mounts nothing
  const ran = await runAgainInMountNamespace();
  return ran.ok ? { kind: 'ran-inside', exitCode: ran.value } : { kind: 'unavailable', why: ran.error };
}

/** Mounts a dead run's copy-on-write worktree again (its base checkout made again if it is gone). */
export async function mountForClean(repoRoot: string, worktree: string, branch: string, baseCommit: string): Promise<Result<void>> {
  const lower = cowBaseDir(worktree);
  const base = await prepareCowBase(repoRoot, lower, baseCommit);
  if (!base.ok) return base;
  const mounted = await remountCowWorktree(repoRoot, { path: worktree, branch, lower, layer: cowLayerDir(worktree), holder: namespaceMounts });
  return mounted.ok ? ok() : err(`cannot mount it again: ${mounted.error}`);
}

/** Removes a mounted copy-on-write worktree and its layer (its work saved before). */
export function removeForClean(repoRoot: string, worktree: string): Promise<Result<void>> {
  return removeCowWorktree(repoRoot, { path: worktree, layer: cowLayerDir(worktree), holder: namespaceMounts });
}

/** The run's base checkout and `.cow` folder, once no layer of the run is left. `worktrees`: the run's. */
export async function removeRunCowBase(repoRoot: string, worktrees: readonly string[]): Promise<Result<boolean>> {
  const first = worktrees[0];
  if (first === undefined || !existsSync(cowDir(first))) return ok(false);
  if (worktrees.some(isCowWorktree)) return ok(false);
  const removed = await removeCowBase(repoRoot, cowBaseDir(first));
  if (!removed.ok) return removed;
  await rm(cowDir(first), { recursive: true, force: true });
  return ok(true);
}

/** Where a copy-on-write worktree's changes are, for a message. */
export function changesFolder(worktree: string): string {
  return join(cowLayerDir(worktree), 'upper');
}
