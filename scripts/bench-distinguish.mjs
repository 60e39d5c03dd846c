#!/usr/bin/env node
/**
 * What the distinguish step adds to a run: its wall time and its cost, measured on the offline
 * example (configs/examples/distinguish.toml), against the same run without the step measured in
 * the same rounds.
 *
 *   node scripts/bench-distinguish.mjs [--rounds 3]        (npm run bench:distinguish builds first)
 *
 * Each round: a temp repo holding a copy of configs/, committed; the example run by the built
 * binary with `[select.distinguish]` and without it (the order alternating from round to round).
 * The figure: the median of the per-round ratios with / without, with the smallest and the
 * largest; the step's own time from its events (distinguish.started to distinguish.finished); the
 * tester's cost and the runs of test files it took. The example's tester is a script: its cost is
 * $0, so the cost line says what a real tester's call adds (one agent call, counted in the run's
 * budget), and the time is the tests' runs (files x (finalists + base)) plus the tester's call.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { median } from './lib/paired.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 3;
const bin = join(root, 'bin', 'bestof.js');

function oneRun(withStep) {
  const dir = mkdtempSync(join(tmpdir(), 'bestof-bench-distinguish-'));
  try {
    const git = (...args) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
    git('init', '-q', '--initial-branch=main');
    git('config', 'user.email', 'bench@example.com');
    git('config', 'user.name', 'bench');
    cpSync(join(root, 'configs'), join(dir, 'configs'), { recursive: true });
    const example = readFileSync(join(dir, 'configs/examples/distinguish.toml'), 'utf8');
    writeFileSync(join(dir, 'configs/examples/plain.toml'), example.replace(/^\[select\.distinguish\][\s\S]*$/m, ''));
    git('add', '-A');
    git('commit', '-qm', 'fixture');
    const spec = withStep ? 'configs/examples/distinguish.toml' : 'configs/examples/plain.toml';
    const started = process.hrtime.bigint();
    const res = spawnSync(process.execPath, [bin, 'run', spec, '--no-tui'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, BESTOF_WORKTREES_DIR: join(dir, '.worktrees') },
    });
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 0) throw new Error(`bestof run exited ${res.status}: ${res.stderr}\n${res.stdout}`);
    const runsDir = join(dir, '.bestof', 'runs');
    const runDir = join(runsDir, readdirSync(runsDir)[0]);
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const at = (type) => events.find((e) => e.type === type)?.t;
    const stepMs = withStep ? Date.parse(at('distinguish.finished')) - Date.parse(at('distinguish.started')) : 0;
    const tester = events.find((e) => e.type === 'distinguish.tester');
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8'));
    return { ms, stepMs, testerCost: tester?.costUsd ?? 0, testRuns: events.filter((e) => e.type === 'distinguish.run').length, winner: report.winner };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const ratios = [];
const steps = [];
let last;
for (let round = 1; round <= rounds; round++) {
  const order = round % 2 === 1 ? [false, true] : [true, false];
  const got = {};
  for (const withStep of order) got[withStep] = oneRun(withStep);
  ratios.push(got.true.ms / got.false.ms);
  steps.push(got.true.stepMs);
  last = got;
  console.log(
    `round ${round}: without ${(got.false.ms / 1000).toFixed(1)} s (winner ${got.false.winner}), with ${(got.true.ms / 1000).toFixed(1)} s (winner ${got.true.winner}; the step ${(got.true.stepMs / 1000).toFixed(1)} s, ${got.true.testRuns} test runs)`,
  );
}
const sorted = [...ratios].sort((a, b) => a - b);
console.log(
  `\nwith / without: ${median(ratios).toFixed(2)}x [${sorted[0].toFixed(2)}, ${sorted.at(-1).toFixed(2)}] over ${rounds} rounds; the step itself ${(median(steps) / 1000).toFixed(1)} s (median); the tester's cost $${last.true.testerCost.toFixed(2)} (a scripted tester: a real one adds one agent call)`,
);
