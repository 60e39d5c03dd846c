#!/usr/bin/env node
/**
 * bestof's overhead against a plain serial git baseline, measured in the same run.
 *
 *   node scripts/bench-overhead.mjs [--files 5000] [--candidates 8] [--repeat 3]
 *   npm run bench:overhead
 *
 * In a temp folder: a git repo of `--files` small files spread over folders (one commit), and,
 * outside the repo, a spec with `--candidates` "instant" script candidates (one step that
 * writes one file), one trivial check (`true`) and merge = "branch".
 *
 * Each round runs, one after the other:
 * - the baseline: a bash script that, serially for each candidate, adds a worktree on a new
 *   branch, writes one file, commits it, runs the check in the worktree and removes the worktree;
 * - bestof: `node bin/bestof.js run <spec> --no-tui`, worktrees under a temp
 *   BESTOF_WORKTREES_DIR; it must exit 0.
 * Both are timed with performance.now() around the child process. Leftover branches, refs and
 * worktrees are removed between rounds. The report gives the medians and their ratio, plus a
 * breakdown of where bestof's time went, read from the run's events.jsonl.
 *
 * The sandbox's cost per agent call (`--no-sandbox-cost` skips it): in each round, two more bestof
 * runs of the same spec with a `command` agent (a process that writes one file) instead of the
 * in-process script, one with `[sandbox] mode = "off"` and one with "required"; the agent calls'
 * durations (provider.finished) are compared, median over candidates and rounds. Needs bubblewrap;
 * without it the section says so.
 *
 * The README's aim is a ratio of at most 1.5x; these are shared machines, so the exit code
 * never depends on the ratio: non-zero means something failed.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BESTOF_BIN = join(PROJECT, 'bin', 'bestof.js');
const FILES_PER_FOLDER = 100;
const AIM = 1.5;

// ---------------------------------------------------------------------------------------------
// Arguments

function positiveInt(name, raw) {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a whole number of at least 1, got ${JSON.stringify(raw)}`);
  return n;
}

function readOptions() {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '5000' },
      candidates: { type: 'string', default: '8' },
      repeat: { type: 'string', default: '3' },
      'no-sandbox-cost': { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write('usage: node scripts/bench-overhead.mjs [--files 5000] [--candidates 8] [--repeat 3] [--no-sandbox-cost]\n');
    process.exit(0);
  }
  const candidates = positiveInt('candidates', values.candidates);
  if (candidates > 64) throw new Error('--candidates: bestof allows at most 64 candidates');
  return { files: positiveInt('files', values.files), candidates, repeat: positiveInt('repeat', values.repeat), sandboxCost: !values['no-sandbox-cost'] };
}

// ---------------------------------------------------------------------------------------------
// Processes

/** Runs a program to completion; resolves with its exit code, output and wall time (never rejects on exit codes). */
function run(command, args, { cwd, env } = {}) {
  return new Promise((resolvePromise, reject) => {
    const stdout = [];
    const stderr = [];
    const startedAtMs = Date.now();
    const started = performance.now();
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => stdout.push(chunk));
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => {
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
  const folders = Math.ceil(files / FILES_PER_FOLDER);
  for (let f = 0; f < folders; f++) {
    // Two levels of folders: src/gN/dNN/, at most FILES_PER_FOLDER files in each.
    const dir = join(repo, 'src', `g${Math.floor(f / 10)}`, `d${String(f).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    for (let i = f * FILES_PER_FOLDER; i < Math.min(files, (f + 1) * FILES_PER_FOLDER); i++) {
      writeFileSync(join(dir, `file${String(i).padStart(5, '0')}.txt`), `file ${i}\n${'x'.repeat(i % 97)}\n`);
    }
  }
  writeFileSync(join(repo, 'README.md'), '# bench fixture\n');
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '--quiet', '--no-verify', '-m', 'fixture']);
  const tracked = (await git(repo, ['ls-files'])).split('\n').filter(Boolean).length;
  if (tracked !== files + 1) throw new Error(`fixture repo: expected ${files + 1} tracked files, found ${tracked}`);
}

/** A TOML basic string (JSON's escapes are a subset of TOML's for the characters paths contain). */
const tomlString = (text) => JSON.stringify(text);

/**
 * The spec of the sandbox pair: the same run with a `command` agent, a process that writes one
 * file, so that each agent call starts a process (in bubblewrap or not, as `mode` says).
 */
function writeCommandSpec(specDir, repo, candidates, mode) {
  const agent = join(specDir, 'agent.sh');
  writeFileSync(agent, "#!/bin/sh\nprintf 'written by an instant candidate\\n' > bench-output.txt\n", { mode: 0o755 });
  const spec = join(specDir, `sandbox-${mode}.toml`);
  const main = readFileSync(join(specDir, 'bench.toml'), 'utf8');
  writeFileSync(
    spec,
    main
      .replace('kind = "script"\nscript = "instant.toml"', `kind = "command"\ncommand = ${tomlString(agent)}`)
      .replace('[select]', `[sandbox]\nmode = "${mode}"\n\n[select]`),
  );
  return spec;
}

/** Does bubblewrap work here (the same probe as bestof's, roughly)? */
async function bwrapWorks() {
  try {
    return (await run('bwrap', ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--unshare-pid', '--', 'true'])).code === 0;
  } catch {
    return false;
  }
}

function writeSpec(specDir, repo, candidates) {
  mkdirSync(specDir, { recursive: true });
  writeFileSync(
    join(specDir, 'instant.toml'),
    ['# An "instant" candidate: one step that writes one file.', '[[steps]]', 'write = "bench-output.txt"', 'content = "written by an instant candidate\\n"', ''].join('\n'),
  );
  const spec = join(specDir, 'bench.toml');
  writeFileSync(
    spec,
    [
      'name = "bench"',
      `repo = ${tomlString(repo)}`,
      '',
      '[prompt]',
      'text = "Write one file."',
      '',
      '[parallel]',
      `candidates = ${candidates}`,
      '# max_concurrency is left unset: the default applies.',
      '',
      '[provider]',
      'kind = "script"',
      'script = "instant.toml"',
      '',
      '[[checks.items]]',
      'name = "trivial"',
      'command = "true"',
      'score = 1',
      '',
      '[select]',
      'merge = "branch"',
      '',
    ].join('\n'),
  );
  return spec;
}

const BASELINE_SCRIPT = `#!/usr/bin/env bash
# What bestof does for each candidate, done by hand and serially: worktree, one file, commit,
# the check (a process started in the worktree, as bestof starts one), worktree removed.
set -euo pipefail
repo=$1 worktrees=$2 prefix=$3 count=$4
cd "$repo"
for i in $(seq 1 "$count"); do
  path="$worktrees/c$i"
  git worktree add --quiet -b "$prefix/c$i" "$path" HEAD
  printf 'written by an instant candidate\\n' > "$path/bench-output.txt"
  (cd "$path" && git add -A && git commit -q -m x)
  (cd "$path" && sh -c 'true')
  git worktree remove --force "$path"
done
`;

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

/** Between rounds: every branch but main, every refs/bestof ref and every worktree record gone; the checkout clean. */
async function cleanRepo(repo) {
  await git(repo, ['worktree', 'prune']);
  const worktrees = (await git(repo, ['worktree', 'list', '--porcelain'])).split('\n').filter((l) => l.startsWith('worktree ')).length;
  if (worktrees !== 1) throw new Error(`${worktrees - 1} worktree(s) were left behind in ${repo}:\n${await git(repo, ['worktree', 'list'])}`);
  const refs = (await git(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads/', 'refs/bestof/']))
    .split('\n')
    .filter((ref) => ref !== '' && ref !== 'refs/heads/main');
  await deleteRefs(repo, refs);
  const status = await git(repo, ['status', '--porcelain']);
  if (status.trim() !== '') throw new Error(`the fixture checkout is not clean after a round:\n${status}`);
  return refs.length;
}

// ---------------------------------------------------------------------------------------------
// Where bestof's time goes (from the run folder's events.jsonl)

function readRunEvents(repo) {
  const runsDir = join(repo, '.bestof', 'runs');
  const runs = readdirSync(runsDir).sort();
  const last = runs[runs.length - 1];
  if (!last) throw new Error(`no run folder in ${runsDir}`);
  const text = readFileSync(join(runsDir, last, 'events.jsonl'), 'utf8');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const event = JSON.parse(line);
      return { ...event, ms: Date.parse(event.t) };
    });
}

/**
 * Phases of one bestof run, in ms. Process-level phases are wall-clock slices of the run;
 * per-candidate phases are medians over the candidates (they overlap up to max_concurrency).
 */
function phasesOf(events, processRun) {
  const first = (predicate) => events.find(predicate);
  const lastOf = (predicate) => events.filter(predicate).at(-1);
  const started = first((e) => e.type === 'run.started');
  const finished = first((e) => e.type === 'run.finished');
  const candidateFinishes = events.filter((e) => e.type === 'candidate.finished');
  const lastCandidate = candidateFinishes.at(-1);
  const selection = first((e) => e.type === 'selection.finished');
  if (!started || !finished || !lastCandidate || !selection) throw new Error('events.jsonl lacks run.started, candidate.finished, selection.finished or run.finished');

  const ids = started.candidates.map((c) => c.id);
  const per = { setup: [], agent: [], commit: [], checks: [], restore: [], finish: [], total: [] };
  let peak = 0;
  const intervals = [];
  for (const id of ids) {
    const of = (type, extra = () => true) => events.find((e) => e.candidate === id && e.type === type && extra(e));
    const setupStatus = of('candidate.status', (e) => e.status === 'setup');
    const setup = of('candidate.setup');
    const running = of('candidate.status', (e) => e.status === 'running');
    const provider = of('provider.finished');
    const committed = of('candidate.committed');
    const checking = of('candidate.status', (e) => e.status === 'checking');
    const lastCheck = lastOf((e) => e.candidate === id && e.type === 'check.finished');
    const scored = of('candidate.scored');
    const done = of('candidate.finished');
    if (!setupStatus || !setup || !running || !provider || !committed || !checking || !lastCheck || !scored || !done) {
      throw new Error(`events.jsonl: candidate ${id} lacks one of its phase events`);
    }
    per.setup.push(setup.ms - setupStatus.ms); // git worktree add (+ copy, setup commands, untracked listing)
    per.agent.push(provider.ms - running.ms); // the script provider itself
    // The commit is made before the checks and recorded (candidate.committed) after them, once it is
    // reworded with its score and kept: its making ends where the checks start.
    per.commit.push(checking.ms - provider.ms); // link check, agent branches, filter, add -A, diff --cached, identity, commit
    per.checks.push(lastCheck.ms - checking.ms); // the check processes
    per.restore.push(committed.ms - lastCheck.ms); // reset --hard + clean after the checks, then the reword and the kept ref
    per.finish.push(done.ms - scored.ms); // diff stat against base
    per.total.push(done.ms - setupStatus.ms);
    intervals.push([setupStatus.ms, done.ms]);
  }
  for (const [start] of intervals) peak = Math.max(peak, intervals.filter(([s, e]) => s <= start && start < e).length);

  const firstSetup = first((e) => e.type === 'candidate.status' && e.status === 'setup');
  return {
    wall: {
      'start-up (spawn -> run.started)': started.ms - processRun.startedAtMs,
      'candidates (run.started -> last candidate.finished)': lastCandidate.ms - started.ms,
      '  of which before the first setup': firstSetup.ms - started.ms,
      'selection (-> selection.finished)': selection.ms - lastCandidate.ms,
      'worktree removal (-> run.finished)': finished.ms - selection.ms,
      'reports + exit (run.finished -> exit)': processRun.endedAtMs - finished.ms,
    },
    perCandidate: {
      'setup (worktree add)': median(per.setup),
      'agent (script provider)': median(per.agent),
      'commit': median(per.commit),
      'checks': median(per.checks),
      'restore, reword, keep': median(per.restore),
      'finish (diff stat)': median(per.finish),
      'total per candidate': median(per.total),
    },
    sums: Object.fromEntries(Object.entries(per).map(([k, v]) => [k, v.reduce((a, b) => a + b, 0)])),
    peakConcurrency: peak,
  };
}

// ---------------------------------------------------------------------------------------------
// Reporting

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

const seconds = (ms) => `${(ms / 1000).toFixed(2)}s`;

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
  return rows.map((row) => row.map((cell, i) => (i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]))).join('  ')).join('\n');
}

/** bestof's default [parallel] max_concurrency, read from the built schema (the spec leaves it unset). */
async function defaultConcurrency() {
  try {
    const { specSchema } = await import(join(PROJECT, 'dist', 'spec', 'schema.js'));
    return specSchema.parse({ prompt: { text: 'x' } }).parallel.max_concurrency;
  } catch {
    return 4;
  }
}

async function nproc() {
  try {
    const result = await run('nproc', []);
    if (result.code === 0) return result.stdout.trim();
  } catch {
    // no nproc on this system
  }
  return `${availableParallelism()} (os.availableParallelism)`;
}

// ---------------------------------------------------------------------------------------------

async function main() {
  const options = readOptions();
  const temp = mkdtempSync(join(tmpdir(), 'bestof-bench-'));
  let cleaned = false;
  const cleanup = () => {
    if (cleaned) return;
    cleaned = true;
    rmSync(temp, { recursive: true, force: true });
  };
  const onSignal = (signal) => {
    cleanup();
    process.stderr.write(`bench-overhead: ${signal}: temp folders removed\n`);
    process.exit(130);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    const [gitVersion, cores, concurrency] = await Promise.all([git(PROJECT, ['--version']), nproc(), defaultConcurrency()]);
    const repo = join(temp, 'repo');
    const specDir = join(temp, 'spec');
    const baselineScript = join(temp, 'baseline.sh');
    writeFileSync(baselineScript, BASELINE_SCRIPT, { mode: 0o755 });

    process.stdout.write(`bench-overhead: ${options.files} files, ${options.candidates} candidates, ${options.repeat} round(s)\n`);
    process.stdout.write(`node ${process.version}, ${gitVersion.trim()}, nproc ${cores}\n`);
    process.stdout.write(`bestof max_concurrency: ${concurrency} (the default; the spec leaves it unset)\n`);

    const fixtureStarted = performance.now();
    await createRepo(repo, options.files);
    const spec = writeSpec(specDir, repo, options.candidates);
    process.stdout.write(`fixture repo created in ${seconds(performance.now() - fixtureStarted)}: ${repo}\n\n`);

    const sandboxSpecs = options.sandboxCost && (await bwrapWorks()) ? { off: writeCommandSpec(specDir, repo, options.candidates, 'off'), required: writeCommandSpec(specDir, repo, options.candidates, 'required') } : undefined;
    if (options.sandboxCost && !sandboxSpecs) process.stdout.write('sandbox cost: not measured, bubblewrap does not work here\n\n');
    const sandboxCalls = { off: [], required: [] };

    const rounds = [];
    for (let round = 1; round <= options.repeat; round++) {
      // Baseline: fresh branch names per round.
      const baselineWorktrees = join(temp, `baseline-worktrees-${round}`);
      mkdirSync(baselineWorktrees, { recursive: true });
      const baseline = await run('bash', [baselineScript, repo, baselineWorktrees, `baseline/r${round}`, String(options.candidates)], { cwd: repo });
      if (baseline.code !== 0) throw new Error(describeFailure(`baseline (round ${round})`, baseline));
      await cleanRepo(repo);

      // bestof: its branch names are unique per run.
      const bestofWorktrees = join(temp, `bestof-worktrees-${round}`);
      mkdirSync(bestofWorktrees, { recursive: true });
      const bestof = await run(process.execPath, [BESTOF_BIN, 'run', spec, '--no-tui'], {
        cwd: temp,
        env: { ...process.env, BESTOF_WORKTREES_DIR: bestofWorktrees },
      });
      if (bestof.code !== 0) throw new Error(describeFailure(`bestof run (round ${round})`, bestof));
      const phases = phasesOf(readRunEvents(repo), bestof);
      await cleanRepo(repo);

      rounds.push({ baseline: baseline.ms, bestof: bestof.ms, phases });
      process.stdout.write(`round ${round}: baseline ${seconds(baseline.ms)}, bestof ${seconds(bestof.ms)}\n`);

      if (sandboxSpecs) {
        // The sandbox pair, alternated with the rest so that a busy machine slows both alike.
        for (const mode of ['off', 'required']) {
          const worktrees = join(temp, `sandbox-${mode}-worktrees-${round}`);
          mkdirSync(worktrees, { recursive: true });
          const result = await run(process.execPath, [BESTOF_BIN, 'run', sandboxSpecs[mode], '--no-tui'], { cwd: temp, env: { ...process.env, BESTOF_WORKTREES_DIR: worktrees } });
          if (result.code !== 0) throw new Error(describeFailure(`bestof run, sandbox ${mode} (round ${round})`, result));
          const calls = readRunEvents(repo).filter((e) => e.type === 'provider.finished').map((e) => e.durationMs);
          sandboxCalls[mode].push(...calls);
          await cleanRepo(repo);
          process.stdout.write(`round ${round}: bestof with a command agent, sandbox ${mode}: ${seconds(result.ms)}, agent call median ${median(calls).toFixed(1)} ms\n`);
        }
      }
    }

    const baselineMedian = median(rounds.map((r) => r.baseline));
    const bestofMedian = median(rounds.map((r) => r.bestof));
    const ratio = bestofMedian / baselineMedian;

    process.stdout.write('\n');
    process.stdout.write(
      `${table([
        ['', ...rounds.map((_, i) => `round ${i + 1}`), 'median'],
        ['serial baseline', ...rounds.map((r) => seconds(r.baseline)), seconds(baselineMedian)],
        ['bestof', ...rounds.map((r) => seconds(r.bestof)), seconds(bestofMedian)],
        ['bestof/baseline', ...rounds.map((r) => `${(r.bestof / r.baseline).toFixed(2)}x`), `${ratio.toFixed(2)}x`],
      ])}\n`,
    );

    // Where bestof's time went, medians over the rounds.
    const wallKeys = Object.keys(rounds[0].phases.wall);
    const candidateKeys = Object.keys(rounds[0].phases.perCandidate);
    process.stdout.write(`\nbestof phases (from events.jsonl, median of ${rounds.length} round(s); timestamps have 1 ms resolution):\n`);
    process.stdout.write(
      `${table([
        ['wall clock', 'time'],
        ...wallKeys.map((k) => [k, seconds(median(rounds.map((r) => r.phases.wall[k])))]),
      ])}\n\n`,
    );
    process.stdout.write(
      `${table([
        [`per candidate (median; up to ${concurrency} overlap)`, 'time'],
        ...candidateKeys.map((k) => [k, seconds(median(rounds.map((r) => r.phases.perCandidate[k])))]),
      ])}\n`,
    );
    process.stdout.write(`peak concurrent candidates observed: ${Math.max(...rounds.map((r) => r.phases.peakConcurrency))}\n\n`);

    if (sandboxSpecs) {
      const off = median(sandboxCalls.off);
      const on = median(sandboxCalls.required);
      process.stdout.write(
        `sandbox: an agent call (a process that writes one file) took ${off.toFixed(1)} ms without the sandbox and ${on.toFixed(1)} ms in it, inside bestof: ${on - off >= 0 ? '+' : ''}${(on - off).toFixed(1)} ms per call (medians over ${sandboxCalls.off.length} calls each)\n\n`,
      );
    }
    if (ratio > AIM) process.stdout.write(`note: above the README's aim of ${AIM}x (not a failure: machines are shared)\n`);
    process.stdout.write(
      `ratio: ${ratio.toFixed(2)}x (bestof ${seconds(bestofMedian)} vs serial baseline ${seconds(baselineMedian)}, ${options.files} files, ${options.candidates} candidates)\n`,
    );
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
