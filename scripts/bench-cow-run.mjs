#!/usr/bin/env node
/**
 * Whole runs with plain worktrees against whole runs with copy-on-write worktrees
 * (`[git] worktrees = "copy-on-write"`), and the aim for big repos: a run of N
 * candidates on the copy-on-write side faster than one plain `git worktree add` x N / concurrency.
 *
 *   npx tsc -p tsconfig.build.json && node scripts/bench-cow-run.mjs [--files 5000,50000] [--candidates 8] [--repeat 3] [--concurrency 4]
 *
 * For each repo size: a git repo of that many small files (scripts/lib/fixture-files.mjs), and two
 * specs that differ only in `[git] worktrees`: N candidates of a script agent that edits one file
 * and adds one, one check (`test -f answer.txt`), `merge = "none"`, `max_concurrency` as given,
 * the sandbox as this machine has it (auto). Each round times `bestof run <spec> --no-tui` from
 * start to exit on both sides, alternated (scripts/lib/paired.mjs), and one plain
 * `git worktree add` of the repo right before the copy-on-write run (the aim's pair). Each run must exit 0 with a winner whose branch holds the
 * agent's edit, and leave no worktree behind. What bestof removed at the end of a run is deleted by a
 * process of its own after it exits: the script waits for it, untimed, before the next step.
 *
 * Shared machines: the exit code never depends on the ratios; non-zero means something failed.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatRatio, median, parseCountList, runAlternated, summarizePairs } from './lib/paired.mjs';
import { createRepo, git, run, seconds, singlePlainAdd, untilDeletedAfterTheRun } from './lib/bench-git.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'bin', 'bestof.js');
const USAGE = 'usage: node scripts/bench-cow-run.mjs [--files 5000,50000] [--candidates 8] [--repeat 3] [--concurrency 4]\n';

function parseArgs(argv) {
  const opts = { files: [5000, 50000], candidates: 8, repeat: 3, concurrency: 4 };
  for (let i = 0; i < argv.length; i += 2) {
    const [name, value] = [argv[i], argv[i + 1]];
    if (name === '--help') {
      process.stdout.write(USAGE);
      process.exit(0);
    }
    if (value === undefined) throw new Error(`${name} needs a value\n${USAGE}`);
    if (name === '--files') opts.files = parseCountList('--files', value, 1_000_000);
    else if (name === '--candidates') opts.candidates = parseCountList('--candidates', value, 64)[0];
    else if (name === '--repeat') opts.repeat = parseCountList('--repeat', value, 50)[0];
    else if (name === '--concurrency') opts.concurrency = parseCountList('--concurrency', value, 64)[0];
    else throw new Error(`unknown option ${name}\n${USAGE}`);
  }
  return opts;
}

const AGENT = `
[[steps]]
replace = "src/g0/d000/file00000.txt"
find = "file 0"
with = "file 0, edited"
[[steps]]
write = "answer.txt"
content = "42\\n"
`;

function writeSpecs(dir, repo, opts) {
  const agent = join(dir, 'agent.toml');
  writeFileSync(agent, AGENT);
  const spec = (worktrees) => `name = "bench-cow-run"
repo = ${JSON.stringify(repo)}
[prompt]
text = "Answer."
[git]
worktrees = "${worktrees}"
[parallel]
candidates = ${opts.candidates}
max_concurrency = ${opts.concurrency}
[provider]
kind = "script"
script = ${JSON.stringify(agent)}
[[checks.items]]
name = "answer"
command = "test -f answer.txt"
score = 1
[select]
merge = "none"
`;
  const plain = join(dir, 'plain.toml');
  const cow = join(dir, 'cow.toml');
  writeFileSync(plain, spec('plain'));
  writeFileSync(cow, spec('copy-on-write'));
  return { plain, cow };
}

async function timedRun(ctx, spec) {
  const t0 = performance.now();
  const result = await run(process.execPath, [BIN, 'run', spec, '--no-tui'], { cwd: ctx.repo, env: { ...process.env, BESTOF_WORKTREES_DIR: ctx.wtRoot } });
  const ms = performance.now() - t0;
  if (result.code !== 0) throw new Error(`bestof run ${spec} exited ${result.code}: ${(result.stderr || result.stdout).slice(-2000)}`);
  if (/cannot be used here/.test(result.stdout + result.stderr)) throw new Error(`copy-on-write worktrees were not used: ${result.stdout.slice(-500)}`);
  const branch = /branch (bestof\/\S+\/c\d+)/.exec(result.stdout)?.[1];
  if (!branch) throw new Error(`no winner's branch in the output of ${spec}: ${result.stdout.slice(-500)}`);
  const edited = await git(ctx.repo, ['show', `${branch}:src/g0/d000/file00000.txt`]);
  if (!edited.includes('file 0, edited')) throw new Error(`the winner's branch ${branch} lacks the agent's edit`);
  const left = (await git(ctx.repo, ['worktree', 'list', '--porcelain'])).match(/^worktree /gm)?.length ?? 0;
  if (left !== 1) throw new Error(`${left - 1} worktrees left after the run of ${spec}`);
  await untilTrashIsGone(ctx, t0 + ms);
  return ms;
}

/**
 * bestof deletes the files of what it removed at the end of a run (the worktrees, a copy-on-write
 * run's shared base checkout) in a process of its own after it exits: untimed, nothing else runs
 * until that is done (it would slow whatever is timed next), and how long it took is said.
 */
