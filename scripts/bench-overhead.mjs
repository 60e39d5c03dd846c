#!/usr/bin/env node
/**
 * bestof against a careful bash script doing the same job, at the same concurrency.
 *
 *   node scripts/bench-overhead.mjs [--files 500,5000] [--candidates 1,8] [--repeat 3]
 *                                   [--concurrency N] [--no-sandbox-cost] [--no-store-cost] [--no-census] [--worktrees copy-on-write] [--floor]
 *   npm run bench:overhead                     (needs the build: npm run build)
 *   node scripts/bench-overhead.mjs --files 500,5000,50000 --candidates 1,8,64   (the whole matrix:
 *                                   50,000 files and 64 candidates take minutes per round)
 *
 * For each repo size (`--files`): in a temp folder, a git repo of that many small files spread
 * over folders (one commit). For each candidate count N (`--candidates`): a spec with N "instant"
 * script candidates (one step that writes one file), one trivial check (`true`), merge = "branch"
 * and `[parallel] max_concurrency` = `--concurrency` (default: bestof's own default).
 *
 * The baseline (BASELINE_SCRIPT below) is a bash script that runs, for each candidate and
 * `--concurrency` candidates at a time (`xargs -P`), the steps bestof must take, as a careful
 * script would (with one candidate at a time, where nothing races, it makes each worktree with
 * one `git worktree add -b` and removes it with one `git worktree remove`, which is cheaper):
 *   git worktree add --no-checkout -b <branch> <path> HEAD    a new branch from the base (one at a time)
 *   git reset --hard                            its checkout, in parallel with the others'
 *   the agent's write                           one file, in the worktree
 *   git add -A; git commit                      in the worktree
 *   the check                                   `sh -c true` in the worktree (bestof runs checks through a shell)
 *   git update-ref <kept ref> HEAD              the candidate's kept ref
 *   rm -rf <path>; git worktree prune           its files, then its record (one at a time)
 * that is 6 git processes per candidate. The two steps that write git's worktree records run under
 * a lock (`flock`), as bestof's do: two at once race inside git (one reads the other's half-written
 * `commondir`, a removal deletes `.git/worktrees` under an add; 4 of 30 tries of 8 candidates, 4 at
 * a time, failed so with git 2.39, `git worktree add` and `remove` unlocked); the checkout and the
 * deletion of the files, the slow parts, run outside it, in parallel, as bestof's do. What bestof
 * does beyond them, and the baseline does not: the guards (the untracked listing after the setup,
 * a snapshot of the branches and `refs/replace` before the agent and the worktree's git files
 * checked after it, the commit filter over `git status`, the checks that nothing unsaved is left
 * before a worktree goes), the frozen restore (HEAD detached at the commit, the scoring tree
 * prepared before the checks), the put-back after the checks (`reset --hard` + `clean`), the
 * reword of the commit with its score (`commit-tree` + `update-ref`), the identity read for each
 * commit, the look-up of the repository's own drivers once per folder (`git config
 * --show-scope`), the diff stat, the event log, state.json, the reports and the ranking; and it
 * removes the worktrees at the end of the run (after the selection) where the baseline removes
 * each one as soon as its candidate is done.
 * The count of each side's git processes is measured, not assumed (below).
 *
 * Each cell (size x N) starts with an untimed run of each side with a `git` wrapper first on PATH
 * that logs every call (scripts/lib/git-census.mjs): the git processes per candidate and shared,
 * and bestof's per candidate by subcommand. It also warms the caches for the timed rounds.
 * `--no-census` skips it (the count is then "not counted"): at 50,000 files x 64 candidates it is
 * two more whole runs, each side's 64 checkouts of 50,000 files, which nothing else needs.
 *
 * Then `--repeat` rounds: the baseline and bestof one after the other, the baseline first in odd
 * rounds and bestof first in even ones, each timed with performance.now() around its process;
 * leftover branches, refs and worktrees removed between runs, and bestof's deletion of its removed
 * worktrees' files, which goes on after it exits, waited for (untimed). The result of a cell is
 * each side's median and the median of the per-round ratios bestof/baseline with their minimum
 * and maximum (scripts/lib/paired.mjs), and a phase breakdown: bestof's from its events.jsonl,
 * the baseline's from timestamps it takes itself (bash's $EPOCHREALTIME, no process).
 *
 * The Node floor (`--floor`): after a cell's rounds, `--repeat` more alternated rounds of the
 * baseline against scripts/lib/node-floor.mjs, a Node program that does the baseline's steps one
 * for one, each process started with Node's `spawn` from its main thread, as bestof starts its
 * own, and nothing else (no module of bestof's). floor / baseline is what Node itself costs (its
 * start; its `spawn`, which forks the whole Node process where bash forks a small one); bestof /
 * floor, derived from the two paired medians (they come from different rounds), is what bestof's
 * own work costs. An aim below the floor cannot be met by any Node program that does this work.
 *
 * The sandbox's cost per agent call (`--no-sandbox-cost` skips it): at the first size, with
 * N = the largest count of `--candidates` but at most 8, `--repeat` alternated pairs of bestof runs
 * with a `command` agent (a process that writes one file) instead of the in-process script, one
 * with `[sandbox] mode = "off"` and one with "required"; the agent calls' durations
 * (provider.finished) are compared, median over all calls. Needs bubblewrap; without it the
 * section says so.
 *
 * The object store's guards (`--no-store-cost` skips it): at every size, in a worktree of the
 * fixture repo, `--repeat` x 5 alternated rounds of three steps, each timed alone: the baseline, a
 * `git status --porcelain` (one git process that looks at every file, which every candidate's commit
 * step pays anyway); the git scratch an agent call gets in the sandbox (dist/git/guards/agent-git-scratch.js:
 * emptied, an alternates file, a copy of the index); and the content comparison of the kept files
 * before the checks (dist/git/guards/content-check.js) with every file of the repo kept, the worst case (a
 * spec keeps its tests, a part of them). Medians, and each as a ratio to the baseline.
 *
 * These are shared machines: the exit code never depends on the ratios; non-zero means
 * something failed (a run, a leftover, a missing event).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { gitWrapperScript, parseGitLog, summarizeCensus } from './lib/git-census.mjs';
import { formatRatio, median, parseCountList, runAlternated, summarizePairs } from './lib/paired.mjs';
import { writeFixtureFiles } from './lib/fixture-files.mjs';
import { untilDeletedAfterTheRun } from './lib/bench-git.mjs';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BESTOF_BIN = join(PROJECT, 'bin', 'bestof.js');
const NODE_FLOOR = join(PROJECT, 'scripts', 'lib', 'node-floor.mjs');
const MAX_CANDIDATES = 64;
const SANDBOX_MAX_CANDIDATES = 8;
const AGENT_OUTPUT = 'written by an instant candidate\n';

// ---------------------------------------------------------------------------------------------
// Arguments

const USAGE =
  'usage: node scripts/bench-overhead.mjs [--files 500,5000] [--candidates 1,8] [--repeat 3] [--concurrency N] [--no-sandbox-cost] [--no-store-cost] [--no-census] [--worktrees plain|copy-on-write] [--floor]\n';

function positiveInt(option, raw, max) {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1 || n > max) throw new Error(`--${option}: expected a whole number from 1 to ${max}, got ${JSON.stringify(raw)}`);
  return n;
}

/** `--worktrees plain|copy-on-write`: bestof's `[git] worktrees` (the baseline always makes plain worktrees). */
function worktreesOption(raw) {
  if (raw !== 'plain' && raw !== 'copy-on-write') throw new Error(`--worktrees: expected plain or copy-on-write, got ${JSON.stringify(raw)}`);
  return raw;
}

