/**
 * `--shard i/n`: which cells one CI runner runs.
 *
 * Cells are dealt round-robin in matrix order: the cell at index j (0-based, see matrix.ts)
 * belongs to shard (j mod n) + 1. Contiguous blocks would give one runner every trial of the
 * slowest task; dealing spreads each task's trials, so shards differ by at most one cell and,
 * on average, by little time. The slice depends on the matrix alone (no clock, no seed), so
 * every runner computes the same partition, and the n slices are disjoint and cover the matrix.
 * n may exceed the number of cells: the extra shards are empty, which is not an error (a CI
 * matrix is often fixed while the bench grows).
 */
import { err, ok, type Result } from '../result.js';
import { allCells } from './matrix.js';
import type { BenchMatrix, Cell, Shard } from './types.js';

const SHARD_TEXT = /^\s*(\d+)\s*\/\s*(\d+)\s*$/;

/** Reads `i/n` (1 <= i <= n). The message says what was wrong and the form to use. */
export function parseShard(text: string): Result<Shard> {
  const m = SHARD_TEXT.exec(text);
  if (m === null) return err(`--shard ${JSON.stringify(text)} is not a shard: write it as i/n, e.g. --shard 2/3 for the second of three shards`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(count))
    return err(`--shard ${text.trim()}: the numbers are too large; write i/n with small whole numbers, e.g. --shard 2/3`);
  if (count < 1) return err(`--shard ${text.trim()}: the number of shards must be at least 1; write i/n with n >= 1, e.g. --shard 1/1 for the whole bench`);
  if (index < 1 || index > count)
    return err(
      `--shard ${text.trim()}: the shard number must be between 1 and ${count}; shards are numbered from 1, e.g. --shard 1/${count} to --shard ${count}/${count}`,
    );
  return ok({ index, count });
}

export function formatShard(shard: Shard): string {
  return `${shard.index}/${shard.count}`;
}

/** The shard (1-based) that the cell at matrix index `index` belongs to. */
export function shardOfIndex(index: number, count: number): number {
  return (index % count) + 1;
}

/** The cells shard `i/n` runs, in matrix order. */
export function cellsOfShard(matrix: BenchMatrix, shard: Shard): Cell[] {
  return allCells(matrix).filter((_, j) => shardOfIndex(j, shard.count) === shard.index);
}
