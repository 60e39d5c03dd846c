/** One file's content as a commit holds it, for the vote's `material = "file"`. */
import { runGit, gitMessage, type GitCallOptions } from './exec.js';
import { err, ok, type Result } from '../../result.js';

/** `git show <commit>:<path>`; an error (the file is not in the commit) says which file and commit. */
export async function showFile(repo: string, commit: string, path: string, opts: GitCallOptions = {}): Promise<Result<string>> {
  const shown = await runGit(repo, ['show', '--no-color', '--no-textconv', `${commit}:${path.replace(/^\.\//, '')}`], opts);
  return shown.code === 0 ? ok(shown.stdout) : err(`${path} is not in commit ${commit.slice(0, 10)}: ${gitMessage(shown.stderr)}`);
}

/** Whether `commit` holds a file or folder at `path` (`git cat-file -e <commit>:<path>`). */
export async function pathInCommit(repo: string, commit: string, path: string, opts: GitCallOptions = {}): Promise<boolean> {
  const found = await runGit(repo, ['cat-file', '-e', `${commit}:${path.replace(/^\.\//, '')}`], opts);
  return found.code === 0;
}