function readOptions(defaultConcurrency) {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '500,5000' },
      candidates: { type: 'string', default: '1,8' },
      repeat: { type: 'string', default: '3' },
      concurrency: { type: 'string' },
      'no-sandbox-cost': { type: 'boolean', default: false },
      'no-store-cost': { type: 'boolean', default: false },
      'no-census': { type: 'boolean', default: false },
      worktrees: { type: 'string', default: 'plain' },
      floor: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write(USAGE);
    process.exit(0);
  }
  const repeat = positiveInt('repeat', values.repeat, 1000);
  const concurrency = values.concurrency === undefined ? defaultConcurrency : positiveInt('concurrency', values.concurrency, MAX_CANDIDATES);
  return {
    files: parseCountList('files', values.files),
    candidates: parseCountList('candidates', values.candidates, MAX_CANDIDATES),
    repeat,
    concurrency,
    concurrencyIsDefault: values.concurrency === undefined,
    sandboxCost: !values['no-sandbox-cost'],
    storeCost: !values['no-store-cost'],
    census: !values['no-census'],
    worktrees: worktreesOption(values.worktrees),
    floor: values.floor === true,
  };
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Children running now, so that a Ctrl-C or a kill of the benchmark ends their process groups too. */
const children = new Set();

/** Runs a program to completion; resolves with its exit code, output and wall time (never rejects on exit codes). */
function run(command, args, { cwd, env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const stdout = [];
    const stderr = [];
    const startedAtMs = Date.now();
    const started = performance.now();
    // Its own process group, killed as a whole on a signal (see onSignal in main).
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    children.add(child);
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', (error) => {
      children.delete(child);
      reject(error);
    });
    child.on('close', (code, signal) => {
      children.delete(child);
      const ms = performance.now() - started;
      resolvePromise({
        code,
        signal,
        ms,
        startedAtMs,
        endedAtMs: startedAtMs + ms,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
      });
    });
  });
}

function killChildren() {
  for (const child of children) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}

function describeFailure(what, result) {
  const how = result.signal ? `was killed by ${result.signal}` : `exited with code ${result.code}`;
  return [`${what} ${how}`, '--- stdout ---', result.stdout.trimEnd(), '--- stderr ---', result.stderr.trimEnd()].join('\n');
}

/** Runs git and returns stdout; any non-zero exit is a failure of the benchmark. */
async function git(cwd, args) {
  const result = await run('git', args, { cwd });
  if (result.code !== 0) throw new Error(describeFailure(`git ${args.join(' ')} (in ${cwd})`, result));
  return result.stdout;
}

// ---------------------------------------------------------------------------------------------
// Fixtures

async function createRepo(repo, files) {
  mkdirSync(repo, { recursive: true });
  await git(repo, ['init', '--quiet', '--initial-branch=main']);
  // Local identity and settings, so that the user's global config neither breaks nor slows the commits.
  const config = [
    ['user.name', 'bench'],
    ['user.email', 'bench@localhost'],
    ['gc.auto', '0'],
    ['maintenance.auto', 'false'],
    ['commit.gpgsign', 'false'],
    ['core.autocrlf', 'false'],
  ];
  for (const [key, value] of config) await git(repo, ['config', key, value]);
  writeFixtureFiles(repo, files);
  writeFileSync(join(repo, 'README.md'), '# bench fixture\n');
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '--quiet', '--no-verify', '-m', 'fixture']);
  const tracked = (await git(repo, ['ls-files'])).split('\n').filter(Boolean).length;
  if (tracked !== files + 1) throw new Error(`fixture repo: expected ${files + 1} tracked files, found ${tracked}`);
}

/** A TOML basic string (JSON's escapes are a subset of TOML's for the characters paths contain). */
const tomlString = (text) => JSON.stringify(text);

/**
 * A spec of N candidates on `repo`, written in `dir`. The agent is the in-process "instant" script
 * (`agent: 'script'`) or a `command` process that writes the same file (`agent: 'command'`, for the
 * sandbox pair, with `[sandbox] mode = sandbox`).
 */
