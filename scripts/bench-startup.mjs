#!/usr/bin/env node
/**
 * How long bestof's quick commands take to start, against `node -e 0`, and how many modules
 * each one loads.
 *
 *   npm run build && node scripts/bench-startup.mjs [--rounds 15] [--bin other/bin/bestof.js] [--against before/bin/bestof.js]
 *
 * In a temp folder: a git repo with 3 finished runs (made by `bestof run` with a script agent,
 * merge = "branch"), a spec with a `script` agent and one with `kind = "claude"` whose
 * `command` is the absolute path of a fake CLI (a shell script that prints a version).
 *
 * Each round runs every command once, in the repo, stdout and stderr piped (so `show` is not
 * on a terminal and prints Markdown): `node -e 0`, `bestof --version`, `bestof ls`,
 * `bestof show <run>`, `bestof validate <script spec>`, `bestof validate <claude spec>`. The
 * order rotates from round to round so that no command always runs first or after the same
 * one. Each command's time is divided by the `node -e 0` of the same round; the table gives the
 * median of those paired ratios with their min and max, and the median in milliseconds, for the
 * wall time and for the CPU time (user + sys of the process and its children, from bash's
 * `time`: on a shared machine it swings far less with the neighbours' load than the wall time).
 * One warm-up round is not counted. Every command must exit 0 with the output it should have.
 *
 * `--against <bin>`: the same bestof commands of another build (a copy of bin/ and dist/ from
 * before a change, with its node_modules) run in the same rounds, marked "(against)", so that a
 * before/after comparison is paired round by round even when the machine's load drifts.
 *
 * Modules: each command runs once more with scripts/list-modules.mjs preloaded
 * (NODE_OPTIONS=--import, see that file), which records every ES module and every CommonJS
 * file the process loaded; the count excludes node:* builtins. test/binary/startup-imports.test.ts
 * checks the same lists for ink and react.
 *
 * docs/benchmarks.md's aim is under 2x `node -e 0` for validate, ls and show. These are shared
 * machines, so the exit code never depends on the ratios: non-zero means something failed.
 */
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LIST_MODULES = join(PROJECT, 'scripts', 'list-modules.mjs');
const AIM = 2;

function readOptions() {
  const { values } = parseArgs({
    options: {
      rounds: { type: 'string', default: '15' },
      bin: { type: 'string', default: join(PROJECT, 'bin', 'bestof.js') },
      against: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    strict: true,
  });
  if (values.help) {
    process.stdout.write('usage: node scripts/bench-startup.mjs [--rounds 15] [--bin path/to/bin/bestof.js] [--against path/to/other/bin/bestof.js]\n');
    process.exit(0);
  }
  const rounds = Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error(`--rounds: expected a whole number of at least 1, got ${JSON.stringify(values.rounds)}`);
  return { rounds, bin: resolve(values.bin), against: values.against === undefined ? undefined : resolve(values.against) };
}

/** Runs a program to completion; resolves with its exit code, output and wall time (never rejects on exit codes). */
function run(command, args, { cwd, env } = {}) {
  return new Promise((resolvePromise, reject) => {
    let stdout = '';
    let stderr = '';
    const started = performance.now();
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolvePromise({ code, signal, stdout, stderr, ms: performance.now() - started }));
  });
}

