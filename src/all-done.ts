/**
 * Promise.all that settles only once every promise has: with the first rejection when any
 * rejected. Promise.all rejects at the first failure while the other steps still run, and a
 * caller's clean-up (the scoring tree's put-back, which moves leftovers back) would then race
 * the steps it is meant to undo (moving leftovers aside). Steps started together that touch the
 * worktree are awaited with this.
 */
export async function allDone<T extends readonly unknown[]>(steps: { readonly [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(steps);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}