function writeSpec(dir, { name, repo, candidates, concurrency, agent = 'script', sandbox, worktrees = 'plain' }) {
  mkdirSync(dir, { recursive: true });
  const provider = [];
  if (agent === 'script') {
    writeFileSync(
      join(dir, 'instant.toml'),
      ['# An "instant" candidate: one step that writes one file.', '[[steps]]', 'write = "bench-output.txt"', `content = ${tomlString(AGENT_OUTPUT)}`, ''].join(
        '\n',
      ),
    );
    provider.push('kind = "script"', 'script = "instant.toml"');
  } else {
    const command = join(dir, 'agent.sh');
    writeFileSync(command, `#!/bin/sh\nprintf ${shellQuote(AGENT_OUTPUT.replace('\n', '\\n'))} > bench-output.txt\n`, { mode: 0o755 });
    provider.push('kind = "command"', `command = ${tomlString(command)}`);
  }
  const spec = join(dir, `${name}.toml`);
  writeFileSync(
    spec,
    [
      `name = ${tomlString(name)}`,
      `repo = ${tomlString(repo)}`,
      '',
      '[prompt]',
      'text = "Write one file."',
      '',
      '[parallel]',
      `candidates = ${candidates}`,
      `max_concurrency = ${concurrency}`,
      '',
      '[provider]',
      ...provider,
      '',
      '[[checks.items]]',
      'name = "trivial"',
      'command = "true"',
      'score = 1',
      '',
      ...(sandbox ? ['[sandbox]', `mode = ${tomlString(sandbox)}`, ''] : []),
      ...(worktrees !== 'plain' ? ['[git]', `worktrees = ${tomlString(worktrees)}`, ''] : []),
      '[select]',
      'merge = "branch"',
      '',
    ].join('\n'),
  );
  return spec;
}

