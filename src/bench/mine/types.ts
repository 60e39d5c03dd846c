/**
 * `bestof bench mine`: benchmark tasks mined from a repo's own history (./mine.ts). What one commit
 * comes to (a kept task, or a rejection with its reason), as the journal keeps it
 * (./journal.ts) and mined.json reports it (./mined-report.ts).
 */

/** Why a commit is not a task, in the order mining finds it out. */
export const REJECTION_REASONS = {
  'docs-only': 'changes only documentation or project files (docs, CI, requirements): no code, no test',
  'no-test-change': 'changes source but no test file',
  'no-source-change': 'changes tests but no source file',
  'protected-file': 'changes a file the checks keep as in base (the fix could not be scored)',
  'too-large': 'the fix is larger than --max-diff',
  'setup-failed': 'the tests wrote no report (they did not run)',
  timeout: 'a validation run passed its time limit',
  'no-fail-before': 'nothing fails before the fix: every test passes on the parent with the new tests laid in',
  'fails-after': 'the tests that fail before the fix still fail after it',
  flaky: 'the only tests that tell the fix apart changed outcome between two runs of the fix',
  'breaks-visible': "the fix fails the visible tests (the parent's version of a test it changed)",
} as const;

export type RejectionReason = keyof typeof REJECTION_REASONS;

/** A commit's files as mining sorts them. */
export interface CommitFiles {
  /** Added or modified test files (their version at the commit becomes the hidden tests). */
  readonly tests: readonly string[];
  /** Test files the commit deletes (not laid in: their tests are simply not expected). */
  readonly deletedTests: readonly string[];
  /** Source files: the fix, what an agent must write. */
  readonly source: readonly string[];
  /** Documentation only (never a reason to keep a commit). */
  readonly docs: readonly string[];
  /** Changed files the checks keep as in base (protected or frozen, not tests). */
  readonly protectedChanged: readonly string[];
}

/** A non-merge commit as the walk finds it, newest first. */
export interface MinedCommit {
  readonly sha: string;
  readonly parent: string;
  readonly subject: string;
  /** Subject and body, as written (the task's prompt). */
  readonly message: string;
  /** Author date, ISO. */
  readonly date: string;
}

/** Lines added plus removed, outside the tests (the fix's size). */
export interface FixSize {
  readonly lines: number;
  readonly files: number;
}

export interface KeptTask {
  readonly outcome: 'kept';
  readonly sha: string;
  readonly parent: string;
  readonly subject: string;
  readonly message: string;
  readonly date: string;
  /** The task's id in the bench: `<sha8>-<slug of the subject>`. */
  readonly id: string;
  readonly size: FixSize;
  readonly testFiles: readonly string[];
  readonly deletedTestFiles: readonly string[];
  /** Tests that fail (or are missing) on the parent with the new tests and pass twice at the commit, by name. */
  readonly failToPass: readonly string[];
  /** Tests that pass on the parent with the new tests and twice at the commit. */
  readonly passToPass: readonly string[];
  /** Tests whose outcome changed between the two runs at the commit: left out of both lists. */
  readonly flaky: readonly string[];
  /** Wall time of the validation runs, ms. */
  readonly validationMs: number;
}

export interface RejectedCommit {
  readonly outcome: 'rejected';
  readonly sha: string;
  readonly parent: string | null;
  readonly subject: string;
  readonly date: string;
  readonly reason: RejectionReason;
  /** What exactly (the file, the tests, the run's last lines). */
  readonly detail: string;
  readonly size?: FixSize;
  /** Wall time spent on it, ms (0 when sorted out without running anything). */
  readonly validationMs: number;
}

export type CommitVerdict = KeptTask | RejectedCommit;
