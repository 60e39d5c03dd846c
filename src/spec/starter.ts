/**
 * The commented spec that `bestof init` writes. It loads as written (a test proves it), so a
 * user who only edits the task and the check commands has a runnable spec. Keys and defaults
 * follow `schema.ts`; optional sections are shown commented out with their defaults.
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { packageRoot } from '../package-root.js';
import { JSON_SCHEMA_PATH } from './reference.js';
import type { ProbedCheck, RepoProbe } from './repo-probe.js';
import { PROMPT_PLACEHOLDER } from './prompt-placeholder.js';

export interface StarterSpecOptions {
  /** The run's name; characters a branch name cannot hold become "-" (e.g. "My App" -> "My-App"). */
  readonly name: string;
  /**
   * Where editors find the spec's JSON Schema, written as the `#:schema` first line (taplo /
   * Even Better TOML read it); none when absent. `bestof init` passes `installedSchemaUrl()`.
   */
  readonly schema?: string;
  /**
   * What `bestof init` found in the repo (./repo-probe.ts): its checks, frozen paths and links
   * are written. Absent or empty: one placeholder check that says what to replace, no frozen path.
   */
  readonly probe?: RepoProbe;
}

/**
 * The JSON Schema of the bestof that is running, as a file:// URL. The spec lives in the
 * user's repo and the schema in the installed package (global, npx cache, node_modules), so
 * no relative path between them is stable: an absolute one, in the package's folder
 * (../package-root.ts). A URL rather than a
 * path because taplo reads the directive as a URL first, and a Windows path ("C:\...") would
 * parse as one with the scheme "c:".
 */
export function installedSchemaUrl(): string {
  return pathToFileURL(join(packageRoot(), JSON_SCHEMA_PATH)).href;
}

export function starterSpec(options: StarterSpecOptions): string {
  const directive =
    options.schema === undefined
      ? ''
      : `#:schema ${options.schema}\n# (the line above lets editors with TOML support, e.g. Even Better TOML, complete and check this file)\n`;
  return `${directive}# bestof spec: one task, several AI agents, the same frozen checks, the best result wins.
# Edit the task and the check commands, then:  bestof validate && bestof run
# (both read ./bestof.toml unless you give them another spec file)
# Paths in this file are relative to this file's folder. Durations: "90s", "15m", "2h".
# Unknown keys are an error, so a typo never passes silently.

name = ${JSON.stringify(runName(options.name))}   # used in run ids and branch names
# repo = "."                     # the git repo to work on (default: the repo that holds this file)
base = "HEAD"                    # the commit every candidate's worktree starts from

# ------------------------------------------------------------------------------------------
# The task: what every candidate is asked to do.
[prompt]
text = """
${PROMPT_PLACEHOLDER}, as you would to a colleague: what to change, where, and how you
will judge it. For example: make \`npm test\` pass without changing the tests.
"""
# file = "prompt.md"             # or keep the task in a file (set either text or file)
# retry_prompt_file = "retry.md" # iteration 2+: gets the failed checks' output appended
# output_file = "artifacts/draft.md" # tells retries where the previous output is

# ------------------------------------------------------------------------------------------
# Each candidate works in a loop: prompt -> agent -> checks -> commit, until a stop rule.
[loop]
max_iterations = 3               # the most passes per candidate (hard limit 100)
score_threshold = 100            # stop a candidate once its score reaches this
allow_regression = true          # false: stop a candidate whose score drops
checkpoint = true                # persist state so \`bestof resume <run>\` continues
duration = "30m"                 # wall-clock limit per candidate
# run_duration = "2h"            # wall-clock limit of the whole run

[budget]
max_total_cost_usd = 10.0        # all candidates together; no new work past it
# max_candidate_cost_usd = 4.0
# warn_at_usd = 6.0

# [breaker]                      # stop a candidate that is going nowhere
# same_failure_iterations = 3    # the same checks fail N times in a row
# error_iterations = 3           # N agent errors in a row
# no_diff_iterations = 3         # N passes that change nothing

# ------------------------------------------------------------------------------------------
# Agents. [provider] holds the defaults; each [[parallel.providers]] entry is one candidate
# (entries are cycled when parallel.candidates is larger than their number).
[provider]
timeout = "15m"                  # limit of one agent invocation; the process tree is killed past it
isolate_config = false           # true: a fresh CLI config folder per run (CI); false: your own login
# args = []                      # extra arguments for the agent's CLI
# env = {}                       # extra environment for the agent

[parallel]
candidates = 3                   # N
max_concurrency = 3              # candidates that run at the same time

[[parallel.providers]]
kind = "claude"                  # Claude Code; kinds: claude | codex | gemini | shannon | command | script
# model = "sonnet"               # default: the CLI's own default model
# permission_mode = "acceptEdits" # the default: edits inside its worktree run unattended, other tools are denied

[[parallel.providers]]
kind = "codex"                   # OpenAI Codex CLI; sandbox = "workspace-write" by default
# model = "gpt-5-codex"

[[parallel.providers]]
kind = "gemini"                  # Google Gemini CLI; approval_mode = "auto_edit" by default
# model = "gemini-2.5-pro"

# Your own agent script:
# [[parallel.providers]]
# kind = "command"
# command = "./agents/my-agent.sh"
# args = ["--prompt-file", "{prompt_file}"]   # also {prompt} {cwd} {model} {iteration} {candidate}

# [providers.claude]             # limits per agent kind, across all candidates
# max_concurrency = 2

# ------------------------------------------------------------------------------------------
# Checks: your commands, run in each candidate's worktree; exit code 0 = pass.
${checksSection(options.probe)}
# ------------------------------------------------------------------------------------------
# Optional: an LLM judge whose verdict carries points.
# [review]
# kind = "claude"
# model = "haiku"
# prompt_file = "review.md"
# score = 30

# Optional: after the final scoring, the candidates (or a jury of other agents) review each
# other's anonymised work and vote; the ranking then combines check scores and votes.
# [vote]
# enabled = true
# method = "borda"               # borda | approval | plurality | pairwise
# weight = 0.5                   # share of the final ranking that votes decide (0..1)

# Optional: phases with their own prompt, iterations and model, run in order.
# [[prompts]]
# name = "implement"
# file = "prompts/implement.md"
# iterations = 2

# ------------------------------------------------------------------------------------------
[select]
min_score = 0                    # a candidate below this never wins
tie_break = ["score", "cost", "diff_size", "duration"]   # how equal candidates are ordered
merge = "branch"                 # leave the winner on a branch to review; or merge | squash | ff | pr | none
# into = "main"                  # branch to merge into (default: the one checked out)

[setup]
commands = []                    # run once in every new worktree, e.g. ["make deps"]
copy = []                        # untracked files copied into each worktree, e.g. [".env"]
${linkLine(options.probe)}# base_port = 4100               # candidate i gets PORT = base_port + i

[git]
auto_commit = true               # one commit per iteration
branch_prefix = "bestof"         # candidate branches are named <prefix>/...
keep_worktrees = false           # true: keep every candidate's worktree after the run
# worktrees = "copy-on-write"    # big repos (Linux): one checkout of base shared by all, a layer per candidate
`;
}

