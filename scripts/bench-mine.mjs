#!/usr/bin/env node
/**
 * What `bestof bench mine` costs per commit, on real history: pkg/errors (the bundle of docs/corpora.md, Go),
 * against one bare run of the same test command on the same machine, measured in the same run.
 *
 *   node scripts/bench-mine.mjs [--commits 60] [--jobs 2]     (npm run bench:mine builds first)
 *
 * The baseline: the check's command, once, as the user would type it, on a clean export of HEAD (no
 * sandbox). Then a mining of the last --commits commits into a fresh folder. The figures: the wall
 * time per commit looked at (most are sorted out by their files, a few git calls each), per commit
 * validated (one to four runs of the suite in the sandbox, --jobs at a time), and that last one as
 * a ratio of the bare run: what validation costs in runs of your suite.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const commits = arg('commits', 60);
const jobs = arg('jobs', 2);
// The bundles' folder as the tests find it (test/helpers/corpora.ts; docs/corpora.md makes them).
const corpora = process.env.BESTOF_CORPORA
  ? resolve(process.env.BESTOF_CORPORA)
  : ([resolve(root, '.cache', 'corpora'), resolve(root, '..', 'shared', 'corpora')].find((dir) => existsSync(dir)) ?? resolve(root, '.cache', 'corpora'));
const bundle = join(corpora, 'pkg-errors.bundle');
if (!existsSync(bundle)) {
  console.log(`skipped: ${bundle} is absent (docs/corpora.md says how to make it)`);
  process.exit(0);
}
const COMMAND =
  'mkdir -p "$HOME/go/src/github.com/pkg" && cp -R . "$HOME/go/src/github.com/pkg/errors" && cd "$HOME/go/src/github.com/pkg/errors" && GO111MODULE=off GOPATH="$HOME/go" GOFLAGS= go test -json ./...';

const dir = mkdtempSync(join(tmpdir(), 'bestof-bench-mine-'));
try {
  const repo = join(dir, 'errors');
  execFileSync('git', ['clone', '-q', bundle, repo]);
  writeFileSync(
    join(repo, 'bestof.toml'),
    `[[checks.items]]\nname = "test"\ncommand = '${COMMAND}'\nreport = "go-json"\n\n[checks]\nfrozen = ["**/*_test.go"]\n`,
  );

  const tree = join(dir, 'baseline');
  const home = join(dir, 'home');
  mkdirSync(tree);
  mkdirSync(home);
  execFileSync('sh', ['-c', `git -C "${repo}" archive HEAD | tar -x -C "${tree}"`]);
  const t0 = performance.now();
  const bare = spawnSync('bash', ['-c', COMMAND], { cwd: tree, env: { ...process.env, HOME: home }, stdio: 'ignore' });
  const bareMs = performance.now() - t0;
  if (bare.status !== 0) throw new Error(`the bare run failed (exit ${bare.status})`);

  const out = join(dir, 'bench');
  const t1 = performance.now();
  const mined = spawnSync(
    process.execPath,
    [join(root, 'bin', 'bestof.js'), 'bench', 'mine', '--out', out, '--commits', String(commits), '--jobs', String(jobs)],
    {
      cwd: repo,
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const wallMs = performance.now() - t1;
  if (mined.status !== 0) throw new Error(`bestof bench mine exited ${mined.status}`);
  const summary = JSON.parse(readFileSync(join(out, 'mined.json'), 'utf8'));
  const validated = summary.timing.validatedCommits;
  const perValidated = summary.timing.validationMsPerValidatedCommit;
  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  console.log(`pkg/errors, last ${commits} commits, --jobs ${jobs}`);
  console.log(`baseline: one bare run of the suite            ${s(bareMs)}`);
  console.log(`mining: ${summary.commitsLookedAt} commits looked at, ${validated} validated, ${summary.kept.length} kept, in ${s(wallMs)}`);
  console.log(`  per commit looked at (wall)                 ${s(wallMs / summary.commitsLookedAt)}`);
  console.log(
    `  wall per commit validated                   ${s(wallMs / validated)}  = ${(wallMs / validated / bareMs).toFixed(1)}x the bare run (the throughput)`,
  );
  console.log(`  per commit validated, start to verdict      ${s(perValidated)}  (its runs, and its waits for a free slot)`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