async function untilTrashIsGone(ctx, exitedAt) {
  const t = performance.now();
  await untilDeletedAfterTheRun(ctx.wtRoot);
  if (performance.now() - t > 50)
    console.log(`  (the removed worktrees' files were deleted ${seconds(performance.now() - exitedAt)} after bestof exited; untimed)`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(join(ROOT, 'dist', 'cli', 'main.js'))) throw new Error('build first: npx tsc -p tsconfig.build.json');
  console.log(`# whole runs: plain vs copy-on-write worktrees, ${opts.candidates} candidates, ${opts.concurrency} at a time, ${opts.repeat} rounds`);
  console.log(
    `# ${new Date().toISOString()} | node ${process.version} | ${cpus().length} cpus (${cpus()[0]?.model ?? '?'}) | load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  const temp = mkdtempSync(join(tmpdir(), 'bestof-bench-cow-run-'));
  try {
    for (const files of opts.files) {
      const repo = join(temp, `repo-${files}`);
      const t = performance.now();
      await createRepo(repo, files);
      const ctx = { repo, wtRoot: join(temp, `wt-${files}`) };
      mkdirSync(ctx.wtRoot, { recursive: true });
      const specs = writeSpecs(temp, repo, opts);
      console.log(`\n## ${files} files (fixture made in ${seconds(performance.now() - t)})`);
      const singles = [];
      const rounds = await runAlternated(
        opts.repeat,
        {
          plain: () => timedRun(ctx, specs.plain),
          // The single add right before the copy-on-write run it is compared with: the page cache
          // and the load swing from minute to minute, and the aim pairs these two.
          cow: async (round) => {
            singles[round - 1] = await singlePlainAdd(ctx, round);
            return timedRun(ctx, specs.cow);
          },
        },
        ({ round, order, results }) =>
          console.log(
            `round ${round} (${order.join(' first, ')} second): plain ${seconds(results.plain)} | copy-on-write ${seconds(results.cow)} | cow/plain ${(results.cow / results.plain).toFixed(3)}x | one plain add ${seconds(singles[round - 1])}`,
          ),
      );
      const summary = summarizePairs(rounds.map((r) => ({ reference: r.results.plain, measured: r.results.cow })));
      console.log(
        `run            plain ${seconds(summary.reference).padStart(9)}  copy-on-write ${seconds(summary.measured).padStart(9)}  cow/plain ${formatRatio(summary.ratio)}`,
      );
      const aim = summarizePairs(rounds.map((r, i) => ({ reference: (singles[i] * opts.candidates) / opts.concurrency, measured: r.results.cow })));
      console.log(
        `aim: a copy-on-write run ${seconds(aim.measured)} against one plain add x ${opts.candidates}/${opts.concurrency} = ${seconds(aim.reference)} (one add: ${seconds(median(singles))}): ${formatRatio(aim.ratio)} (below 1.00x meets it)`,
      );
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`bench-cow-run: ${error.message}\n`);
  process.exitCode = 1;
});