const shellQuote = (text) => `'${text.replace(/'/g, `'\\''`)}'`;

/** Does bubblewrap work here (the same probe as bestof's, roughly)? */
async function bwrapWorks() {
  try {
    return (await run('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--', 'true'])).code === 0;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// The baseline

/**
 * bestof's job for each candidate done by a careful script (see the module doc), `concurrency`
 * candidates at a time. Each candidate's job appends one line of bash timestamps to `timings`:
 * `id` then the times before the worktree add, the write, the commit, the check, the kept ref,
 * the removal, and after it.
 */
const BASELINE_SCRIPT = `#!/usr/bin/env bash
set -euo pipefail
repo=$1 worktrees=$2 tag=$3 count=$4 concurrency=$5 timings=$6 agent_output=$7
lock="$worktrees.lock"
mkdir -p "$worktrees"
export repo worktrees tag timings lock concurrency agent_output
candidate() {
  local id="c$1" path="$worktrees/c$1" t0 t1 t2 t3 t4 t5 t6
  t0=$EPOCHREALTIME
  if [ "$concurrency" -eq 1 ]; then
    # Alone, nothing races: one git process makes the worktree and checks it out.
    git -C "$repo" worktree add --quiet -b "baseline/$tag/$id" "$path" HEAD
  else
    # git's worktree records race when written by two git processes at once (one reads another's
    # half-written commondir, a removal deletes .git/worktrees under an add): one at a time, as
    # bestof does, and the checkout outside the lock, in parallel.
    flock "$lock" git -C "$repo" worktree add --quiet --no-checkout -b "baseline/$tag/$id" "$path" HEAD
    git -C "$path" reset --quiet --hard
  fi
  t1=$EPOCHREALTIME
  printf '%s' "$agent_output" > "$path/bench-output.txt"
  t2=$EPOCHREALTIME
  git -C "$path" add -A
  git -C "$path" commit --quiet --no-verify -m "$id"
  t3=$EPOCHREALTIME
  (cd "$path" && sh -c 'true')
  t4=$EPOCHREALTIME
  git -C "$path" update-ref "refs/baseline/$tag/$id/kept" HEAD
  t5=$EPOCHREALTIME
  if [ "$concurrency" -eq 1 ]; then
    git -C "$repo" worktree remove --force "$path"
  else
    rm -rf "$path"
    flock "$lock" git -C "$repo" worktree prune
  fi
  t6=$EPOCHREALTIME
  printf '%s %s %s %s %s %s %s %s\\n' "$id" "$t0" "$t1" "$t2" "$t3" "$t4" "$t5" "$t6" >> "$timings"
}
export -f candidate
cd "$repo"
seq 1 "$count" | xargs -P "$concurrency" -I{} bash -c 'candidate "$1"' _ {}
`;

/** Per-candidate phases of one baseline run, in ms, from its timings file. */
function baselinePhases(timingsText, candidates) {
  const lines = timingsText.split('\n').filter(Boolean);
  if (lines.length !== candidates) throw new Error(`baseline timings: expected ${candidates} lines, found ${lines.length}`);
  const per = { setup: [], agent: [], commit: [], checks: [], keep: [], removal: [], total: [] };
  for (const line of lines) {
    const [, ...stamps] = line.split(' ');
    const t = stamps.map((s) => Number(s) * 1000);
    if (t.length !== 7 || t.some((v) => !Number.isFinite(v)))
      throw new Error(`baseline timings: unreadable line ${JSON.stringify(line)} (bash 5 is needed for $EPOCHREALTIME)`);
    per.setup.push(t[1] - t[0]);
    per.agent.push(t[2] - t[1]);
    per.commit.push(t[3] - t[2]);
    per.checks.push(t[4] - t[3]);
    per.keep.push(t[5] - t[4]);
    per.removal.push(t[6] - t[5]);
    per.total.push(t[6] - t[0]);
  }
  return Object.fromEntries(Object.entries(per).map(([k, v]) => [k, median(v)]));
}

/** Deletes refs in one `git update-ref --stdin` transaction. */
async function deleteRefs(repo, refs) {
  if (refs.length === 0) return;
  await new Promise((resolvePromise, reject) => {
    const child = spawn('git', ['update-ref', '--stdin'], { cwd: repo, stdio: ['pipe', 'ignore', 'pipe'] });
    const stderr = [];
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise() : reject(new Error(`git update-ref --stdin failed: ${Buffer.concat(stderr)}`))));
    child.stdin.end(refs.map((ref) => `delete ${ref}\n`).join(''));
  });
}

/** After a run: every branch but main, every refs/bestof and refs/baseline ref and every worktree record gone; the checkout clean. */
async function cleanRepo(repo, after) {
  await git(repo, ['worktree', 'prune']);
  const worktrees = (await git(repo, ['worktree', 'list', '--porcelain'])).split('\n').filter((l) => l.startsWith('worktree ')).length;
  if (worktrees !== 1) throw new Error(`${after}: ${worktrees - 1} worktree(s) were left behind in ${repo}:\n${await git(repo, ['worktree', 'list'])}`);
  const refs = (await git(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/bestof/', 'refs/baseline/']))
    .split('\n')
    .filter((ref) => ref !== '' && ref !== 'refs/heads/main');
  await deleteRefs(repo, refs);
  const status = await git(repo, ['status', '--porcelain']);
  if (status.trim() !== '') throw new Error(`${after}: the fixture checkout is not clean:\n${status}`);
}

// ---------------------------------------------------------------------------------------------
// bestof's runs and where their time goes (from the run folder's events.jsonl)

/** The run folder a bestof run just made: the one folder of .bestof/runs not in `seen` (which it joins). */
function newRunDir(repo, seen) {
  const runsDir = join(repo, '.bestof', 'runs');
  const fresh = readdirSync(runsDir).filter((name) => !seen.has(name));
  if (fresh.length !== 1) throw new Error(`expected one new run folder in ${runsDir}, found ${fresh.length}: ${fresh.join(', ')}`);
  seen.add(fresh[0]);
  return join(runsDir, fresh[0]);
}

function readEvents(runDir) {
  return readFileSync(join(runDir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const event = JSON.parse(line);
      return { ...event, ms: Date.parse(event.t) };
    });
}

/**
 * Phases of one bestof run, in ms. Per candidate: medians over the candidates (they overlap up to
 * max_concurrency). Wall clock: slices of the run, from the spawn of the process to its exit.
 */
function bestofPhases(events, processRun) {
  const first = (predicate) => events.find(predicate);
  const started = first((e) => e.type === 'run.started');
  const finished = first((e) => e.type === 'run.finished');
  const lastCandidate = events.filter((e) => e.type === 'candidate.finished').at(-1);
  const selection = first((e) => e.type === 'selection.finished');
  const firstSetup = first((e) => e.type === 'candidate.status' && e.status === 'setup');
  if (!started || !finished || !lastCandidate || !selection || !firstSetup)
    throw new Error('events.jsonl lacks run.started, a candidate, selection.finished or run.finished');

  const per = { setup: [], agent: [], commit: [], frozen: [], checks: [], keep: [], finish: [], total: [] };
  const intervals = [];
  for (const { id } of started.candidates) {
    const of = (type, extra = () => true) => events.find((e) => e.candidate === id && e.type === type && extra(e));
    const setupStatus = of('candidate.status', (e) => e.status === 'setup');
    const setup = of('candidate.setup');
    const running = of('candidate.status', (e) => e.status === 'running');
    const provider = of('provider.finished');
    const checking = of('candidate.status', (e) => e.status === 'checking');
    const checks = events.filter((e) => e.candidate === id && e.type === 'check.finished');
    const committed = of('candidate.committed');
    const done = of('candidate.finished');
    if (!setupStatus || !setup || !running || !provider || !checking || checks.length === 0 || !committed || !done) {
      throw new Error(
        `events.jsonl: candidate ${id} lacks one of its phase events (setup, running, provider.finished, checking, check.finished, candidate.committed, candidate.finished)`,
      );
    }
    const checkRun = checks.reduce((sum, e) => sum + e.check.durationMs, 0);
    per.setup.push(setup.ms - setupStatus.ms); // worktree add + checkout, setup listing, guards
    per.agent.push(provider.ms - running.ms); // the git-dir snapshot, then the script provider
    // The commit is made before the checks and recorded (candidate.committed) after them, once it
    // is reworded with its score and kept: its making ends where the checks start.
    per.commit.push(checking.ms - provider.ms); // git-dir check, commit filter, add -A, identity, commit
    per.frozen.push(checks.at(-1).ms - checking.ms - checkRun); // HEAD detached, the scoring tree prepared
    per.checks.push(checkRun); // the check processes, as bestof timed them
    per.keep.push(committed.ms - checks.at(-1).ms); // put-back (reset --hard + clean), reword, kept ref
    per.finish.push(done.ms - committed.ms); // the score recorded, the diff stat
    per.total.push(done.ms - setupStatus.ms);
    intervals.push([setupStatus.ms, done.ms]);
  }
  let peak = 0;
  for (const [start] of intervals) peak = Math.max(peak, intervals.filter(([s, e]) => s <= start && start < e).length);
  return {
    perCandidate: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, median(v)])),
    wall: {
      startup: started.ms - processRun.startedAtMs,
      beforeSetup: firstSetup.ms - started.ms,
      candidates: lastCandidate.ms - started.ms,
      selection: selection.ms - lastCandidate.ms,
      removal: finished.ms - selection.ms,
      exit: processRun.endedAtMs - finished.ms,
      total: processRun.ms,
    },
    peak,
  };
}

// ---------------------------------------------------------------------------------------------
// One cell: a repo size and a candidate count

/** Everything one cell's runs share. */
function cellContext({ temp, repo, files, candidates, concurrency, spec, seenRuns, baselineScript }) {
  const id = `s${files}-n${candidates}`;
  /**
   * One run of the baseline's steps by `program` (the bash baseline, or the Node floor), which
   * takes the same arguments and writes the same timings file.
   */
  const runSteps =
    (what, program) =>
    async (tag, env = process.env) => {
      const worktrees = join(temp, 'wt', tag);
      const timings = join(temp, 'timings', `${tag}.txt`);
      mkdirSync(worktrees, { recursive: true });
      mkdirSync(dirname(timings), { recursive: true });
      const result = await run(program[0], [...program.slice(1), repo, worktrees, tag, String(candidates), String(concurrency), timings, AGENT_OUTPUT], {
        cwd: repo,
        env,
      });
      if (result.code !== 0) throw new Error(describeFailure(`${what} (${tag})`, result));
      await cleanRepo(repo, `after the ${what} (${tag})`);
      return { ms: result.ms, phases: baselinePhases(readFileSync(timings, 'utf8'), candidates) };
    };
  const runBaseline = runSteps('baseline', ['bash', baselineScript]);
  const runFloor = runSteps('node floor', [process.execPath, NODE_FLOOR]);
  const runBestof = async (tag, env = process.env) => {
    const worktrees = join(temp, 'wt', tag);
    mkdirSync(worktrees, { recursive: true });
    const result = await run(process.execPath, [BESTOF_BIN, 'run', spec, '--no-tui'], { cwd: temp, env: { ...env, BESTOF_WORKTREES_DIR: worktrees } });
    if (result.code !== 0) throw new Error(describeFailure(`bestof run (${tag})`, result));
    if (/cannot be used here/.test(result.stdout + result.stderr))
      throw new Error(describeFailure(`bestof run (${tag}) made plain worktrees, not copy-on-write ones`, result));
    const events = readEvents(newRunDir(repo, seenRuns));
    await untilDeletedAfterTheRun(worktrees);
    await cleanRepo(repo, `after bestof (${tag})`);
    return { ms: result.ms, events, phases: bestofPhases(events, result) };
  };
  return { id, runBaseline, runFloor, runBestof };
}

/** The untimed census run of each side with the git wrapper on PATH (see the module doc). */
async function census(cell, { temp, candidates, wrapperDir }) {
  const ids = Array.from({ length: candidates }, (_, i) => `c${i + 1}`);
  const withWrapper = (log) => ({ ...process.env, PATH: `${wrapperDir}:${process.env.PATH ?? ''}`, BESTOF_BENCH_GIT_LOG: log });
  const baselineTag = `${cell.id}-census`;
  const baselineLog = join(temp, 'census', `${baselineTag}.log`);
  const bestofLog = join(temp, 'census', `${cell.id}-bestof.log`);
  mkdirSync(dirname(baselineLog), { recursive: true });
  writeFileSync(baselineLog, '');
  writeFileSync(bestofLog, '');
  await cell.runBaseline(baselineTag, withWrapper(baselineLog));
  const bestof = await cell.runBestof(`${cell.id}-census-bestof`, withWrapper(bestofLog));
  const started = bestof.events.find((e) => e.type === 'run.started');
  return {
    baseline: summarizeCensus(parseGitLog(readFileSync(baselineLog, 'utf8')), { tag: baselineTag, candidates: ids }),
    bestof: summarizeCensus(parseGitLog(readFileSync(bestofLog, 'utf8')), { tag: started.runId, candidates: ids, ignoreCommits: [started.baseCommit] }),
  };
}

async function measureCell(context) {
  const { files, candidates, concurrency, repeat } = context;
  const cell = cellContext(context);
  process.stdout.write(`\n== ${files} files x ${candidates} candidate(s), ${Math.min(concurrency, candidates)} at a time ==\n`);
  const calls = context.census ? await census(cell, context) : undefined;
  if (calls) {
    process.stdout.write(
      `git processes (an untimed run of each with a git wrapper): baseline ${describeCensus(calls.baseline)}; bestof ${describeCensus(calls.bestof)}\n`,
    );
    process.stdout.write(`  bestof's per candidate: ${calls.bestof.subcommands.map(([command, n]) => `${command} ${formatCount(n)}`).join(', ')}\n`);
  } else process.stdout.write('git processes: not counted (--no-census)\n');

  const { rounds, summary } = await againstBaseline(cell, repeat, 'r', 'bestof', cell.runBestof);
  // Each phase: its median over the rounds (of the per-round medians over the candidates).
  const overRounds = (pick) => Object.fromEntries(Object.keys(pick(rounds[0].results)).map((k) => [k, median(rounds.map(({ results }) => pick(results)[k]))]));
  const phases = {
    baseline: overRounds((results) => results.baseline.phases),
    bestof: overRounds((results) => results.bestof.phases.perCandidate),
    wall: overRounds((results) => results.bestof.phases.wall),
    peak: Math.max(...rounds.map(({ results }) => results.bestof.phases.peak)),
  };
  process.stdout.write(
    `median of ${summary.rounds} round(s): baseline ${seconds(summary.reference)}, bestof ${seconds(summary.measured)}; bestof/baseline, median of the paired ratios [min, max]: ${formatRatio(summary.ratio)}\n\n`,
  );
  process.stdout.write(`${phaseTable(phases, Math.min(concurrency, candidates))}\n`);
  const floor = context.floor ? await measureFloor(cell, repeat, summary) : undefined;
  return { files, candidates, concurrency: Math.min(concurrency, candidates), calls, summary, phases, floor };
}

