#!/usr/bin/env node
/**
 * Plain worktrees against copy-on-write (overlay) worktrees, for N candidates of one repository.
 *
 *   node scripts/bench-worktrees.mjs [--files 5000,50000] [--candidates 8] [--repeat 3] [--concurrency 4]
 *   (needs the build: npx tsc -p tsconfig.build.json; Linux with overlayfs in user namespaces)
 *
 * For each repo size (`--files`): in a temp folder, a git repo of that many small files spread over
 * folders (one commit). Each round times both sides, one after the other (the plain side first in
 * odd rounds, second in even ones), each in two steps:
 *
 *   plain     create: `git worktree add -b <branch> <path> HEAD` for each candidate, `--concurrency`
 *             at a time (bestof's default is 4);
 *             status: `git status --porcelain` in each worktree, `--concurrency` at a time.
 *   overlay   create: one overlay holder (src/process/overlay-holder.ts), the shared base checkout
 *             (one `git worktree add --detach`), then for each candidate its branch, its admin entry
 *             (`git worktree add --no-checkout`), its index copied from the base's, its mount, at the
 *             same concurrency (dist/git/worktrees/cow-worktree.js: what bestof would run);
 *             status: `git status --porcelain` in each worktree inside the holder's namespace (nsenter).
 *
 * Between the sides (untimed) every worktree, branch, layer and base is removed. The result per size:
 * each side's median and the median of the per-round ratios overlay/plain with their minimum and
 * maximum (scripts/lib/paired.mjs), for create, status and both; and, for the aim, the
 * overlay side's create+status against one plain `git worktree add` x N / concurrency (the single
 * add timed once per round, before the sides).
 *
 * These are shared machines: the exit code never depends on the ratios; non-zero means something
 * failed.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRatio, median, parseCountList, summarizePairs } from './lib/paired.mjs';
import { createRepo, git, must, seconds, singlePlainAdd } from './lib/bench-git.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const USAGE = 'usage: node scripts/bench-worktrees.mjs [--files 5000,50000] [--candidates 8] [--repeat 3] [--concurrency 4]\n';

function parseArgs(argv) {
  const opts = { files: [5000, 50000], candidates: 8, repeat: 3, concurrency: 4 };
  for (let i = 0; i < argv.length; i++) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (value === undefined && name !== '--help') throw new Error(`${name} needs a value\n${USAGE}`);
    if (name === '--files') opts.files = parseCountList('--files', value, 1_000_000);
    else if (name === '--candidates') opts.candidates = parseCountList('--candidates', value, 64)[0];
    else if (name === '--repeat') opts.repeat = parseCountList('--repeat', value, 50)[0];
    else if (name === '--concurrency') opts.concurrency = parseCountList('--concurrency', value, 64)[0];
    else if (name === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    } else throw new Error(`unknown option ${name}\n${USAGE}`);
    i++;
  }
  return opts;
}

/** Runs `task(i)` for i in 0..count-1, `limit` at a time. */
async function pool(count, limit, task) {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, count) }, async () => {
    while (next < count) {
      const i = next++;
      await task(i);
    }
  });
  await Promise.all(workers);
}

async function plainSide(ctx, round) {
  const paths = Array.from({ length: ctx.n }, (_, i) => join(ctx.wtRoot, `plain-${round}-${i}`));
  const t0 = performance.now();
  await pool(ctx.n, ctx.concurrency, (i) => git(ctx.repo, ['worktree', 'add', '--quiet', '-b', `bench/plain-${round}-${i}`, paths[i], 'HEAD']));
  const t1 = performance.now();
  await pool(ctx.n, ctx.concurrency, async (i) => {
    const out = await git(paths[i], ['status', '--porcelain']);
    if (out.trim() !== '') throw new Error(`plain worktree ${paths[i]} is not clean: ${out.slice(0, 200)}`);
  });
  const t2 = performance.now();
  for (let i = 0; i < ctx.n; i++) {
    await git(ctx.repo, ['worktree', 'remove', '--force', paths[i]]);
    await git(ctx.repo, ['branch', '-D', '--quiet', `bench/plain-${round}-${i}`]);
  }
  return { create: t1 - t0, status: t2 - t1 };
}