function git(cwd, ...args) {
  return run('git', args, { cwd }).then((result) => {
    if (result.code !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${result.stderr}`);
    return result.stdout.trim();
  });
}

const FIX_SCRIPT = `[[steps]]
write = "src/add.mjs"
content = "export const add = (a, b) => a + b;\\n"
`;

const CHECKS = `[checks]
[[checks.items]]
name = "tests"
command = "node --test test/"
score = 10
timeout = "60s"
`;

/** The temp repo with its finished runs, the specs, and the commands to time. */
async function setUp(bin, against) {
  const root = mkdtempSync(join(tmpdir(), 'bestof-bench-startup-'));
  const repo = join(root, 'repo');
  const outside = join(root, 'outside');
  const env = { ...process.env, NO_COLOR: '1', BESTOF_WORKTREES_DIR: join(root, 'worktrees') };
  await run('mkdir', ['-p', join(repo, 'src'), join(repo, 'test'), outside]);
  writeFileSync(join(repo, 'src', 'add.mjs'), 'export const add = (a, b) => 0;\n');
  writeFileSync(
    join(repo, 'test', 'add.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
  );
  await git(repo, 'init', '--quiet', '--initial-branch=main');
  for (const [key, value] of [
    ['user.name', 'Bench'],
    ['user.email', 'bench@example.com'],
    ['gc.auto', '0'],
    ['commit.gpgsign', 'false'],
  ]) {
    await git(repo, 'config', key, value);
  }
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '--quiet', '-m', 'initial');

  writeFileSync(join(outside, 'fix.toml'), FIX_SCRIPT);
  const head = `name = "startup"\nrepo = ${JSON.stringify(repo)}\n\n[prompt]\ntext = "Make the tests pass."\n\n`;
  const scriptSpec = join(outside, 'script.toml');
  writeFileSync(scriptSpec, `${head}[parallel]\ncandidates = 2\n\n[provider]\nkind = "script"\nscript = "fix.toml"\n\n${CHECKS}\n[select]\nmerge = "branch"\n`);
  const fakeClaude = join(outside, 'fake-claude');
  writeFileSync(fakeClaude, '#!/bin/sh\necho "2.1.0 (Claude Code)"\n');
  chmodSync(fakeClaude, 0o755);
  const claudeSpec = join(outside, 'claude.toml');
  writeFileSync(
    claudeSpec,
    `${head}[provider]\nkind = "claude"\ncommand = ${JSON.stringify(fakeClaude)}\nenv = { ANTHROPIC_API_KEY = "sk-bench" }\n\n${CHECKS}\n[select]\nmerge = "branch"\n`,
  );

  for (let i = 0; i < 3; i++) {
    const result = await run(process.execPath, [bin, 'run', scriptSpec, '--no-tui'], { cwd: repo, env });
    if (result.code !== 0) throw new Error(`setting up: bestof run exited ${result.code}: ${result.stderr}`);
  }
  const runIds = readdirSync(join(repo, '.bestof', 'runs')).sort();
  if (runIds.length !== 3) throw new Error(`setting up: expected 3 runs, found ${runIds.length}`);

  /** The bestof commands of one build; `suffix` marks the --against build's. */
  const bestofCommands = (binary, suffix) => {
    const bestof = (...args) => [process.execPath, [binary, ...args]];
    return [
      { name: `bestof --version${suffix}`, argv: bestof('--version'), expect: (r) => /^\d+\.\d+\.\d+\n$/.test(r.stdout) },
      { name: `bestof ls${suffix}`, argv: bestof('ls'), expect: (r) => r.stdout.trim().split('\n').length === 3 },
      { name: `bestof show <run>${suffix}`, argv: bestof('show', runIds[1]), expect: (r) => r.stdout.includes(runIds[1]) },
      { name: `bestof validate (script)${suffix}`, argv: bestof('validate', scriptSpec), expect: (r) => r.stdout === 'ok\n' },
      { name: `bestof validate (claude)${suffix}`, argv: bestof('validate', claudeSpec), expect: (r) => r.stdout === 'ok\n' },
    ];
  };
  const commands = [
    { name: 'node -e 0', argv: [process.execPath, ['-e', '0']], expect: (r) => r.stdout === '' },
    ...bestofCommands(bin, ''),
    ...(against === undefined ? [] : bestofCommands(against, ' (against)')),
  ];
  return { root, repo, env, commands };
}

/**
 * bash's `time` around the command, for its CPU time (user + sys, its children included, in ms):
 * on a shared machine the wall time swings with the neighbours' load, the CPU time much less.
 * The report goes to a file, the command's own output to the pipes.
 */
const TIMED = 'TIMEFORMAT="%3U %3S"; { time "$@" 2>&3; } 3>&2 2>"$BENCH_TIME_FILE"';

async function timeOnce(command, { root, repo, env }) {
  const [program, args] = command.argv;
  const timeFile = join(root, 'time.txt');
  const result = await run('bash', ['-c', TIMED, 'bash', program, ...args], { cwd: repo, env: { ...env, BENCH_TIME_FILE: timeFile } });
  if (result.code !== 0 || !command.expect(result)) {
    throw new Error(`${command.name} exited ${result.code} with unexpected output:\n${result.stdout}\n${result.stderr}`);
  }
  const [user, sys] = readFileSync(timeFile, 'utf8').trim().split(/\s+/).map(Number);
  return { ms: result.ms, cpuMs: (user + sys) * 1000 };
}

/** The modules one command loads (scripts/list-modules.mjs), with the node_modules packages among them. */
async function modulesOf(command, { root, repo, env }) {
  const out = join(root, 'modules.json');
  rmSync(out, { force: true });
  const [program, args] = command.argv;
  const nodeOptions = [env.NODE_OPTIONS, `--import=${LIST_MODULES}`].filter(Boolean).join(' ');
  const result = await run(program, args, { cwd: repo, env: { ...env, BESTOF_MODULE_LIST: out, NODE_OPTIONS: nodeOptions } });
  if (result.code !== 0) throw new Error(`${command.name} (listing modules) exited ${result.code}: ${result.stderr}`);
  const { modules } = JSON.parse(readFileSync(out, 'utf8'));
  const packages = new Set();
  for (const url of modules) {
    const at = url.lastIndexOf('/node_modules/');
    if (at < 0) continue;
    const parts = url.slice(at + '/node_modules/'.length).split('/');
    packages.add(parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0]);
  }
  return { count: modules.length, packages: [...packages].sort() };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

async function main() {
  const options = readOptions();
  const setup = await setUp(options.bin, options.against);
  try {
    const { commands } = setup;
    const times = new Map(commands.map((c) => [c.name, []]));
    for (let round = 0; round <= options.rounds; round++) {
      const order = commands.map((_, i) => commands[(i + round) % commands.length]);
      const roundTimes = new Map();
      for (const command of order) roundTimes.set(command.name, await timeOnce(command, setup));
      if (round === 0) continue; // warm-up: caches, the first git call
      const base = roundTimes.get('node -e 0');
      for (const [name, t] of roundTimes) times.get(name).push({ ...t, ratio: t.ms / base.ms, cpuRatio: t.cpuMs / Math.max(base.cpuMs, 1) });
      process.stderr.write(`round ${round}/${options.rounds}\r`);
    }
    process.stderr.write('\n');

    const rows = [];
    for (const command of commands) {
      const samples = times.get(command.name);
      const ratios = samples.map((s) => s.ratio);
      const cpuRatios = samples.map((s) => s.cpuRatio);
      const modules = command.name === 'node -e 0' ? { count: 0, packages: [] } : await modulesOf(command, setup);
      rows.push({
        name: command.name,
        ms: median(samples.map((s) => s.ms)),
        ratio: median(ratios),
        min: Math.min(...ratios),
        max: Math.max(...ratios),
        cpuMs: median(samples.map((s) => s.cpuMs)),
        cpuRatio: median(cpuRatios),
        cpuMin: Math.min(...cpuRatios),
        cpuMax: Math.max(...cpuRatios),
        modules,
      });
    }

    process.stdout.write(
      `bestof startup against \`node -e 0\`, ${options.rounds} alternated rounds, node ${process.version}, ${new Date().toISOString().slice(0, 10)}\n`,
    );
    process.stdout.write(`bin: ${options.bin}\n${options.against === undefined ? '' : `against: ${options.against}\n`}\n`);
    process.stdout.write(
      '| command | wall (median) | wall x node -e 0 | min-max | CPU (median) | CPU x node -e 0 | min-max | modules | packages from node_modules |\n',
    );
    process.stdout.write('|---|---:|---:|---:|---:|---:|---:|---:|---|\n');
    for (const row of rows) {
      const baseline = row.name === 'node -e 0';
      const x = (value) => `${value.toFixed(2)}x`;
      const range = (lo, hi) => (baseline ? '' : `${lo.toFixed(2)}-${hi.toFixed(2)}`);
      process.stdout.write(
        `| ${row.name} | ${row.ms.toFixed(0)} ms | ${baseline ? '1.00x' : x(row.ratio)} | ${range(row.min, row.max)} | ${row.cpuMs.toFixed(0)} ms | ${baseline ? '1.00x' : x(row.cpuRatio)} | ${range(row.cpuMin, row.cpuMax)} | ${row.modules.count} | ${row.modules.packages.join(', ') || '-'} |\n`,
      );
    }
    process.stdout.write(
      "\nRatios are medians of per-round ratios to the same round's `node -e 0`; CPU is user + sys of the process and its children (git, bwrap).\n",
    );
    const over = rows.filter((r) => /ls|show|validate/.test(r.name) && !r.name.endsWith('(against)') && r.ratio >= AIM).map((r) => r.name);
    process.stdout.write(`Aim: validate, ls and show under ${AIM}x node -e 0 (wall). ${over.length === 0 ? 'Met.' : `Not met by: ${over.join(', ')}.`}\n`);
  } finally {
    rmSync(setup.root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench-startup: ${error?.stack ?? error}\n`);
  process.exit(1);
});