/** `[checks]`: frozen paths and checks found in the repo, or a placeholder that says what to do. */
function checksSection(probe: RepoProbe | undefined): string {
  const checks = probe?.checks ?? [];
  const items =
    checks.length > 0
      ? checks.map((check, index) => checkItem(check, scoreOf(index, checks.length), index === 0)).join('\n')
      : checkItem(
          { name: 'test', command: "echo 'bestof.toml: put your test command here' >&2; exit 1", source: 'nothing found to run: replace it' },
          100,
          true,
        );
  const found =
    probe !== undefined && probe.kinds.length > 0 ? `# Found in this repo: ${probe.kinds.join(', ')}. Drop a check you do not want; add your own.\n` : '';
  return `[checks]
${frozenSetting(probe?.frozen ?? [], probe?.testsFrozen ?? false, (probe?.protected.length ?? 0) > 0)}
${protectedSetting(probe?.protected ?? [])}${editableSetting(probe?.editable ?? [], probe?.kinds.includes('python') ?? false)}

${found}${items}`;
}

/** `frozen = ...`: the tests (and what runs them) found in the repo, or what to put there. */
function frozenSetting(frozen: readonly string[], testsFrozen: boolean, anyProtected: boolean): string {
  if (testsFrozen)
    return `frozen = ${tomlList(frozen)}   # found in this repo; restored from \`base\` before every check run: no candidate can edit its way to a pass`;
  // What runs the tests (a package.json, a Cargo.toml) but no test folder: tests inside the code
  // files (a crate's inline tests) are the candidate's to edit.
  if (frozen.length > 0 || anyProtected) {
    const found = frozen.length > 0 ? `${tomlList(frozen)}   # found in this repo: what runs the tests; ` : '[]                      # ';
    return (
      `frozen = ${found}no test folder found: add your tests (e.g. "tests/**"); tests inside your\n` +
      `${COMMENT_COLUMN}# code files cannot be frozen apart from the code: keep tests the agents never see, run by a check`
    );
  }
  return 'frozen = []                      # add your tests, e.g. ["test/**"]: restored from `base` before every check run, so no candidate can edit its way to a pass';
}

