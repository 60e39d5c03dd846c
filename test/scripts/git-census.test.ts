/**
 * Counting git processes per candidate (scripts/lib/git-census.mjs): the wrapper run for real in
 * front of git, and the attribution of a run's calls to its candidates.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attributeCalls, gitWrapperScript, parseGitLog, subcommandOf, summarizeCensus, type GitCall } from '../../scripts/lib/git-census.mjs';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo: tempRepo, tempDir } = tempRepos();

/** A temp folder with the wrapper in `bin` (for PATH) and its empty `log`. */
function wrapperOnPath(): { dir: string; bin: string; log: string } {
  const dir = tempDir();
  const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
  const bin = join(dir, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'git'), gitWrapperScript(realGit), { mode: 0o755 });
  const log = join(dir, 'git.log');
  writeFileSync(log, '');
  return { dir, bin, log };
}

describe('the git wrapper', () => {
  it('logs every call of two candidates working at once, one line each, and git still does the work', () => {
    const repo = tempRepo();
    const { dir, bin, log } = wrapperOnPath();
    // The baseline's five steps, for c1 and c2 at the same time, and one call of the run's own. The
    // two `git worktree add` (and removals) take turns, as bestof's do under its lock: two at once
    // race in git itself (one can die reading the other's half-written admin entry), and a
    // candidate's shell then stops early with fewer calls logged (seen in CI on a loaded machine).
    const steps = [
      'candidate() {',
      '  local path="$WT/t7/$1"',
      '  flock "$REPO/.git/census-test.lock" git -C "$REPO" worktree add --quiet -b "bench/t7/$1" "$path" HEAD',
      '  echo hi > "$path/out.txt"',
      '  git -C "$path" add -A',
      `  git -C "$path" commit --quiet -m "$1$(printf '\\nsecond line')"`,
      '  git -C "$path" update-ref "refs/bench/t7/$1/kept" HEAD',
      '  flock "$REPO/.git/census-test.lock" git -C "$REPO" worktree remove --force "$path"',
      '}',
      'candidate c1 & candidate c2 & wait',
      'git -C "$REPO" rev-parse HEAD >/dev/null',
    ].join('\n');
    execFileSync('bash', ['-ec', steps], {
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BESTOF_BENCH_GIT_LOG: log, REPO: repo.dir, WT: join(dir, 'wt') },
      stdio: 'ignore',
    });

    const calls = parseGitLog(readFileSync(log, 'utf8'));
    expect(calls).toHaveLength(11);
    const commit = calls.find((call) => subcommandOf(call.args) === 'commit' && call.args.includes(join(dir, 'wt/t7/c2')));
    expect(commit?.args.at(-1)).toBe('c2\\nsecond line');
    expect(repo.git('log', '-1', '--format=%B', 'refs/bench/t7/c1/kept')).toBe('c1\nsecond line');

    const census = summarizeCensus(calls, { tag: 't7', candidates: ['c1', 'c2'] });
    expect(census).toEqual({
      total: 11,
      shared: 1,
      perCandidate: { mean: 5, min: 5, max: 5 },
      subcommands: [
        ['worktree', 2],
        ['add', 1],
        ['commit', 1],
        ['update-ref', 1],
      ],
    });
  });
});

describe('the git wrapper and stdin', () => {
  it('logs what an `update-ref --stdin` reads as a last field and passes it on: the call names the refs and the commit it moves', () => {
    const repo = tempRepo();
    const { bin, log } = wrapperOnPath();
    const head = repo.git('rev-parse', 'HEAD');
    const input = `update refs/heads/bestof/r1/c1 ${head}\nupdate refs/bestof/r1/c1/kept ${head}\n`;
    execFileSync('git', ['update-ref', '--stdin'], {
      cwd: repo.dir,
      input,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, BESTOF_BENCH_GIT_LOG: log },
    });
    expect(repo.git('rev-parse', 'refs/heads/bestof/r1/c1', 'refs/bestof/r1/c1/kept')).toBe(`${head}\n${head}`);
    const calls = parseGitLog(readFileSync(log, 'utf8'));
    expect(calls).toEqual([{ cwd: realpathSync(repo.dir), args: ['update-ref', '--stdin', `stdin:${input.replace(/\n/g, '\\n')}`] }]);
    const { perCandidate, shared } = attributeCalls(calls, { tag: 'r1', candidates: ['c1', 'c2'] });
    expect([perCandidate.get('c1')?.length, perCandidate.get('c2')?.length, shared.length]).toEqual([1, 0, 0]);
  });
});