/**
 * `repeat` alternated rounds of the baseline against `side` (run by `runSide(tag)`), each round
 * printed as it ends; the rounds and the summary of their paired times. `letter` marks the rounds'
 * tags (their worktree folders and timings files), one per kind of rounds.
 */
async function againstBaseline(cell, repeat, letter, side, runSide) {
  const rounds = await runAlternated(
    repeat,
    {
      baseline: (round) => cell.runBaseline(`${cell.id}-${letter}${round}`),
      [side]: (round) => runSide(`${cell.id}-${letter}${round}-${side}`),
    },
    ({ round, order, results }) => {
      process.stdout.write(
        `round ${round} (${order[0]} first): baseline ${seconds(results.baseline.ms)}, ${side} ${seconds(results[side].ms)}, ratio ${(results[side].ms / results.baseline.ms).toFixed(2)}x\n`,
      );
    },
  );
  return { rounds, summary: summarizePairs(rounds.map(({ results }) => ({ reference: results.baseline.ms, measured: results[side].ms }))) };
}

/** The Node floor's own rounds against the baseline (see the module doc), and bestof / floor derived from them. */
async function measureFloor(cell, repeat, bestofSummary) {
  process.stdout.write("the Node floor (scripts/lib/node-floor.mjs: the baseline's steps from one Node process):\n");
  const { summary } = await againstBaseline(cell, repeat, 'f', 'floor', cell.runFloor);
  const overBestof = bestofSummary.ratio.median / summary.ratio.median;
  process.stdout.write(
    `median of ${summary.rounds} round(s): baseline ${seconds(summary.reference)}, floor ${seconds(summary.measured)}; floor/baseline ${formatRatio(summary.ratio)}; bestof/floor ${overBestof.toFixed(2)}x (bestof/baseline over floor/baseline)\n`,
  );
  return { summary, bestofOverFloor: overBestof };
}

