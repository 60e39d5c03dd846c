/**
 * A repository's git dirs as seen from a folder in it: the shared one and the worktree's own (the
 * same for a main checkout). A module of its own so that git's runner (exec.ts) and the policy it
 * applies (driver-overrides.ts) both name it without importing each other.
 */
export interface GitDirs {
  readonly commonDir: string;
  readonly gitDir: string;
}
