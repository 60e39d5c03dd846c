#!/usr/bin/env node
/**
 * The terminal UI's cost under a flood of events, measured in one process.
 *
 *   node --expose-gc scripts/bench-ui.mjs [--candidates 16] [--rate 200] [--seconds 10] [--fps 15] [--warmup 0] [--baseline]
 *   npm run bench:ui            (builds first, runs with --baseline)
 *
 * `--candidates` scripted candidates each emit `--rate` events a second (mostly activity
 * lines, some with ANSI colours; every 25th a check result, a score or an agent result)
 * for `--seconds`, into the real UI, loaded as the CLI loads it (src/ui/load-ink-ui.ts): the
 * store (src/ui/state/ui-store.ts) and the Ink app,
 * rendering to a fake 160x50 terminal that counts what is written. Reported: CPU time
 * (user + system, process.cpuUsage) per wall-clock second, snapshots the store published,
 * and frames Ink wrote to the terminal; with --expose-gc, how much the heap grew (Ink keeps
 * every distinct text it measured). `--baseline` first measures the same event generation
 * into a listener that does nothing, then into the store alone, so each share can be told
 * apart. `--warmup` floods the UI for that many seconds before measuring, so that the
 * figure is the steady state rather than the JIT's first compilations.
 *
 * docs/benchmarks.md's aim is under a quarter of one core. Shared machines vary, so the exit code
 * never depends on the figures: non-zero means something failed.
 */
import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';

const PROJECT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const LOAD_UI = join(PROJECT, 'dist', 'ui', 'load-ink-ui.js');
const AIM_CORES = 0.25;

const { values } = parseArgs({
  options: {
    candidates: { type: 'string', default: '16' },
    rate: { type: 'string', default: '200' },
    seconds: { type: 'string', default: '10' },
    baseline: { type: 'boolean', default: false },
    fps: { type: 'string', default: '15' },
    warmup: { type: 'string', default: '0' },
  },
});

function positive(name, raw) {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) {
    process.stderr.write(`bench-ui: --${name} must be a positive number, got ${JSON.stringify(raw)}\n`);
    process.exit(2);
  }
  return n;
}

const CANDIDATES = Math.round(positive('candidates', values.candidates));
const RATE = positive('rate', values.rate);
const SECONDS = positive('seconds', values.seconds);
const FPS = positive('fps', values.fps);
const WARMUP = Number(values.warmup);
if (!Number.isFinite(WARMUP) || WARMUP < 0) {
  process.stderr.write(`bench-ui: --warmup must be a number of seconds, got ${JSON.stringify(values.warmup)}\n`);
  process.exit(2);
}

if (!existsSync(LOAD_UI)) {
  process.stderr.write('bench-ui: dist/ is missing: run `npm run build` first (npm run bench:ui does)\n');
  process.exit(2);
}
if (['CI', 'CONTINUOUS_INTEGRATION'].some((k) => process.env[k] !== undefined && process.env[k] !== '0' && process.env[k] !== 'false')) {
  process.stderr.write('bench-ui: note: CI is set, so Ink draws only its last frame; unset CI to measure the interactive renderer\n');
}

/** A terminal that keeps nothing: counts writes and bytes. */
class FakeTerminal extends EventEmitter {
  columns = 160;
  rows = 50;
  isTTY = true;
  writes = 0;
  bytes = 0;
  write(chunk, encoding, callback) {
    this.writes += 1;
    this.bytes += chunk.length;
    const done = typeof encoding === 'function' ? encoding : callback;
    if (typeof done === 'function') done();
    return true;
  }
}

/** A keyboard nobody types on. */
class SilentKeyboard extends EventEmitter {
  isTTY = true;
  setRawMode() {}
  setEncoding() {}
  resume() {}
  pause() {}
  ref() {}
  unref() {}
  read() {
    return null;
  }
}

const CHECKS = [
  { name: 'unit', score: 50 },
  { name: 'lint', score: 20 },
  { name: 'e2e', score: 30 },
];
const ids = Array.from({ length: CANDIDATES }, (_, i) => `c${i + 1}`);
const stampNow = (event) => ({ t: new Date().toISOString(), ...event });

function startEvents() {
  return [
    stampNow({
      type: 'run.started',
      runId: 'bench',
      name: 'bench-ui',
      repo: '/tmp/bench',
      base: 'HEAD',
      baseCommit: 'b'.repeat(40),
      runDir: '/tmp/bench/.bestof/runs/bench',
      specPath: '/tmp/bench/bestof.toml',
      candidates: ids.map((id, i) => ({
        id,
        index: i + 1,
        label: `agent-${i + 1}`,
        provider: 'command',
        model: i % 2 ? 'sonnet' : 'gpt-5',
        branch: `bestof/bench/${id}`,
        ref: `refs/bestof/bench/${id}`,
        worktree: `/tmp/wt/${id}`,
      })),
      checks: CHECKS,
      maxScore: 100,
      scoreThreshold: 100,
      maxIterations: 10,
      mergeMode: 'branch',
    }),
    ...ids.map((candidate) => stampNow({ type: 'candidate.status', candidate, status: 'running', iteration: 1 })),
  ];
}