// ---------------------------------------------------------------------------------------------
// The sandbox's cost per agent call

async function measureSandbox({ temp, repo, candidates, concurrency, repeat, seenRuns }) {
  const specs = {
    off: writeSpec(join(temp, 'spec-sandbox'), { name: 'sandbox-off', repo, candidates, concurrency, agent: 'command', sandbox: 'off' }),
    required: writeSpec(join(temp, 'spec-sandbox'), { name: 'sandbox-required', repo, candidates, concurrency, agent: 'command', sandbox: 'required' }),
  };
  const calls = { off: [], required: [] };
  const runMode = (mode) => async (round) => {
    const worktrees = join(temp, 'wt', `sandbox-${mode}-r${round}`);
    mkdirSync(worktrees, { recursive: true });
    const result = await run(process.execPath, [BESTOF_BIN, 'run', specs[mode], '--no-tui'], {
      cwd: temp,
      env: { ...process.env, BESTOF_WORKTREES_DIR: worktrees },
    });
    if (result.code !== 0) throw new Error(describeFailure(`bestof run, sandbox ${mode} (round ${round})`, result));
    const durations = readEvents(newRunDir(repo, seenRuns))
      .filter((e) => e.type === 'provider.finished')
      .map((e) => e.durationMs);
    await untilDeletedAfterTheRun(worktrees);
    await cleanRepo(repo, `after bestof with the sandbox ${mode}`);
    calls[mode].push(...durations);
    return median(durations);
  };
  await runAlternated(repeat, { off: runMode('off'), required: runMode('required') }, ({ round, order, results }) => {
    process.stdout.write(
      `round ${round} (${order[0]} first): agent call median, sandbox off ${results.off.toFixed(1)} ms, required ${results.required.toFixed(1)} ms\n`,
    );
  });
  return { off: median(calls.off), required: median(calls.required), count: calls.off.length };
}

// ---------------------------------------------------------------------------------------------
// Reporting

const seconds = (ms) => `${(ms / 1000).toFixed(2)}s`;
const milliseconds = (ms) => (ms === undefined ? '-' : `${Math.round(ms)} ms`);
const formatCount = (n) => (Number.isInteger(n) ? String(n) : n.toFixed(1));

/**
 * The object store's guards, each step timed alone in one worktree of the fixture repo (see the
 * module doc): medians in ms of the baseline (`git status --porcelain`), the agent's git scratch
 * and the content comparison of every file.
 */
async function measureStoreGuards({ temp, repo, repeat }) {
  const { prepareAgentGitScratch } = await import(join(PROJECT, 'dist', 'git', 'guards', 'agent-git-scratch.js'));
  const { agentGitDirs } = await import(join(PROJECT, 'dist', 'git', 'guards', 'agent-git-dirs.js'));
  const { indexEntriesOffDisk } = await import(join(PROJECT, 'dist', 'git', 'guards', 'content-check.js'));
  const worktree = join(temp, 'store-guards');
  await git(repo, ['worktree', 'add', '--quiet', '--detach', worktree, 'HEAD']);
  try {
    const dirs = agentGitDirs(worktree);
    if (!dirs) throw new Error(`store guards: ${worktree} is not a linked worktree`);
    const scratch = join(temp, 'store-guards-scratch');
    const steps = {
      baseline: async () => {
        const result = await run('git', ['status', '--porcelain'], { cwd: worktree });
        if (result.code !== 0) throw new Error(describeFailure('git status', result));
      },
      scratch: () => prepareAgentGitScratch(scratch, dirs),
      content: async () => {
        const differing = await indexEntriesOffDisk(worktree, [':(top,glob)**']);
        if (differing.length > 0) throw new Error(`store guards: the content comparison found ${differing.length} files differing in a clean worktree`);
      },
    };
    const times = { baseline: [], scratch: [], content: [] };
    const order = Object.keys(steps);
    for (let round = 0; round < repeat * 5; round++) {
      // Alternated: each step in every position in turn, so that a cache one warms is not always the next one's.
      for (const name of [...order.slice(round % 3), ...order.slice(0, round % 3)]) {
        const started = performance.now();
        await steps[name]();
        times[name].push(performance.now() - started);
      }
    }
    return { baseline: median(times.baseline), scratch: median(times.scratch), content: median(times.content), count: repeat * 5 };
  } finally {
    await git(repo, ['worktree', 'remove', '--force', worktree]).catch(() => undefined);
  }
}

