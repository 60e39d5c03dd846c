/**
 * Files that run code in the user's checkout after the merge, with nobody running the project on
 * purpose: direnv's `.envrc` when a shell enters the folder, an editor's tasks when the folder is
 * opened, git hook managers on the next commit, CI on the next push (with the repository's
 * secrets), git LFS and submodule settings on the next fetch. A candidate's checks never run
 * them, so its score says nothing of what they do; a winner that adds or changes one is named as
 * such in the ranking, the report and the merge line, and `[select] allow_autorun = false` makes
 * it unable to win.
 *
 * Pure: the patterns and the words; the selection phase asks git which of them a candidate's final
 * commit changes (src/engine/run/stages/selection.ts).
 */

/** Git pathspec globs, as `[checks] frozen` takes them (src/checks/frozen.ts), each with what runs it. */
export const AUTORUN_PATTERNS: readonly string[] = [
  '**/.envrc', // direnv runs it when a shell enters the folder
  '.vscode/tasks.json', // VS Code runs its `runOn: folderOpen` tasks when the folder is opened
  '.vscode/settings.json', // VS Code settings can name programs it starts (terminal profiles, linters, formatters)
  '**/*.code-workspace', // a VS Code workspace holds tasks and settings like .vscode/
  '.idea/**', // JetBrains IDEs run its startup tasks and external tools
  '.devcontainer/**', // a dev container runs its commands when the folder is opened in it
  '.lfsconfig', // git lfs reads it on every fetch and push (it can name another server)
  '.gitmodules', // git submodule update clones what it names
  '.husky/**', // husky installs them as git hooks: they run on your next commit
  '.githooks/**', // a folder of git hooks (core.hooksPath)
  '.pre-commit-config.yaml', // pre-commit runs the hooks it names on your next commit
  '**/lefthook*.yml', // lefthook runs the hooks it names
  '**/.lefthook*.yml', // lefthook runs the hooks it names
  '.github/workflows/**', // CI runs it on the next push, with the repository's secrets
  '.github/actions/**', // CI runs these actions
  '.gitlab-ci.yml', // CI runs it on the next push, with the repository's secrets
  '.circleci/**', // CI runs it on the next push, with the repository's secrets
  '.travis.yml', // CI runs it on the next push
  'azure-pipelines.yml', // CI runs it on the next push
  'Jenkinsfile', // CI runs it on the next push
  '**/.mise.toml', // mise runs its hooks and loads its env when a shell enters the folder
  '**/mise.toml', // mise runs its hooks and loads its env when a shell enters the folder
];

/** The spec key that makes such a candidate unable to win. */
export const ALLOW_AUTORUN_KEY = 'select.allow_autorun';

/** One line for a candidate that adds or changes such files: which, and that they run code. */
export function describeAutorun(paths: readonly string[]): string {
  return `adds or changes files that run code in your checkout without being asked (${paths.join(', ')}): read them before you open the folder, commit or push`;
}