describe('attributeCalls', () => {
  const base = 'a'.repeat(40);
  const c1First = '1'.repeat(40);
  const c1Kept = 'b'.repeat(40);
  const c2Kept = 'c'.repeat(40);
  const tree = 'd'.repeat(40);
  const call = (cwd: string, ...args: string[]): GitCall => ({ cwd, args });
  // Shaped like bestof's own calls (run r1, worktrees under /w/r1, the repo at /repo).
  const run: GitCall[] = [
    call('/repo', 'rev-parse', '--verify', '--quiet', '--end-of-options', `${base}^{commit}`),
    call('/repo', 'update-ref', 'refs/heads/bestof/r1/c1', base, ''),
    call('/repo', 'update-ref', 'refs/heads/bestof/r1/c2', base, ''),
    call('/repo', '-c', 'core.hooksPath=/dev/null', 'worktree', 'add', '--no-checkout', '/w/r1/c1', 'bestof/r1/c1'),
    call('/w/r1/c1', 'rev-parse', 'HEAD'),
    call('/w/r1/c1', 'commit-tree', tree, '-p', base, '-m', 'bestof: c1 iteration 1, score 1'),
    call('/w/r1/c1', 'update-ref', 'refs/heads/bestof/r1/c1', c1Kept, c1First),
    call('/w/r1/c2', 'commit-tree', tree, '-p', base, '-m', 'bestof: c2 iteration 1, score 1'),
    call('/w/r1/c2', 'update-ref', 'refs/heads/bestof/r1/c2', c2Kept),
    call('/repo', 'update-ref', 'refs/bestof/r1/c2/kept', c2Kept),
    call('/repo', 'diff', '--numstat', base, c1Kept, '--'),
    call('/repo', 'cat-file', '-e', `${c2Kept}^{commit}`),
    call('/repo', 'cat-file', '-e', `${c1First}^{commit}`),
    call('/repo', 'worktree', 'prune'),
  ];
  const owners = (calls: readonly GitCall[], candidates: string[], ignoreCommits: string[] = []) => {
    const { perCandidate, shared } = attributeCalls(calls, { tag: 'r1', candidates, ignoreCommits });
    return { ...Object.fromEntries([...perCandidate].map(([id, own]) => [id, own.map((c) => calls.indexOf(c))])), shared: shared.map((c) => calls.indexOf(c)) };
  };

  it("a call naming the candidate's worktree or ref is its own; one naming a commit only its calls name is its own too", () => {
    expect(owners(run, ['c1', 'c2'], [base])).toEqual({
      c1: [1, 3, 4, 5, 6, 10, 12],
      c2: [2, 7, 8, 9, 11],
      shared: [0, 13],
    });
  });

  it('commits that several candidates name (a tree they share) decide nothing; without the base ignored, it is one of them', () => {
    const treeOnly = [...run, call('/repo', 'ls-tree', tree)];
    expect(owners(treeOnly, ['c1', 'c2'], [base]).shared).toEqual([0, 13, 14]);
    // At one candidate the base is named only by c1's calls: the caller must name it.
    const one = run.filter((c) => ![2, 7, 8, 9, 11].includes(run.indexOf(c)));
    const [checkBase, prune] = [one.indexOf(run[0]!), one.indexOf(run[13]!)];
    expect(owners(one, ['c1']).shared).toEqual([prune]);
    expect(owners(one, ['c1'], [base]).shared).toEqual([checkBase, prune]);
  });

  it('c1 is not c10, and a call naming two candidates belongs to neither', () => {
    const calls = [
      call('/w/r1/c10', 'status'),
      call('/repo', 'update-ref', 'refs/bestof/r1/c10/kept', c1Kept),
      call('/repo', 'worktree', 'list', '/w/r1/c1', '/w/r1/c2'),
      call('/w/r1x/c1', 'status'),
    ];
    expect(owners(calls, ['c1', 'c2', 'c10'])).toEqual({ c1: [], c2: [], c10: [0, 1], shared: [2, 3] });
  });
});

describe('subcommandOf', () => {
  it.each([
    [['-c', 'core.hooksPath=/dev/null', '-C', '/w/c1', 'reset', '--hard'], 'reset'],
    [['status'], 'status'],
    [['--no-pager', 'log'], 'log'],
    [['--version'], '(none)'],
  ])('%j -> %s', (args, expected) => {
    expect(subcommandOf(args)).toBe(expected);
  });
});
