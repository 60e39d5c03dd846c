// Types of git-census.mjs, for the tests (TypeScript does not check the .mjs itself: no allowJs).

export interface GitCall {
  readonly cwd: string;
  readonly args: readonly string[];
}

export interface AttributeOptions {
  /** The run id (bestof) or the baseline's tag: calls name a candidate as `/<tag>/<id>`. */
  readonly tag: string;
  readonly candidates: readonly string[];
  /** Commits that identify no candidate (the base). */
  readonly ignoreCommits?: readonly string[];
}

export interface CensusSummary {
  readonly total: number;
  readonly shared: number;
  readonly perCandidate: { readonly mean: number; readonly min: number; readonly max: number };
  /** [subcommand, mean calls per candidate], most frequent first. */
  readonly subcommands: readonly (readonly [string, number])[];
}

export function gitWrapperScript(realGit: string): string;
export function parseGitLog(text: string): GitCall[];
export function subcommandOf(args: readonly string[]): string;
export function attributeCalls(calls: readonly GitCall[], options: AttributeOptions): { perCandidate: Map<string, GitCall[]>; shared: GitCall[] };
export function summarizeCensus(calls: readonly GitCall[], options: AttributeOptions): CensusSummary;
