#!/usr/bin/env node
/**
 * How many git processes bestof starts, per phase of a candidate's iteration and per subcommand.
 *
 *   npx tsc -p tsconfig.build.json && node scripts/git-calls.mjs [--files 500] [--candidates 1,4] [--iterations 2] [--raw]
 *
 * In a temp folder: a git repo of `--files` small files (plus a frozen `tests/` folder), and a
 * spec per candidate count with `script` candidates (each iteration writes one file with new
 * content, so every iteration commits), one check (`true`, 1 point), `[checks] frozen =
 * ["tests"]`, merge = "branch", `[loop] max_iterations = --iterations` and a score_threshold
 * above the maximum, so that every candidate runs every iteration.
 *
 * A `git` wrapper first on PATH appends each call (time, folder, argv) to a log, then execs the
 * real git. src/git/running/spawn-git.ts spawns `git` through child_process.spawn with the
 * environment bestof hands it, whose PATH is the run's: the wrapper sees every call bestof makes
 * (the script checks that the log is not empty). Processes git itself starts (`git worktree add`
 * checking out) run from git's exec path and are not counted: only bestof's own.
 *
 * Each call is given to a candidate as scripts/lib/git-census.mjs does (the worktree, branch or ref
 * it names, or a commit only that candidate's calls name) or to the run, and to a phase by its time
 * against the candidate's events:
 *   setup       candidate.status setup   -> candidate.status running (worktree add, setup listing)
 *   agent       candidate.status running -> provider.finished (the git-dir watch; the script agent runs no git)
 *   commit      provider.finished        -> candidate.status checking (link check, watch restore, reclaim, filter, add, commit)
 *   prepare     candidate.status checking -> first check.finished (scoring tree: detach, reset, frozen restore, ...)
 *   after       first check.finished      -> candidate.scored (put-back, reword, kept ref)
 *   finish      candidate.scored -> the next iteration's candidate.status running, or candidate.finished
 * and, for the run: start-up (before run.started), selection (after the last candidate.finished),
 * removal (after selection.finished).
 *
 * Counts are exact (no timing), but the window a call falls in comes from the events' 1 ms
 * timestamps: a call at a window's edge can land in the neighbour. The total per candidate is exact.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { attributeCalls, subcommandOf } from './lib/git-census.mjs';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BESTOF_BIN = join(PROJECT, 'bin', 'bestof.js');
const FILES_PER_FOLDER = 100;

function readOptions() {
  const { values } = parseArgs({
    options: {
      files: { type: 'string', default: '500' },
      candidates: { type: 'string', default: '1,4' },
      iterations: { type: 'string', default: '2' },
      raw: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write('usage: node scripts/git-calls.mjs [--files 500] [--candidates 1,4] [--iterations 2] [--raw]\n');
    process.exit(0);
  }
  const int = (name, raw) => {
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--${name}: expected a whole number of at least 1, got ${JSON.stringify(raw)}`);
    return n;
  };
  return {
    files: int('files', values.files),
    candidates: values.candidates.split(',').map((c) => int('candidates', c.trim())),
    iterations: int('iterations', values.iterations),
    raw: values.raw,
  };
}

function run(command, args, { cwd, env } = {}) {
  return new Promise((done, fail) => {
    const out = [];
    const errOut = [];
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => errOut.push(c));
    child.on('error', fail);
    child.on('close', (code, signal) => done({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(errOut).toString('utf8') }));
  });
}

async function git(cwd, args) {
  const r = await run('git', args, { cwd });
  if (r.code !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}`);
  return r.stdout;
}

/** The real git: the first `git` on PATH (before the wrapper is put in front of it). */
function realGit() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const candidate = join(dir, 'git');
    if (dir !== '' && existsSync(candidate)) return candidate;
  }
  throw new Error('no git on PATH');
}

/**
 * The wrapper, bash: one line per call, written at once (lines of parallel calls do not mix): the
 * time ($EPOCHREALTIME: no extra process), the folder and the arguments, separated by US (\x1f) as
 * in scripts/lib/git-census.mjs, newlines inside an argument written as `\n`.
 */