/** The n-th event of a candidate: mostly activity, sometimes the results of an iteration. */
function nthEvent(candidate, n) {
  const iteration = 1 + Math.floor(n / 500);
  switch (n % 25) {
    case 5:
      return stampNow({
        type: 'provider.finished',
        candidate,
        iteration,
        outcome: 'success',
        costUsd: 0.0004,
        usage: { input: 900, output: 120, cacheRead: 0, cacheWrite: 0 },
        turns: 1,
        durationMs: 800,
      });
    case 10:
    case 11:
    case 12: {
      const check = CHECKS[(n % 25) - 10];
      const passed = (n + candidate.length) % 3 !== 0;
      return stampNow({
        type: 'check.finished',
        candidate,
        iteration,
        check: {
          name: check.name,
          passed,
          points: passed ? check.score : 0,
          maxPoints: check.score,
          exitCode: passed ? 0 : 1,
          timedOut: false,
          durationMs: 120,
          outputTail: passed ? '' : 'not ok 1 - expected 2, got 3',
        },
      });
    }
    case 13:
      return stampNow({ type: 'candidate.scored', candidate, iteration, score: 20 + (n % 80), maxScore: 100, failedChecks: ['e2e'] });
    default:
      return stampNow({
        type: 'candidate.activity',
        candidate,
        iteration,
        text:
          n % 7 === 0
            ? `\u001b[36mtool\u001b[0m Read src/module-${n % 97}.ts (${n} bytes)`
            : `Editing src/feature/part-${n % 53}.ts: replacing the parser's state machine, step ${n}`,
      });
  }
}

/** Emits RATE events a second per candidate for `seconds`, paced by the clock rather than by timer accuracy. */
function floodEvents(listener, seconds = SECONDS) {
  return new Promise((resolveFlood) => {
    const started = performance.now();
    const emitted = new Map(ids.map((id) => [id, 0]));
    let total = 0;
    const tick = () => {
      const elapsed = performance.now() - started;
      const due = Math.floor((Math.min(elapsed, seconds * 1000) / 1000) * RATE);
      for (const id of ids) {
        for (let n = emitted.get(id); n < due; n++) {
          listener(nthEvent(id, n));
          total += 1;
        }
        emitted.set(id, due);
      }
      if (elapsed >= seconds * 1000) {
        clearInterval(timer);
        resolveFlood(total);
      }
    };
    const timer = setInterval(tick, 5);
  });
}

async function measure(label, run) {
  const cpu0 = process.cpuUsage();
  const wall0 = performance.now();
  const extra = await run();
  const cpu = process.cpuUsage(cpu0);
  const wall = (performance.now() - wall0) / 1000;
  const cores = (cpu.user + cpu.system) / 1e6 / wall;
  return { label, wall, cores, cpuSeconds: (cpu.user + cpu.system) / 1e6, ...extra };
}

// Loaded the way the CLI loads it (React's production build).
const { startLiveUi } = await (await import(pathToFileURL(LOAD_UI).href)).loadInkUi();
const { createUiStore } = await import(pathToFileURL(join(PROJECT, 'dist', 'ui', 'state', 'ui-store.js')).href);

const results = [];
if (values.baseline) {
  results.push(await measure('events only (no UI)', async () => ({ events: await floodEvents(() => undefined) })));
  const store = createUiStore({ mode: 'live', maxFramesPerSecond: FPS });
  store.subscribe(() => undefined);
  for (const event of startEvents()) store.onEvent(event);
  results.push(
    await measure('store only (no Ink)', async () => {
      const events = await floodEvents(store.onEvent);
      return { events, snapshots: store.frames };
    }),
  );
  store.dispose();
}

// Mounted and drawn once before the clock starts: what is measured is the cost of the flood.
const terminal = new FakeTerminal();
const ui = startLiveUi({
  commands: { cancelRun() {} },
  maxFramesPerSecond: FPS,
  stdout: terminal,
  stdin: new SilentKeyboard(),
  env: {},
  size: { columns: terminal.columns, rows: terminal.rows },
});
for (const event of startEvents()) ui.onEvent(event);
ui.store.flush();
// The JIT compiles React, Ink and Yoga over the first few hundred frames; --warmup leaves them out.
if (WARMUP > 0) await floodEvents(ui.onEvent, WARMUP);
const framesBefore = ui.store.frames;
const writesBefore = terminal.writes;
const bytesBefore = terminal.bytes;
const heapUsed = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed;
};
const heapBefore = heapUsed();
results.push(
  await measure('store + Ink renderer', async () => {
    const events = await floodEvents(ui.onEvent);
    return { events, snapshots: ui.store.frames - framesBefore, writes: terminal.writes - writesBefore, bytes: terminal.bytes - bytesBefore };
  }),
);
const heapAfter = heapUsed();
ui.close();
await ui.closed;

process.stdout.write(
  `bench-ui: ${CANDIDATES} candidates x ${RATE} events/s for ${SECONDS}s${WARMUP > 0 ? ` after ${WARMUP}s of warm-up` : ' from a cold start'}, at most ${FPS} frames/s, ${availableParallelism()} cores, Node ${process.version}, load average ${loadavg()[0].toFixed(2)}\n`,
);
for (const r of results) {
  const snapshots = r.snapshots === undefined ? '' : `; ${r.snapshots} snapshots (${(r.snapshots / r.wall).toFixed(1)}/s)`;
  const frames =
    r.writes === undefined ? '' : `, ${r.writes} terminal writes (${(r.writes / r.wall).toFixed(1)}/s), ${(r.bytes / 1024 / 1024).toFixed(1)} MiB written`;
  process.stdout.write(
    `  ${r.label}: ${r.events} events in ${r.wall.toFixed(1)}s, CPU ${r.cpuSeconds.toFixed(2)}s = ${r.cores.toFixed(3)} cores${snapshots}${frames}\n`,
  );
}
const rendered = results[results.length - 1];
if (globalThis.gc) process.stdout.write(`  heap after a full GC: ${((heapAfter - heapBefore) / 1024 / 1024).toFixed(1)} MiB more than before the flood\n`);
process.stdout.write(`  aim: under ${AIM_CORES} of one core: ${rendered.cores < AIM_CORES ? 'met' : 'NOT met'} (${rendered.cores.toFixed(3)})\n`);
