/**
 * What a failed git call was, for the layers above git, which may not import its runners
 * (test/architecture.test.ts): a failure of git's (GitCommandError), and one ended by a signal.
 */
import { GitCommandError } from './exec.js';
import { subcommandOf } from './spawn-git.js';

/** A git command that had to work did not (GitCommandError): a failure of git's, not a bug of bestof's. */
export function isGitFailure(error: unknown): error is GitCommandError {
  return error instanceof GitCommandError;
}

/**
 * A git command ended by a signal it was not sent by bestof (a call bestof aborts rejects with an
 * AbortError instead). A signal to bestof's whole process group (a terminal's Ctrl-C, systemd, a
 * CI runner's or `bestof bench`'s cancel) reaches a git that bestof started in the instant between
 * its fork and its own process group: in a run being cancelled, that is the cancel, not a fault.
 */
export function isGitKilledBySignal(error: unknown): error is GitCommandError {
  return error instanceof GitCommandError && error.run.killedBy !== undefined;
}

/** `git for-each-ref, ended by SIGTERM`: a killed git call in a few words. */
export function killedGitInWords(error: GitCommandError): string {
  return `${['git', subcommandOf(error.args)].filter(Boolean).join(' ')}, ended by ${error.run.killedBy ?? 'a signal'}`;
}