async function overlaySide(ctx, round) {
  const { startOverlayHolder } = ctx.holderModule;
  const { prepareCowBase, addCowWorktree, removeCowWorktree, removeCowBase } = ctx.cowModule;
  const lower = join(ctx.wtRoot, `base-${round}`);
  const paths = Array.from({ length: ctx.n }, (_, i) => join(ctx.wtRoot, `cow-${round}-${i}`));
  const layers = paths.map((_, i) => join(ctx.wtRoot, '.layers', `cow-${round}-${i}`));
  const t0 = performance.now();
  const started = await startOverlayHolder();
  if (!started.ok) throw new Error(started.error);
  const holder = started.value;
  const base = await prepareCowBase(ctx.repo, lower, 'HEAD');
  if (!base.ok) throw new Error(base.error);
  await pool(ctx.n, ctx.concurrency, async (i) => {
    const made = await addCowWorktree(ctx.repo, { path: paths[i], branch: `bench/cow-${round}-${i}`, lower, layer: layers[i], holder });
    if (!made.ok) throw new Error(made.error);
  });
  const t1 = performance.now();
  await pool(ctx.n, ctx.concurrency, async (i) => {
    const argv = holder.inside('git', ['status', '--porcelain'], paths[i]);
    const out = await must(argv.command, argv.args);
    if (out.trim() !== '') throw new Error(`overlay worktree ${paths[i]} is not clean: ${out.slice(0, 200)}`);
  });
  const t2 = performance.now();
  for (let i = 0; i < ctx.n; i++) {
    const removed = await removeCowWorktree(ctx.repo, { path: paths[i], layer: layers[i], holder });
    if (!removed.ok) throw new Error(removed.error);
    await git(ctx.repo, ['branch', '-D', '--quiet', `bench/cow-${round}-${i}`]);
  }
  await holder.close();
  const gone = await removeCowBase(ctx.repo, lower);
  if (!gone.ok) throw new Error(gone.error);
  return { create: t1 - t0, status: t2 - t1 };
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const holderPath = join(ROOT, 'dist', 'process', 'overlay-holder.js');
  const cowPath = join(ROOT, 'dist', 'git', 'worktrees', 'cow-worktree.js');
  if (!existsSync(holderPath) || !existsSync(cowPath)) throw new Error('build first: npx tsc -p tsconfig.build.json');
  const holderModule = await import(holderPath);
  const cowModule = await import(cowPath);
  const probe = await holderModule.overlayAvailable();
  if (!probe.ok) throw new Error(`overlay worktrees are not available here: ${probe.reason}`);

  console.log(`# worktrees: plain vs overlay, ${opts.candidates} candidates, ${opts.concurrency} at a time, ${opts.repeat} rounds`);
  console.log(
    `# ${new Date().toISOString()} | ${cpus().length} cpus (${cpus()[0]?.model ?? '?'}) | load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')} | uid ${process.getuid?.()}`,
  );
  const temp = mkdtempSync(join(tmpdir(), 'bestof-bench-worktrees-'));
  try {
    for (const files of opts.files) {
      const repo = join(temp, `repo-${files}`);
      const t = performance.now();
      await createRepo(repo, files);
      console.log(`\n## ${files} files (fixture made in ${seconds(performance.now() - t)})`);
      const ctx = { repo, wtRoot: join(temp, `wt-${files}`), n: opts.candidates, concurrency: opts.concurrency, holderModule, cowModule };
      mkdirSync(ctx.wtRoot, { recursive: true });
      // Untimed warm-up of both sides (page cache, git's first-run costs).
      await plainSide(ctx, 0);
      await overlaySide(ctx, 0);
      const rounds = [];
      for (let round = 1; round <= opts.repeat; round++) {
        const single = await singlePlainAdd(ctx, round);
        const order = round % 2 === 1 ? ['plain', 'overlay'] : ['overlay', 'plain'];
        const result = { single };
        for (const side of order) result[side] = side === 'plain' ? await plainSide(ctx, round) : await overlaySide(ctx, round);
        rounds.push(result);
        const total = (s) => s.create + s.status;
        console.log(
          `round ${round} (${order.join(' first, ')} second): plain create ${seconds(result.plain.create)} status ${seconds(result.plain.status)} | overlay create ${seconds(result.overlay.create)} status ${seconds(result.overlay.status)} | overlay/plain ${(total(result.overlay) / total(result.plain)).toFixed(3)}x | one plain add ${seconds(single)}`,
        );
      }
      const pairs = (pick) => summarizePairs(rounds.map((r) => ({ reference: pick(r.plain), measured: pick(r.overlay) })));
      for (const [label, pick] of [
        ['create', (s) => s.create],
        ['status', (s) => s.status],
        ['create+status', (s) => s.create + s.status],
      ]) {
        const summary = pairs(pick);
        console.log(
          `${label.padEnd(14)} plain ${seconds(summary.reference).padStart(9)}  overlay ${seconds(summary.measured).padStart(9)}  overlay/plain ${formatRatio(summary.ratio)}`,
        );
      }
      const aim = summarizePairs(
        rounds.map((r) => ({ reference: (r.single * opts.candidates) / opts.concurrency, measured: r.overlay.create + r.overlay.status })),
      );
      console.log(
        `aim: overlay create+status ${seconds(aim.measured)} against one plain add x ${opts.candidates}/${opts.concurrency} = ${seconds(aim.reference)} (one add: ${seconds(median(rounds.map((r) => r.single)))}): ${formatRatio(aim.ratio)} (below 1.00x meets it)`,
      );
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench-worktrees: ${error.message}\n`);
  process.exitCode = 1;
});
