/** A repository's git dirs as seen from a folder in it: the shared one and the worktree's own (the same for a main checkout). */
export interface GitDirs {
  readonly commonDir: string;
  readonly gitDir: string;
}
