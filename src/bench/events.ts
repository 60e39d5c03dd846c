/**
 * What a running bench tells its front ends (the plain lines of `bestof bench`, the Ink matrix
 * view): one typed union, as RunEvent is for a run. The engine of the bench (./run-bench.ts)
 * emits them in order; a front end folds them and never reaches back into the bench.
 */
import type { BenchMatrix, Cell, Shard, TrialRecord } from './types.js';

export type BenchEvent =
  | {
      readonly type: 'bench.started';
      readonly bench: string;
      readonly matrix: BenchMatrix;
      readonly shard: Shard | null;
      /** The cells this run will record, in matrix order (the shard's slice, or all). */
      readonly cells: readonly Cell[];
      /** Cells recorded by an earlier run of this bench (`--resume`): not run again. */
      readonly done: readonly TrialRecord[];
      readonly concurrency: number;
      readonly outDir: string;
      /** Epoch ms. */
      readonly at: number;
    }
  | { readonly type: 'trial.started'; readonly cell: Cell; readonly at: number }
  | { readonly type: 'trial.finished'; readonly record: TrialRecord; readonly at: number }
  | { readonly type: 'bench.finished'; readonly cancelled: boolean; readonly at: number };

export type BenchEventListener = (event: BenchEvent) => void;
