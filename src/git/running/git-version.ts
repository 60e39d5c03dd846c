/**
 * Which git bestof can work with: 2.31 or newer (`git rev-parse --path-format=absolute`, asked at
 * every start, came with 2.31; `git config --show-scope` and `--pathspec-from-file` with 2.26). An
 * older git fails that first call with a usage error, which read as "not a git repository"; a
 * missing one failed as an internal error. Asked only once something failed, never on the way of a
 * run that works.
 */
import { runGit } from './exec.js';

export const MIN_GIT: readonly [number, number] = [2, 31];

const INSTALL_HINT =
  'Debian/Ubuntu: `sudo apt install git` (Debian 11 and Ubuntu 20.04 ship an older one: use backports or the git-core PPA); macOS: `xcode-select --install` or `brew install git`';

/** The version `git --version` prints ("2.39.5"), or undefined when git cannot run. */
export async function gitVersion(): Promise<string | undefined> {
  try {
    // From `/`: the folder bestof runs in may be gone (then git "could not start" there), and no repository's config matters here.
    const run = await runGit('/', ['--version']);
    return /git version (\d+\.\d+(?:\.\d+)?)/.exec(run.stdout)?.[1];
  } catch {
    return undefined;
  }
}

/** What is wrong with the git on PATH for bestof (missing, or older than MIN_GIT), or undefined when nothing is. */
export async function gitProblem(): Promise<string | undefined> {
  const version = await gitVersion();
  const needed = `bestof needs git ${MIN_GIT.join('.')} or newer`;
  if (version === undefined) return `git is not installed or not on PATH: ${needed} (${INSTALL_HINT})`;
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MIN_GIT[0] || (major === MIN_GIT[0] && minor >= MIN_GIT[1])) return undefined;
  return `this git is ${version} (\`git --version\`): ${needed} (${INSTALL_HINT})`;
}