function writeWrapper(dir, real) {
  mkdirSync(dir, { recursive: true });
  const wrapper = join(dir, 'git');
  writeFileSync(
    wrapper,
    [
      '#!/bin/bash',
      'if [ -n "$GIT_CALLS_LOG" ]; then',
      "  IFS=$'\\x1f'",
      '  line="${EPOCHREALTIME/,/.}"$\'\\x1f\'"$PWD"$\'\\x1f\'"$*"',
      "  line=${line//$'\\n'/\\\\n}",
      '  printf \'%s\\n\' "$line" >> "$GIT_CALLS_LOG"',
      'fi',
      `exec ${JSON.stringify(real)} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
}

async function createRepo(repo, files) {
  mkdirSync(repo, { recursive: true });
  await git(repo, ['init', '--quiet', '--initial-branch=main']);
  for (const [key, value] of [
    ['user.name', 'count'],
    ['user.email', 'count@localhost'],
    ['gc.auto', '0'],
    ['commit.gpgsign', 'false'],
  ])
    await git(repo, ['config', key, value]);
  for (let f = 0; f * FILES_PER_FOLDER < files; f++) {
    const dir = join(repo, 'src', `d${String(f).padStart(3, '0')}`);
    mkdirSync(dir, { recursive: true });
    for (let i = f * FILES_PER_FOLDER; i < Math.min(files, (f + 1) * FILES_PER_FOLDER); i++) writeFileSync(join(dir, `file${i}.txt`), `file ${i}\n`);
  }
  mkdirSync(join(repo, 'tests'));
  writeFileSync(join(repo, 'tests', 'a.test.sh'), 'true\n');
  writeFileSync(join(repo, 'tests', 'b.test.sh'), 'true\n');
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '--quiet', '--no-verify', '-m', 'fixture']);
}

function writeSpec(dir, repo, candidates, iterations) {
  mkdirSync(dir, { recursive: true });
  const script = ['# Each iteration writes one file with new content: every iteration commits.'];
  for (let i = 1; i <= iterations; i++) script.push('[[iterations]]', '[[iterations.steps]]', 'write = "out.txt"', `content = "iteration ${i}\\n"`);
  writeFileSync(join(dir, 'agent.toml'), `${script.join('\n')}\n`);
  const spec = join(dir, `n${candidates}.toml`);
  writeFileSync(
    spec,
    [
      `name = "git-calls-n${candidates}"`,
      `repo = ${JSON.stringify(repo)}`,
      '[prompt]',
      'text = "Write one file."',
      '[parallel]',
      `candidates = ${candidates}`,
      '[provider]',
      'kind = "script"',
      'script = "agent.toml"',
      '[loop]',
      `max_iterations = ${iterations}`,
      '# Above the one point there is: every candidate runs every iteration.',
      'score_threshold = 2',
      '[checks]',
      'frozen = ["tests"]',
      '[[checks.items]]',
      'name = "trivial"',
      'command = "true"',
      'score = 1',
      '[select]',
      'merge = "branch"',
      '',
    ].join('\n'),
  );
  return spec;
}

/** The git subcommand (scripts/lib/git-census.mjs) and the arguments after it. */
function splitCall(argv) {
  const sub = subcommandOf(argv);
  return { sub, rest: argv.slice(argv.indexOf(sub) + 1) };
}

/** A short name for what a call does: the subcommand, with the argument that tells its role apart. */
function stepName({ sub, rest }) {
  const has = (flag) => rest.includes(flag);
  switch (sub) {
    case 'config':
      if (has('--show-scope')) return 'config --show-scope --get-regexp (driver look-up, exec.ts)';
      if (rest.some((a) => a.includes('committer'))) return 'config --get-regexp (identity, exec.ts)';
      return `config ${rest.filter((a) => !a.startsWith('-')).join(' ')}`;
    case 'rev-parse':
      if (has('--git-common-dir') && has('--git-dir') && has('--path-format=absolute'))
        return 'rev-parse --path-format=absolute --git-common-dir --git-dir (git dirs, exec.ts)';
      if (rest.some((a) => a.endsWith('^{tree}'))) return 'rev-parse <commit>^{tree}';
      return `rev-parse ${rest.filter((a) => a.startsWith('-')).join(' ')}`.trim();
    case 'worktree':
    case 'update-index':
    case 'reset':
    case 'symbolic-ref':
      return `${sub} ${rest[0] ?? ''}`.trim();
    case 'update-ref':
      return `update-ref${has('--no-deref') ? ' --no-deref' : ''}${has('-d') ? ' -d' : ''}${has('--stdin') ? ' --stdin' : ''}`;
    case 'ls-files':
      return `ls-files ${rest.filter((a) => a.startsWith('-') && a !== '-z' && a !== '--').join(' ')}`.trim();
    case 'for-each-ref':
      return `for-each-ref ${rest.filter((a) => !a.startsWith('-')).join(' ')}`;
    case 'diff':
      return `diff ${rest.filter((a) => a.startsWith('-') && a !== '-z').join(' ')}`.trim();
    case 'clean':
      return `clean ${rest[0] ?? ''}`;
    default:
      return sub;
  }
}

function readLog(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((line) => {
      const [t, cwd, ...args] = line.split('\x1f');
      return { ms: Number(t) * 1000, cwd, args, ...splitCall(args) };
    });
}

function readEvents(repo) {
  const runsDir = join(repo, '.bestof', 'runs');
  const last = readdirSync(runsDir).sort().at(-1);
  return readFileSync(join(runsDir, last, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => {
      const e = JSON.parse(l);
      return { ...e, ms: Date.parse(e.t) };
    });
}

const PHASES = ['setup', 'agent', 'commit', 'prepare', 'after', 'finish'];
const PHASE_TITLES = {
  setup: 'setup (worktree add, setup listing)',
  agent: 'agent (git-dir watch around the call)',
  commit: 'commit (link check, watch restore, reclaim HEAD, filter, add, commit)',
  prepare: 'prepare (scoring tree: detach, reset, leftovers aside, frozen restore)',
  after: 'after the checks (put-back, attach HEAD, reword, kept ref)',
  finish: 'after candidate.scored (between iterations, and after the last)',
};

/** The candidate's windows: [startMs, phase, iteration], in time order. */
function windowsOf(events, id) {
  const mine = events.filter((e) => e.candidate === id);
  const windows = [];
  let iteration = 0;
  let inChecks = false;
  for (const e of mine) {
    if (e.type === 'candidate.status' && e.status === 'setup') windows.push([e.ms, 'setup', 0]);
    else if (e.type === 'candidate.status' && e.status === 'running') {
      iteration = e.iteration;
      windows.push([e.ms, 'agent', iteration]);
    } else if (e.type === 'provider.finished') windows.push([e.ms, 'commit', iteration]);
    else if (e.type === 'candidate.status' && e.status === 'checking') {
      inChecks = true;
      windows.push([e.ms, 'prepare', iteration]);
    } else if (e.type === 'check.finished' && inChecks) {
      inChecks = false;
      windows.push([e.ms, 'after', iteration]);
    } else if (e.type === 'candidate.scored') windows.push([e.ms, 'finish', iteration]);
    else if (e.type === 'candidate.finished') windows.push([e.ms, 'end', iteration]);
  }
  return windows;
}

function phaseAt(windows, ms) {
  let found;
  for (const w of windows) if (w[0] <= ms) found = w;
  return found;
}

async function measure(temp, options, candidates, wrapperDir) {
  const repo = join(temp, `repo-n${candidates}`);
  const worktrees = join(temp, `worktrees-n${candidates}`);
  const log = join(temp, `git-n${candidates}.log`);
  mkdirSync(worktrees, { recursive: true });
  await createRepo(repo, options.files);
  const spec = writeSpec(join(temp, 'spec'), repo, candidates, options.iterations);
  const result = await run(process.execPath, [BESTOF_BIN, 'run', spec, '--no-tui'], {
    cwd: temp,
    env: { ...process.env, PATH: `${wrapperDir}${delimiter}${process.env.PATH ?? ''}`, BESTOF_WORKTREES_DIR: worktrees, GIT_CALLS_LOG: log },
  });
  if (result.code !== 0) throw new Error(`bestof run (N=${candidates}) exited with ${result.code ?? result.signal}\n${result.stdout}\n${result.stderr}`);
  const calls = readLog(log);
  if (calls.length === 0) throw new Error('the git wrapper saw no call: bestof does not start git from PATH any more?');
  const events = readEvents(repo);
  const started = events.find((e) => e.type === 'run.started');
  const ids = started.candidates.map((c) => c.id);
  const lastFinished = events.filter((e) => e.type === 'candidate.finished').at(-1);
  const selection = events.find((e) => e.type === 'selection.finished');
  // Whose call it is: the one candidate it names (worktree, branch, ref) or whose commit it names.
  const { perCandidate: owned } = attributeCalls(calls, { tag: started.runId, candidates: ids, ignoreCommits: [started.baseCommit] });
  const owners = new Map();
  for (const [id, own] of owned) for (const call of own) owners.set(call, id);

  const windows = Object.fromEntries(ids.map((id) => [id, windowsOf(events, id)]));
  const perPhase = new Map(); // phase -> step -> count
  const add = (phase, step) => {
    if (!perPhase.has(phase)) perPhase.set(phase, new Map());
    const steps = perPhase.get(phase);
    steps.set(step, (steps.get(step) ?? 0) + 1);
  };
  const perCandidate = new Map(ids.map((id) => [id, 0]));
  for (const call of calls) {
    const step = stepName(call);
    const owner = owners.get(call);
    const window = owner ? phaseAt(windows[owner], call.ms) : undefined;
    if (owner && window && window[1] !== 'end') {
      perCandidate.set(owner, perCandidate.get(owner) + 1);
      add(window[1], step);
    } else if (call.ms < started.ms) add('run: start-up', step);
    else if (selection && call.ms >= selection.ms) add('run: after selection (merge, removal)', step);
    else if (call.ms >= lastFinished.ms) add('run: selection', step);
    else add(owner ? `${owner}: after candidate.finished` : 'run: while the candidates run', step);
  }
  return { candidates, calls, perPhase, perCandidate, iterations: options.iterations };
}

function report(m) {
  const n = m.candidates;
  const it = m.iterations;
  const lines = [`## N = ${n}, ${it} iteration(s) each: ${m.calls.length} git processes in all`];
  const per = (phase) => (phase === 'setup' || phase === 'finish' ? n : PHASES.includes(phase) ? n * it : 1);
  const unit = (phase) => (phase === 'setup' || phase === 'finish' ? 'per candidate' : PHASES.includes(phase) ? 'per candidate-iteration' : 'per run');
  const order = [...PHASES, ...[...m.perPhase.keys()].filter((p) => !PHASES.includes(p)).sort()];
  let perIteration = 0;
  for (const phase of order) {
    const steps = m.perPhase.get(phase);
    if (!steps) continue;
    const total = [...steps.values()].reduce((a, b) => a + b, 0);
    const share = total / per(phase);
    if (['agent', 'commit', 'prepare', 'after'].includes(phase)) perIteration += share;
    lines.push(`${PHASE_TITLES[phase] ?? phase}: ${fmt(share)} ${unit(phase)}`);
    for (const [step, count] of [...steps].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)))
      lines.push(`    ${fmt(count / per(phase)).padStart(5)}  ${step}`);
  }
  lines.push(`per candidate-iteration (agent + commit + prepare + after): ${fmt(perIteration)}`);
  lines.push(`per candidate, all phases: ${[...m.perCandidate.values()].map(String).join(', ')}`);
  return lines.join('\n');
}

const fmt = (x) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

async function main() {
  const options = readOptions();
  if (!existsSync(join(PROJECT, 'dist', 'cli'))) throw new Error('dist/ is missing: build first (npx tsc -p tsconfig.build.json)');
  const temp = mkdtempSync(join(tmpdir(), 'bestof-git-calls-'));
  try {
    const real = realGit();
    const wrapperDir = join(temp, 'bin');
    writeWrapper(wrapperDir, real);
    const version = (await git(PROJECT, ['--version'])).trim();
    process.stdout.write(
      `git-calls: ${options.files} files, candidates ${options.candidates.join(' and ')}, ${options.iterations} iteration(s); ${version}, node ${process.version}\n\n`,
    );
    for (const n of options.candidates) {
      const m = await measure(temp, options, n, wrapperDir);
      process.stdout.write(`${report(m)}\n\n`);
      if (options.raw) for (const c of m.calls) process.stdout.write(`${c.ms.toFixed(1)} ${c.cwd} git ${c.args.join(' ')}\n`);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`git-calls: FAILED: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
