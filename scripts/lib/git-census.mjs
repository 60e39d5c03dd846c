/**
 * Counting the git processes a run starts, per candidate, from the log of a `git` wrapper put first
 * on PATH (bestof and the baseline both find git on PATH).
 *
 * The wrapper writes one line per call: the working folder, then each argument, separated by
 * US (\x1f), newlines inside an argument written as `\n`; a call with `--stdin` has what it read
 * as a last field `stdin:<text>` (so `update-ref --stdin` names the refs and commits it moves). It
 * is used only in an untimed run: a bash process per git call would weigh on the times.
 *
 * A call belongs to a candidate when it names it: `/<tag>/<id>` in its folder or arguments (the
 * candidate's worktree `<worktrees>/<tag>/c3`, its branch `bestof/<tag>/c3`, its kept ref
 * `refs/bestof/<tag>/c3/kept`). A call that names no candidate but a commit that only one
 * candidate's calls name (`git diff --numstat <base> <its commit>`, `git cat-file -e <its commit>`)
 * is that candidate's too. Everything else (the run's own calls: the base, the lock, the prune)
 * is shared. Commits named by several candidates (the base, a tree they share) decide nothing, and
 * the caller names the base, which at one candidate would otherwise look like that candidate's.
 */

const SEPARATOR = '\x1f';

/** The wrapper, a bash script: logs the call to $BESTOF_BENCH_GIT_LOG (one write), then runs `realGit`. */
export function gitWrapperScript(realGit) {
  return [
    '#!/bin/bash',
    '# Logs one line per git call (see scripts/lib/git-census.mjs), then runs the real git.',
    "IFS=$'\\x1f'",
    'line="$PWD"$\'\\x1f\'"$*"',
    // What a `--stdin` call reads (`update-ref --stdin`: the refs and commits it moves) is logged as
    // one more field, `stdin:<text>`, and passed on: such a call names its candidate there.
    'stdin=',
    'for arg in "$@"; do [ "$arg" = --stdin ] && stdin=1; done',
    'if [ -n "$stdin" ]; then input=$(cat; printf x); input=${input%x}; line="$line"$\'\\x1f\'"stdin:$input"; fi',
    "line=${line//$'\\n'/\\\\n}",
    'printf \'%s\\n\' "$line" >> "$BESTOF_BENCH_GIT_LOG"',
    `if [ -n "$stdin" ]; then printf '%s' "$input" | ${JSON.stringify(realGit)} "$@"; exit $?; fi`,
    `exec ${JSON.stringify(realGit)} "$@"`,
    '',
  ].join('\n');
}

/** The wrapper's log as `{ cwd, args }` calls. */
export function parseGitLog(text) {
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [cwd, ...args] = line.split(SEPARATOR);
      return { cwd, args };
    });
}

/** The git subcommand of a call's arguments (after `-c k=v`, `-C dir` and other leading options). */
export function subcommandOf(args) {
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === '-c' || arg === '-C') i++;
    else if (!arg.startsWith('-')) return arg;
  }
  return '(none)';
}

const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const SHA = /\b[0-9a-f]{40}\b/g;

/**
 * Splits `calls` into each candidate's and the shared ones (see the module doc).
 * `tag` is the run id (bestof) or the baseline's tag; `candidates` the ids (`c1`...);
 * `ignoreCommits` commits that identify no candidate (the base).
 */
export function attributeCalls(calls, { tag, candidates, ignoreCommits = [] }) {
  const known = new Set(candidates);
  const naming = new RegExp(`/${escapeRegExp(tag)}/(c\\d+)(?![\\w.-])`, 'g');
  const ignored = new Set(ignoreCommits);
  const texts = calls.map((call) => [call.cwd, ...call.args].join(SEPARATOR));
  const owners = texts.map((text) => {
    const named = new Set([...text.matchAll(naming)].map((m) => m[1]).filter((id) => known.has(id)));
    return named.size === 1 ? [...named][0] : undefined;
  });

  const commitOwners = new Map();
  texts.forEach((text, i) => {
    const owner = owners[i];
    if (owner === undefined) return;
    for (const sha of text.match(SHA) ?? []) {
      if (ignored.has(sha)) continue;
      const set = commitOwners.get(sha) ?? new Set();
      set.add(owner);
      commitOwners.set(sha, set);
    }
  });
  texts.forEach((text, i) => {
    if (owners[i] !== undefined) return;
    const by = new Set();
    for (const sha of text.match(SHA) ?? []) {
      const set = commitOwners.get(sha);
      if (set?.size === 1) by.add([...set][0]);
    }
    if (by.size === 1) owners[i] = [...by][0];
  });

  const perCandidate = new Map(candidates.map((id) => [id, []]));
  const shared = [];
  calls.forEach((call, i) => {
    const owner = owners[i];
    if (owner === undefined) shared.push(call);
    else perCandidate.get(owner).push(call);
  });
  return { perCandidate, shared };
}

/**
 * The census of one run: `total` calls, `shared` ones, calls per candidate (`min`, `max` and the
 * mean, which is what N candidates cost divided by N), and the mean per candidate of each
 * subcommand, most frequent first.
 */
export function summarizeCensus(calls, options) {
  const { perCandidate, shared } = attributeCalls(calls, options);
  const counts = [...perCandidate.values()].map((own) => own.length);
  const bySubcommand = new Map();
  for (const own of perCandidate.values()) {
    for (const call of own) {
      const command = subcommandOf(call.args);
      bySubcommand.set(command, (bySubcommand.get(command) ?? 0) + 1);
    }
  }
  const n = counts.length;
  return {
    total: calls.length,
    shared: shared.length,
    perCandidate: { mean: counts.reduce((a, b) => a + b, 0) / n, min: Math.min(...counts), max: Math.max(...counts) },
    subcommands: [...bySubcommand.entries()].map(([command, count]) => [command, count / n]).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])),
  };
}