function describeCensus({ perCandidate, shared }) {
  const per =
    perCandidate.min === perCandidate.max ? formatCount(perCandidate.mean) : `${formatCount(perCandidate.mean)} (${perCandidate.min}-${perCandidate.max})`;
  return `${per} per candidate + ${shared} shared`;
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')).join('\n');
}

function phaseTable({ baseline, bestof, wall, peak }, atATime) {
  const perCandidate = table([
    [`per candidate (medians; ${atATime} at a time)`, 'baseline', 'bestof'],
    ['setup (worktree add + checkout)', milliseconds(baseline.setup), milliseconds(bestof.setup)],
    ['agent (one file written)', milliseconds(baseline.agent), milliseconds(bestof.agent)],
    ['commit', milliseconds(baseline.commit), milliseconds(bestof.commit)],
    ['frozen restore (scoring tree)', '-', milliseconds(bestof.frozen)],
    ['checks (the `true` process)', milliseconds(baseline.checks), milliseconds(bestof.checks)],
    ['keep (baseline: update-ref; bestof: put-back, reword, kept ref)', milliseconds(baseline.keep), milliseconds(bestof.keep)],
    ['finish (score recorded, diff stat)', '-', milliseconds(bestof.finish)],
    ['worktree removal', milliseconds(baseline.removal), 'at the end'],
    ['total per candidate', milliseconds(baseline.total), milliseconds(bestof.total)],
  ]);
  const run = table([
    ["bestof's wall clock (medians)", 'time'],
    ['start-up (spawn -> run.started)', milliseconds(wall.startup)],
    ['candidates (run.started -> last candidate.finished)', milliseconds(wall.candidates)],
    ['  of which before the first setup', milliseconds(wall.beforeSetup)],
    ['selection (-> selection.finished)', milliseconds(wall.selection)],
    ['merge + worktree removal (-> run.finished)', milliseconds(wall.removal)],
    ['reports + exit (run.finished -> exit)', milliseconds(wall.exit)],
    ['whole run', milliseconds(wall.total)],
  ]);
  return `${perCandidate}\n\n${run}\npeak concurrent candidates observed: ${peak}\n`;
}

function summaryTable(cells) {
  const rows = [
    '| files | candidates | at a time | git processes per candidate (baseline / bestof) | baseline | bestof | bestof / baseline: median of paired ratios [min, max] |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const { files, candidates, concurrency, calls, summary } of cells) {
    rows.push(
      `| ${files.toLocaleString('en-US')} | ${candidates} | ${concurrency} | ${calls ? `${formatCount(calls.baseline.perCandidate.mean)} / ${formatCount(calls.bestof.perCandidate.mean)}` : 'not counted'} | ${seconds(summary.reference)} | ${seconds(summary.measured)} | **${formatRatio(summary.ratio)}** |`,
    );
  }
  return rows.join('\n');
}

/** The Node floor's table (--floor): undefined when no cell measured it. */
function floorTable(cells) {
  const measured = cells.filter((cell) => cell.floor);
  if (measured.length === 0) return undefined;
  const rows = [
    '| files | candidates | at a time | baseline | Node floor | floor / baseline [min, max] | bestof / baseline | bestof / floor (derived) |',
    '| ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |',
  ];
  for (const { files, candidates, concurrency, summary, floor } of measured) {
    rows.push(
      `| ${files.toLocaleString('en-US')} | ${candidates} | ${concurrency} | ${seconds(floor.summary.reference)} | ${seconds(floor.summary.measured)} | **${formatRatio(floor.summary.ratio)}** | ${formatRatio(summary.ratio)} | ${floor.bestofOverFloor.toFixed(2)}x |`,
    );
  }
  return rows.join('\n');
}

function phaseSummaryTable(cells) {
  const rows = [
    '| files x candidates | setup | agent | commit | frozen restore | checks | put-back, reword, keep | finish | start-up | removal at the end |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const { files, candidates, phases } of cells) {
    const b = phases.bestof;
    const cellMs = (ms) => `${Math.round(ms)}`;
    rows.push(
      `| ${files.toLocaleString('en-US')} x ${candidates} | ${cellMs(b.setup)} (${cellMs(phases.baseline.setup)}) | ${cellMs(b.agent)} | ${cellMs(b.commit)} (${cellMs(phases.baseline.commit)}) | ${cellMs(b.frozen)} | ${cellMs(b.checks)} (${cellMs(phases.baseline.checks)}) | ${cellMs(b.keep)} (${cellMs(phases.baseline.keep)}) | ${cellMs(b.finish)} | ${cellMs(phases.wall.startup)} | ${cellMs(phases.wall.removal)} |`,
    );
  }
  return rows.join('\n');
}

/** bestof's default [parallel] max_concurrency, read from the built schema. */
async function defaultConcurrency() {
  const { specSchema } = await import(join(PROJECT, 'dist', 'spec', 'schema.js'));
  return specSchema.parse({ prompt: { text: 'x' } }).parallel.max_concurrency;
}

async function commandLine(command, args) {
  try {
    const result = await run(command, args);
    if (result.code === 0) return result.stdout.trim();
  } catch {
    // not installed
  }
  return undefined;
}

/** What is measured, on which machine and build: the lines before the figures. */
function printSetup(options, { build, gitVersion, cores, load }) {
  process.stdout.write(`bench-overhead: files ${options.files.join(', ')}; candidates ${options.candidates.join(', ')}; ${options.repeat} round(s) per cell\n`);
  process.stdout.write(
    `${new Date().toISOString().slice(0, 10)}, ${build}, node ${process.version}, ${gitVersion.trim()}, nproc ${cores ?? availableParallelism()} (${cpus()[0]?.model ?? 'unknown CPU'}), load average ${load()}\n`,
  );
  process.stdout.write(
    `max_concurrency: ${options.concurrency} for bestof and the baseline (${options.concurrencyIsDefault ? "bestof's default" : '--concurrency'})\n`,
  );
  process.stdout.write(`bestof's worktrees: ${options.worktrees} (the baseline makes plain ones)\n`);
  process.stdout.write(
    'baseline: a bash script doing, per candidate, git worktree add -b, the write, git add -A + commit, the check (sh -c true), git update-ref, git worktree remove; that many at a time (xargs -P)\n',
  );
}

