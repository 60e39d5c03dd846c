#!/usr/bin/env node
/**
 * The cost of the sandbox per agent call: N runs of `true` started directly through runProcess
 * and N through wrapInSandbox (bubblewrap with the mounts an agent gets), alternated so that a
 * busy machine slows both alike. Prints the medians and the median of the paired ratios.
 * Needs `npm run build` first. Usage: node scripts/bench-sandbox.mjs [N]   (default 50)
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runProcess } from '../dist/process/run-process.js';
import { probeSandbox, wrapInSandbox } from '../dist/process/sandbox.js';

const n = Number(process.argv[2] ?? 50);
const probe = await probeSandbox();
if (!probe.ok) {
  console.error(`no sandbox here: ${probe.reason}`);
  process.exit(1);
}
const base = mkdtempSync(join(tmpdir(), 'bestof-bench-sandbox-'));
const layout = {
  bwrap: probe.bwrap,
  workdir: join(base, 'worktrees', 'run', 'c1'),
  home: join(base, 'worktrees', 'run', '.homes', 'c1'),
  hidden: [join(base, 'worktrees'), join(base, 'repo', '.bestof'), process.env.HOME ?? '/root'],
  writable: [],
  readOnly: [],
  pathVariable: process.env.PATH,
};
for (const dir of [layout.workdir, layout.home, join(base, 'repo', '.bestof')]) mkdirSync(dir, { recursive: true });
const env = { PATH: process.env.PATH };
const time = async (command, args) => {
  const start = performance.now();
  const result = await runProcess(command, args, { cwd: layout.workdir, env });
  if (!result.ok) throw new Error(`${command} failed: ${result.stderr}`);
  return performance.now() - start;
};
const wrapped = wrapInSandbox('/bin/true', [], layout);
const direct = [];
const sandboxed = [];
const ratios = [];
try {
  for (let i = 0; i < 3; i++) await time(wrapped.command, wrapped.args); // warm up
  for (let i = 0; i < n; i++) {
    const d = await time('/bin/true', []);
    const s = await time(wrapped.command, wrapped.args);
    direct.push(d);
    sandboxed.push(s);
    ratios.push(s / d);
  }
} finally {
  rmSync(base, { recursive: true, force: true });
}
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};
const md = median(direct);
const ms = median(sandboxed);
console.log(
  `sandbox cost per agent call (N=${n}, \`true\`): direct ${md.toFixed(1)} ms, sandboxed ${ms.toFixed(1)} ms, +${(ms - md).toFixed(1)} ms; median paired ratio ${median(ratios).toFixed(2)}x`,
);
