#!/usr/bin/env node
/**
 * The floor of a Node program: the bash baseline's steps (scripts/bench-overhead.mjs
 * BASELINE_SCRIPT), one for one, run by one Node process as bestof runs them: every git process
 * started with child_process.spawn from this process's main thread, `concurrency` candidates at a
 * time, the two steps that write git's worktree records one at a time (an in-process lock: the
 * cheapest there is, where the baseline takes `flock` and bestof a lock file).
 *
 *   node scripts/lib/node-floor.mjs <repo> <worktrees> <tag> <count> <concurrency> <timings> <agent output>
 *
 * It does nothing bestof does beyond the baseline (no guard, no frozen restore, no reword, no
 * event log, no report) and loads no module of bestof's. Its time against the baseline's is what
 * Node itself costs (its start, and its `spawn`, which forks the whole Node process where bash forks
 * a small one); bestof's time against its time is what bestof's own work costs. It writes the same
 * timings file as the baseline (one line per candidate: its id and 7 timestamps in seconds), so
 * that the benchmark reads both with one parser.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [repo, worktrees, tag, countText, concurrencyText, timings, agentOutput] = process.argv.slice(2);
const count = Number(countText);
const concurrency = Number(concurrencyText);
if (!repo || !worktrees || !tag || !(count >= 1) || !(concurrency >= 1) || !timings || agentOutput === undefined) {
  process.stderr.write('usage: node-floor.mjs <repo> <worktrees> <tag> <count> <concurrency> <timings> <agent output>\n');
  process.exit(2);
}

/** Runs a command to its end; a non-zero exit or a signal throws with what it printed. */
function run(command, args, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
    const stderr = [];
    child.stderr.on('data', (chunk) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} in ${cwd}: ${signal ?? `exit ${code}`}: ${Buffer.concat(stderr)}`)),
    );
  });
}

let recordsLock = Promise.resolve();
/** `fn` once every earlier call's `fn` has settled. */
function oneAtATime(fn) {
  const turn = recordsLock.then(fn);
  recordsLock = turn.catch(() => undefined);
  return turn;
}

const seconds = () => (performance.timeOrigin + performance.now()) / 1000;

async function candidate(n) {
  const id = `c${n}`;
  const path = join(worktrees, id);
  const t = [seconds()];
  if (concurrency === 1) {
    await run('git', ['-C', repo, 'worktree', 'add', '--quiet', '-b', `baseline/${tag}/${id}`, path, 'HEAD'], repo);
  } else {
    await oneAtATime(() => run('git', ['-C', repo, 'worktree', 'add', '--quiet', '--no-checkout', '-b', `baseline/${tag}/${id}`, path, 'HEAD'], repo));
    await run('git', ['-C', path, 'reset', '--quiet', '--hard'], repo);
  }
  t.push(seconds());
  writeFileSync(join(path, 'bench-output.txt'), agentOutput);
  t.push(seconds());
  await run('git', ['-C', path, 'add', '-A'], repo);
  await run('git', ['-C', path, 'commit', '--quiet', '--no-verify', '-m', id], repo);
  t.push(seconds());
  await run('sh', ['-c', 'true'], path);
  t.push(seconds());
  await run('git', ['-C', path, 'update-ref', `refs/baseline/${tag}/${id}/kept`, 'HEAD'], repo);
  t.push(seconds());
  if (concurrency === 1) {
    await run('git', ['-C', repo, 'worktree', 'remove', '--force', path], repo);
  } else {
    rmSync(path, { recursive: true, force: true });
    await oneAtATime(() => run('git', ['-C', repo, 'worktree', 'prune'], repo));
  }
  t.push(seconds());
  appendFileSync(timings, `${id} ${t.map((s) => s.toFixed(6)).join(' ')}\n`);
}

mkdirSync(worktrees, { recursive: true });
let next = 1;
const worker = async () => {
  while (next <= count) await candidate(next++);
};
await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