/** The figures: the table per cell, the phases, the Node floor, the sandbox and the store guards. */
function printResults({ cells, sandbox, storeGuards, load }) {
  process.stdout.write(`\nload average at the end: ${load()}\n\n`);
  process.stdout.write(`${summaryTable(cells)}\n\n`);
  process.stdout.write(
    `bestof's phases per candidate in ms, medians (the baseline's in brackets), from events.jsonl and the baseline's own timestamps:\n\n${phaseSummaryTable(cells)}\n\n`,
  );
  const floors = floorTable(cells);
  if (floors) process.stdout.write(`the Node floor (--floor; its own rounds against the baseline):\n\n${floors}\n\n`);
  if (sandbox) {
    process.stdout.write(
      `sandbox: an agent call (a process that writes one file) took ${sandbox.off.toFixed(1)} ms without the sandbox and ${sandbox.required.toFixed(1)} ms in it, inside bestof: ${sandbox.required - sandbox.off >= 0 ? '+' : ''}${(sandbox.required - sandbox.off).toFixed(1)} ms per call (medians over ${sandbox.count} calls each)\n`,
    );
  }
  for (const g of storeGuards) {
    const ratio = (ms) => `${(ms / g.baseline).toFixed(2)}x`;
    process.stdout.write(
      `store guards at ${g.files} files (medians of ${g.count}): git status ${g.baseline.toFixed(1)} ms (baseline); an agent call's git scratch ${g.scratch.toFixed(1)} ms (${ratio(g.scratch)}); the content comparison of every file ${g.content.toFixed(1)} ms (${ratio(g.content)})\n`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

async function main() {
  if (!existsSync(join(PROJECT, 'dist', 'cli', 'main.js')))
    throw new Error(`bestof is not built (no ${join(PROJECT, 'dist')}): run \`npm run build\` in ${PROJECT} first`);
  const options = readOptions(await defaultConcurrency());
  const temp = mkdtempSync(join(tmpdir(), 'bestof-bench-'));
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    killChildren();
    rmSync(temp, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    cleanup();
    process.stderr.write(`bench-overhead: ${signal}: its processes were ended and its temp folder ${temp} removed\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const [gitVersion, cores, realGit, commit, dirty] = await Promise.all([
      git(PROJECT, ['--version']),
      commandLine('nproc', []),
      commandLine('sh', ['-c', 'command -v git']),
      commandLine('git', ['-C', PROJECT, 'rev-parse', '--short', 'HEAD']),
      commandLine('git', ['-C', PROJECT, 'status', '--porcelain', '--', 'src']),
    ]);
    // What was measured: the build in dist/, which may differ from the commit.
    const build = `bestof ${commit ?? '(not a git checkout)'}${dirty ? ' + uncommitted changes in src/' : ''}, dist/ built ${statSync(
      join(PROJECT, 'dist', 'cli', 'main.js'),
    )
      .mtime.toISOString()
      .slice(0, 16)
      .replace('T', ' ')} UTC`;
    if (!realGit) throw new Error('git is not on PATH');
    const baselineScript = join(temp, 'baseline.sh');
    writeFileSync(baselineScript, BASELINE_SCRIPT, { mode: 0o755 });
    const wrapperDir = join(temp, 'git-wrapper');
    mkdirSync(wrapperDir);
    writeFileSync(join(wrapperDir, 'git'), gitWrapperScript(realGit), { mode: 0o755 });

    const load = () =>
      loadavg()
        .map((l) => l.toFixed(1))
        .join(' ');
    printSetup(options, { build, gitVersion, cores, load });

    const cells = [];
    const storeGuards = [];
    let sandbox;
    for (const [sizeIndex, files] of options.files.entries()) {
      const sizeDir = join(temp, `size-${files}`);
      const repo = join(sizeDir, 'repo');
      const fixtureStarted = performance.now();
      await createRepo(repo, files);
      process.stdout.write(`\nfixture repo of ${files} files created in ${seconds(performance.now() - fixtureStarted)}\n`);
      const seenRuns = new Set();
      for (const candidates of options.candidates) {
        const spec = writeSpec(join(sizeDir, `spec-${candidates}`), {
          name: `bench-${candidates}`,
          repo,
          candidates,
          concurrency: options.concurrency,
          worktrees: options.worktrees,
        });
        cells.push(
          await measureCell({
            temp: sizeDir,
            repo,
            files,
            candidates,
            concurrency: options.concurrency,
            repeat: options.repeat,
            spec,
            seenRuns,
            wrapperDir,
            baselineScript,
            census: options.census,
            floor: options.floor,
          }),
        );
      }
      if (sizeIndex === 0 && options.sandboxCost) {
        const candidates = Math.min(Math.max(...options.candidates), SANDBOX_MAX_CANDIDATES);
        process.stdout.write(`\n== the sandbox's cost per agent call: ${files} files x ${candidates} candidate(s), a command agent ==\n`);
        if (await bwrapWorks())
          sandbox = await measureSandbox({ temp: sizeDir, repo, candidates, concurrency: options.concurrency, repeat: options.repeat, seenRuns });
        else process.stdout.write('not measured: bubblewrap does not work here\n');
      }
      if (options.storeCost) {
        process.stdout.write(`\n== the object store's guards: ${files} files ==\n`);
        storeGuards.push({ files, ...(await measureStoreGuards({ temp: sizeDir, repo, repeat: options.repeat })) });
      }
      // The next size's worktrees need the room.
      rmSync(sizeDir, { recursive: true, force: true });
    }

    printResults({ cells, sandbox, storeGuards, load });
  } finally {
    cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

main().catch((error) => {
  process.stderr.write(`bench-overhead: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
