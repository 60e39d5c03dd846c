/**
 * Every config entry git reads in a repository, as git prints it (`git config --list -z`): the
 * system, global, local and worktree scopes, the files they include and the `-c` of the
 * environment (`GIT_CONFIG_PARAMETERS`). The run reads it once as it starts, for the secrets the
 * user keeps there (src/engine/sandbox/git-config-secrets.ts), before any agent could have written them.
 */
import { runGit, type GitCallOptions } from './exec.js';

/**
 * `key\nvalue` entries, each ended by a NUL (a key set without a value has no `\n`); empty when
 * git cannot read the config (a broken file: every other git call of the run fails on it too).
 */
export async function configListing(repo: string, opts: GitCallOptions = {}): Promise<string> {
  const run = await runGit(repo, ['config', '--list', '-z'], opts);
  return run.code === 0 ? run.stdout : '';
}