/**
 * `editable = [...]` where init found where the code lives; otherwise commented, as a
 * recommendation (src/spec/repo-probe.ts editableCandidates says why it matters).
 */
function editableSetting(editable: readonly string[], python: boolean): string {
  if (editable.length === 0 && python) {
    // Modules at the root: the one case where init knows what an allow-list would keep out but not where the code is.
    return [
      '# editable = ["app.py", "lib/**"]  # recommended, naming your code: `python3 -m pytest` imports a module added at the root',
      `${COMMENT_COLUMN}# (pluggy.py, argparse.py) before its own, and only an allow-list keeps such a file out`,
    ].join('\n');
  }
  if (editable.length === 0)
    return '# editable = ["src/**"]         # recommended: only these paths may change; changes elsewhere are reverted before scoring and never merged';
  return [
    `${beforeComment(`editable = ${tomlList(editable)}`)}# found in this repo: your code. A change elsewhere is reverted before scoring and never`,
    `${COMMENT_COLUMN}# merged (the candidate can still win), so a file added elsewhere that the test runner`,
    `${COMMENT_COLUMN}# would load earns nothing. Add the paths your task needs to change (docs, other folders)`,
  ].join('\n');
}

/**
 * `protected = [...]`: what the test runner reads (its hooks, its configuration) or skips tests by
 * (a virtual environment's mark, a nested go.mod, a file named as a make target), by name, a block
 * of several lines, commented;
 * nothing where there are none (a repo whose test command init did not recognise).
 */
function protectedSetting(patterns: readonly string[]): string {
  if (patterns.length === 0) return '';
  return [
    'protected = [                    # files that change what the test runner runs, by name, whether or not the repo',
    '  # has it: kept as in `base` like `frozen`, so a candidate that adds or changes one (a hook that turns',
    '  # failures into passes, a config that points the runner elsewhere, a file that hides tests from it)',
    '  # cannot win; drop a name your task needs to change',
    ...chunks(patterns, 4).map((some) => `  ${tomlItems(some)},`),
    ']',
    '',
  ].join('\n');
}

function checkItem(check: ProbedCheck, score: number, explain: boolean): string {
  const pad = (text: string): string => text.padEnd(32);
  return [
    '[[checks.items]]',
    `${pad(`name = ${JSON.stringify(check.name)}`)} # ${explain ? 'shown in the dashboard and the report' : check.source}`,
    `${pad(`command = ${JSON.stringify(check.command)}`)} # ${explain ? `a shell command, run in the candidate's worktree (${check.source})` : 'run in the worktree'}`,
    `${pad(`score = ${score}`)} # ${explain ? "points for passing; the scores of all checks add up to the candidate's score" : 'points for passing'}`,
    ...(check.report === undefined
      ? []
      : [
          `${pad(`report = ${JSON.stringify(check.report)}`)} # ${explain ? 'its test report, read test by test: every test of base must be there and pass (an early exit fails)' : 'tests counted by name'}`,
        ]),
    ...(explain
      ? [`${pad('timeout = "10m"')} # the check fails past this`, '# from_iteration = 1             # curriculum: the check counts from this iteration on']
      : []),
    '',
  ].join('\n');
}

/** 100 points in all: the first check (the tests) 70 when there are others, the rest shared. */
function scoreOf(index: number, count: number): number {
  if (count === 1) return 100;
  if (index === 0) return 70;
  const share = Math.floor(30 / (count - 1));
  return index === count - 1 ? 30 - share * (count - 2) : share;
}

function linkLine(probe: RepoProbe | undefined): string {
  const link = probe?.link ?? [];
  return link.length > 0
    ? `${beforeComment(`link = ${tomlList(link)}`)}# shared into each worktree as a link (read-only to sandboxed agents): the fastest way, no copy\n`
    : '# link = ["node_modules"]        # untracked folders shared into each worktree as a link (read-only to sandboxed agents), faster than copy\n';
}

/** Where the starter's comments start (a setting longer than that gets one space before its comment). */
const COMMENT_COLUMN = ' '.repeat(33);

function beforeComment(setting: string): string {
  return setting.length < COMMENT_COLUMN.length ? setting.padEnd(COMMENT_COLUMN.length) : `${setting} `;
}

function tomlList(items: readonly string[]): string {
  return `[${tomlItems(items)}]`;
}

function tomlItems(items: readonly string[]): string {
  return items.map((item) => JSON.stringify(item)).join(', ');
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Makes any text a valid run name, so the starter always loads (e.g. "My App" -> "My-App"). */
function runName(name: string): string {
  const cleaned = name
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 60);
  return cleaned === '' ? 'bestof' : cleaned;
}
