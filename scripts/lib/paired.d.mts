// Types of paired.mjs, for the tests (TypeScript does not check the .mjs itself: no allowJs).

export interface RatioSummary {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface PairSummary {
  readonly rounds: number;
  /** The median of the reference times. */
  readonly reference: number;
  /** The median of the measured times. */
  readonly measured: number;
  /** measured / reference, per round, in round order. */
  readonly ratios: readonly number[];
  readonly ratio: RatioSummary;
}

export interface Round<T> {
  readonly round: number;
  readonly order: readonly [string, string];
  readonly results: Record<string, T>;
}

export function median(values: readonly number[]): number;
export function alternatedOrder<S>(round: number, sides: readonly S[]): [S, S];
export function runAlternated<T>(rounds: number, runs: Record<string, (round: number) => Promise<T>>, onRound?: (round: Round<T>) => void): Promise<Round<T>[]>;
export function summarizePairs(pairs: readonly { readonly reference: number; readonly measured: number }[]): PairSummary;
export function formatRatio(ratio: RatioSummary): string;
export function parseCountList(option: string, raw: string, max?: number): number[];
