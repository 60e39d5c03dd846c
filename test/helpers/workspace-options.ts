/**
 * The options of one candidate's workspace (src/engine/workspace/workspace.ts) for tests: candidate c1 of
 * run r1, its worktree and run folder under `outside` (a temp folder), no copy, link or command
 * unless the test gives them.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { WorkspaceOptions } from '../../src/engine/workspace/workspace.js';

export const WORKSPACE_BRANCH = 'bestof/r1/c1';
export const WORKSPACE_KEPT_REF = 'refs/bestof/r1/c1/kept';

export interface WorkspaceFixture {
  readonly worktree: string;
  readonly runDir: string;
  /** The options, with `overrides` over the bare ones. */
  readonly options: (overrides?: Partial<WorkspaceOptions>) => WorkspaceOptions;
}

export function workspaceFixture(repoRoot: string, baseCommit: string, outside: string): WorkspaceFixture {
  const worktree = join(outside, 'worktrees', 'r1', 'c1');
  const runDir = join(outside, 'run');
  mkdirSync(runDir, { recursive: true });
  const options = (overrides: Partial<WorkspaceOptions> = {}): WorkspaceOptions => ({
    mode: 'new',
    repoRoot,
    worktree,
    branch: WORKSPACE_BRANCH,
    baseCommit,
    keptRef: WORKSPACE_KEPT_REF,
    copy: [],
    commands: [],
    commandTimeoutMs: 30_000,
    env: process.env,
    logFile: join(runDir, 'setup.log'),
    setupPathsFile: join(runDir, 'setup-paths.json'),
    signal: new AbortController().signal,
    ...overrides,
  });
  return { worktree, runDir, options };
}
