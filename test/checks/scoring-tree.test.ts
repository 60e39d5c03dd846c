/**
 * What is scored is exactly what was committed: one adversarial agent per vector, with real git in
 * temp repos. Each asserts that the check saw the committed (or base's frozen) content, that the
 * hostile program never ran (its marker file does not exist), and that the user's checkout is
 * byte-for-byte as before.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../src/git/history/commit.js';
import { addWorktree } from '../../src/git/worktrees/worktree.js';
import { scoreCommit, type Scoring } from '../../src/engine/scoring/score.js';
import { WorktreeReplacedError } from '../../src/git/guards/guard.js';
import { asideDir, prepareScoringTree, putBackScoringTree } from '../../src/checks/scoring-tree.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';
import { createSetupGuard } from '../../src/engine/workspace/setup-guard.js';
import { ok, type Result } from '../../src/result.js';
import { recordGitCalls } from '../helpers/git-calls.js';

const { repo, tempDir } = tempRepos();

// The frozen check passes only when the committed answer is 42, and prints what it saw.
const CHECK = '#!/bin/sh\ncat src/answer.txt\ngrep -q 42 src/answer.txt\n';

interface World {
  r: TempRepo;
  wt: string;
  base: string;
  /** Where hostile programs would leave their marker. */
  mark: string;
  logs: string;
  /** Every file of the user's checkout and git dir that must not change, with its bytes. */
  userFiles: () => Map<string, string>;
}

async function world(extra: Record<string, string> = {}): Promise<World> {
  const r = repo({ 'src/answer.txt': '41\n', 'test/check.sh': CHECK, '.gitignore': 'ignored/\n.env\nnode_modules/\n', 'README.md': '# r\n', ...extra });
  const base = r.git('rev-parse', 'HEAD');
  const dir = tempDir();
  const wt = join(dir, 'run', 'c1');
  expect((await addWorktree(r.dir, { path: wt, branch: 'bestof/t/c1', base })).ok).toBe(true);
  const mark = tempDir();
  const snapshot = (): Map<string, string> => {
    const files = r.git('ls-files', '-z').split('\0').filter(Boolean);
    return new Map([...files.map((f): [string, string] => [f, readFileSync(join(r.dir, f), 'utf8')]), ['refs', r.git('for-each-ref')]]);
  };
  return { r, wt, base, mark, logs: tempDir(), userFiles: snapshot };
}

const put = (root: string, path: string, content: string, mode = 0o644): void => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content, { mode });
  chmodSync(join(root, path), mode);
};
const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const commit = async (wt: string, keep: string[] = []): Promise<string> =>
  (await commitAll(wt, { message: 'work', excludePaths: keep })).commit ?? git(wt, 'rev-parse', 'HEAD');

function score(
  w: World,
  commitSha: string,
  opts: { command?: string; keep?: string[]; editable?: string[]; justCommitted?: { branchRef: string; worktreeIsCommit?: boolean } } = {},
): Promise<Scoring> {
  return scoreCommit({
    worktree: w.wt,
    baseCommit: w.base,
    commit: commitSha,
    frozen: ['test/**'],
    editable: opts.editable ?? [],
    checks: [{ name: 'check', command: opts.command ?? 'sh test/check.sh', score: 10, timeout: 30_000, from_iteration: 1, kind: 'score' }],
    keepPaths: opts.keep ?? [],
    env: { ...process.env },
    logDir: w.logs,
    signal: new AbortController().signal,
    justCommitted: opts.justCommitted,
  });
}

/** Scores `sha` with checks of 10 points each, as the commit step left the worktree (HEAD on its branch, the index its tree). */
function scoreWithChecks(w: World, sha: string, checks: readonly { name: string; command: string }[]): Promise<Scoring> {
  return scoreCommit({
    worktree: w.wt,
    baseCommit: w.base,
    commit: sha,
    frozen: ['test/**'],
    checks: checks.map((c) => ({ ...c, score: 10, timeout: 30_000, from_iteration: 1, kind: 'score' as const })),
    keepPaths: [],
    env: { ...process.env },
    logDir: w.logs,
    signal: new AbortController().signal,
    justCommitted: { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit: true },
  });
}

describe('the scoring tree is exactly the commit', () => {
  it('clears assume-unchanged and skip-worktree: a hidden edit is not scored', async () => {
    const w = await world();
    const before = w.userFiles();
    const sha = await commit(w.wt); // nothing new: the base itself
    // After the commit: an edited frozen check and an edited answer, both hidden by index bits.
    put(w.wt, 'test/check.sh', '#!/bin/sh\nexit 0\n');
    git(w.wt, 'update-index', '--assume-unchanged', 'test/check.sh');
    put(w.wt, 'src/answer.txt', '42\n');
    git(w.wt, 'update-index', '--skip-worktree', 'src/answer.txt');
    expect(git(w.wt, 'status', '--porcelain')).toBe('');

    const s = await score(w, sha);

    expect(s.checks[0]?.passed).toBe(false);
    expect(s.checks[0]?.outputTail).toContain('41');
    expect(git(w.wt, 'ls-files', '-v')).not.toMatch(/^[a-zS]/m);
    expect(w.userFiles()).toEqual(before);
  });

  it('commits an edit hidden by assume-unchanged, so a frozen edit is caught as tampering', async () => {
    const w = await world();
    put(w.wt, 'test/check.sh', '#!/bin/sh\nexit 0\n');
    git(w.wt, 'update-index', '--assume-unchanged', 'test/check.sh');
    const sha = await commit(w.wt);
    expect(git(w.wt, 'show', `${sha}:test/check.sh`)).toBe('#!/bin/sh\nexit 0');
    const s = await score(w, sha);
    expect(s.tampered).toEqual([{ path: 'test/check.sh', change: 'modified', rule: 'frozen' }]);
    expect(s.checks[0]?.passed).toBe(false);
  });

  it('moves untracked and ignored shims aside for the checks, keeps setup paths, and puts them back', async () => {
    const w = await world();
    // Setup made these: they stay for the checks.
    put(w.wt, '.env', 'SECRET=1\n');
    put(w.wt, 'node_modules/dep/index.js', 'module.exports = 1;\n');
    put(w.wt, 'setup-made.txt', 'from setup\n');
    const keep = ['.env', 'node_modules', 'setup-made.txt'];
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, keep);
    // The agent's leftovers: an ignored shim, an untracked one, an untracked folder.
    put(w.wt, 'ignored/bin/node', '#!/bin/sh\nexit 0\n', 0o755);
    put(w.wt, 'conftest.py', 'import sys\n');
    put(w.wt, 'scratch/notes.md', 'mine\n');
    const probe =
      'test ! -e ignored && test ! -e conftest.py && test ! -e scratch && test -e .env && test -e node_modules/dep/index.js && test -e setup-made.txt && sh test/check.sh';

    const s = await score(w, sha, { command: probe, keep });

    expect(s.checks[0]?.passed).toBe(true);
    expect(readFileSync(join(w.wt, 'ignored/bin/node'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(readFileSync(join(w.wt, 'conftest.py'), 'utf8')).toBe('import sys\n');
    expect(readFileSync(join(w.wt, 'scratch/notes.md'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(w.wt, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(existsSync(asideDir(w.wt))).toBe(false);
  });

  it("a setup path that is a file inside an untracked folder stays for the checks, and the agent's files beside it are moved aside", async () => {
    // What setup records when it makes files in a folder git neither tracks nor ignores: the files, not the folder.
    const w = await world();
    put(w.wt, 'vendor/dep/index.js', 'module.exports = 1;\n');
    const keep = ['vendor/dep/index.js'];
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, keep);
    put(w.wt, 'vendor/dep/shim.js', 'planted\n');
    put(w.wt, 'vendor/other/x.js', 'planted\n');
    const probe = 'test -e vendor/dep/index.js && test ! -e vendor/dep/shim.js && test ! -e vendor/other/x.js && sh test/check.sh';

    const s = await score(w, sha, { command: probe, keep });

    expect(s.checks[0]?.outputTail, JSON.stringify(s)).toBe('42');
    expect(s.checks[0]?.passed).toBe(true);
    expect(readFileSync(join(w.wt, 'vendor/dep/shim.js'), 'utf8')).toBe('planted\n');
    expect(readFileSync(join(w.wt, 'vendor/other/x.js'), 'utf8')).toBe('planted\n');
    expect(existsSync(asideDir(w.wt))).toBe(false);
  });

  it('leftovers under a frozen path (untracked, ignored, a nested repository) are not there for the checks, with no clean of the frozen paths: they are aside, and come back after', async () => {
    const w = await world();
    const keep = ['test/setup-made.txt'];
    put(w.wt, 'test/setup-made.txt', 'from setup\n');
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, keep);
    // Left beside the commit: an untracked test helper, an ignored shim, a nested repository.
    put(w.wt, 'test/conftest.py', 'import sys\n');
    put(w.wt, 'test/node_modules/.bin/jest', '#!/bin/sh\nexit 0\n', 0o755);
    put(w.wt, 'test/vendor/lib.sh', 'exit 0\n');
    git(join(w.wt, 'test/vendor'), 'init', '--quiet');
    const probe = 'test ! -e test/conftest.py && test ! -e test/node_modules && test ! -e test/vendor && test -e test/setup-made.txt && sh test/check.sh';

    // The whole scoring (preparation, checks, put-back): the leftovers go aside and come back by renames, no `git clean` anywhere.
    let s: Scoring | undefined;
    const calls = await gitSubcommands(async () => {
      s = await score(w, sha, { command: probe, keep });
    });
    expect(s?.checks[0]?.passed).toBe(true);
    expect(s?.tampered).toEqual([]);
    expect(calls).not.toContain('clean');
    expect(readFileSync(join(w.wt, 'test/conftest.py'), 'utf8')).toBe('import sys\n');
    expect(readFileSync(join(w.wt, 'test/node_modules/.bin/jest'), 'utf8')).toBe('#!/bin/sh\nexit 0\n');
    expect(existsSync(join(w.wt, 'test/vendor/.git'))).toBe(true);
    expect(readFileSync(join(w.wt, 'test/setup-made.txt'), 'utf8')).toBe('from setup\n');
  });

  it("an index entry that names base's blob over a gutted frozen file (its stat data kept): found by content, written anew, flagged", async () => {
    const w = await world();
    // The agent's trick (what it can do wherever it writes the worktree's index: without the sandbox).
    put(w.wt, 'test/check.sh', '#!/bin/sh\nexit 0\n');
    const past = new Date(Date.now() - 5000);
    utimesSync(join(w.wt, 'test/check.sh'), past, past);
    git(w.wt, 'add', 'test/check.sh');
    const index = git(w.wt, 'rev-parse', '--path-format=absolute', '--git-path', 'index');
    const bytes = readFileSync(index);
    const at = bytes.indexOf(Buffer.from(git(w.wt, 'rev-parse', ':test/check.sh'), 'hex'));
    Buffer.from(git(w.wt, 'rev-parse', `${w.base}:test/check.sh`), 'hex').copy(bytes, at);
    createHash('sha1')
      .update(bytes.subarray(0, bytes.length - 20))
      .digest()
      .copy(bytes, bytes.length - 20);
    writeFileSync(index, bytes);
    expect(git(w.wt, 'status', '--porcelain', '--', 'test'), 'git sees nothing: it trusts the stat data').toBe('');
    // bestof's commit step: the gutted file never reaches a commit (git add -A reads it as unchanged).
    const sha = await commit(w.wt);
    expect(git(w.wt, 'show', `${sha}:test/check.sh`)).toBe(CHECK.trim());
    const s = await score(w, sha, { justCommitted: { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit: true } });
    // The check ran base's check.sh (41 is not 42), not the gutted one, and the candidate is flagged.
    expect(s.checks[0]?.passed).toBe(false);
    expect(s.tampered).toEqual([{ path: 'test/check.sh', change: 'modified', rule: 'frozen' }]);
    expect(readFileSync(join(w.wt, 'test/check.sh'), 'utf8')).toBe(CHECK);
  });

  it('reads HEAD and its branch in one git process, and right after the commit step reads neither them nor the index bits, nor resets a worktree that is the commit', async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    const prepare = (justCommitted: boolean, worktreeIsCommit = false): Promise<string[]> =>
      gitSubcommands(async () => {
        const tree = await prepareScoringTree(w.wt, {
          base: w.base,
          commit: sha,
          frozen: ['test/**'],
          editable: [],
          keep: [],
          justCommitted: justCommitted ? { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit } : undefined,
        });
        await putBackScoringTree(w.wt, { commit: sha, keep: [], branch: tree.branch, tree });
        expect(tree.branch).toBe('refs/heads/bestof/t/c1');
      });
    // The frozen paths' diff of base and commit is read once per pair (commits do not change): left out.
    const asked = (await prepare(false)).filter((c) => c !== 'diff');
    const afterCommit = (await prepare(true)).filter((c) => c !== 'diff');
    // HEAD's commit and branch: one rev-parse, no symbolic-ref (the last two are the put-back's attach).
    expect(asked).toEqual(['rev-parse', 'update-ref', 'ls-files', 'reset', 'ls-files', 'ls-files', 'hash-object', 'ls-files', 'rev-parse', 'symbolic-ref']);
    // Neither HEAD (`rev-parse`) nor the index bits (`ls-files -v`) are read before the detach and the reset.
    expect(afterCommit).toEqual(['update-ref', 'reset', 'ls-files', 'ls-files', 'hash-object', 'ls-files', 'rev-parse', 'symbolic-ref']);
    // The commit step staged everything and left nothing out: disk and index are the commit, no reset.
    // (Every preparation hashes the kept files once, `ls-files --stage` + `hash-object`: the index's stat data is not trusted for them.)
    expect((await prepare(true, true)).filter((c) => c !== 'diff')).toEqual([
      'update-ref',
      'ls-files',
      'ls-files',
      'hash-object',
      'ls-files',
      'rev-parse',
      'symbolic-ref',
    ]);
    expect(git(w.wt, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/t/c1');
  });

  it('right after a commit step that left a file out, the checks see the commit, not the file on disk', async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    // What the commit step leaves on disk when it leaves a file out (too large, or holding a secret).
    put(w.wt, 'src/answer.txt', '41 and a secret\n');
    const s = await score(w, sha, { justCommitted: { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit: false } });
    expect(s.checks[0]?.outputTail).toBe('42');
    expect(s.checks[0]?.passed).toBe(true);
  });

  it("right after the commit step, HEAD goes back on the commit step's branch, and a branch moved meanwhile is put back and reported", async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    // What only a process left behind by an agent (no sandbox) could do between the commit step and
    // the checks: HEAD switched to a branch of its own, and the candidate's branch moved to base.
    git(w.wt, 'checkout', '--quiet', '-b', 'elsewhere');
    git(w.wt, 'update-ref', 'refs/heads/bestof/t/c1', w.base);
    const s = await score(w, sha, { justCommitted: { branchRef: 'refs/heads/bestof/t/c1' } });
    // The commit was scored, HEAD is on the candidate's branch (not on `elsewhere`), back at the commit.
    expect(s.checks[0]?.passed).toBe(true);
    expect(s.headMovedFrom).toBe(w.base);
    expect(git(w.wt, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/t/c1');
    expect(git(w.wt, 'rev-parse', 'refs/heads/bestof/t/c1')).toBe(sha);
    expect(git(w.wt, 'rev-parse', 'refs/heads/elsewhere')).toBe(sha);
  });

  it('gives the checks a fresh HOME, removed after', async () => {
    const w = await world();
    const sha = await commit(w.wt);
    const s = await score(w, sha, { command: `echo "$HOME" > '${w.mark}/home'; test -z "$(ls -A "$HOME")"` });
    expect(s.checks[0]?.passed).toBe(true);
    const home = readFileSync(join(w.mark, 'home'), 'utf8').trim();
    expect(home).not.toBe(process.env.HOME);
    // Beside the agents' HOMEs in the run's folder (what `bestof clean` removes after a kill -9), not in /tmp.
    expect(dirname(home)).toBe(join(dirname(w.wt), '.homes'));
    expect(home.startsWith(join(dirname(w.wt), '.homes', 'c1-checks-'))).toBe(true);
    expect(existsSync(home)).toBe(false);
  });
});

describe("bestof's git calls run none of the repository's programs", () => {
  it('ignores core.fsmonitor', async () => {
    const w = await world();
    put(w.mark, 'fsmonitor.sh', `#!/bin/sh\ntouch '${w.mark}/ran'\nexit 1\n`, 0o755);
    w.r.git('config', 'core.fsmonitor', join(w.mark, 'fsmonitor.sh'));
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    const s = await score(w, sha);
    expect(s.checks[0]?.passed).toBe(true);
    expect(existsSync(join(w.mark, 'ran'))).toBe(false);
  });

  it('ignores core.hooksPath and the hooks folder (post-commit, post-checkout)', async () => {
    const w = await world();
    const hook = `#!/bin/sh\ntouch '${w.mark}/ran'\n`;
    put(w.mark, 'hooks/post-commit', hook, 0o755);
    put(w.r.dir, '.git/hooks/post-commit', hook, 0o755);
    put(w.r.dir, '.git/hooks/post-checkout', hook, 0o755);
    put(w.r.dir, '.git/hooks/pre-commit', `#!/bin/sh\ntouch '${w.mark}/ran'\nexit 1\n`, 0o755);
    w.r.git('config', 'core.hooksPath', join(w.mark, 'hooks'));
    put(w.wt, 'src/answer.txt', '42\n');
    put(w.wt, 'test/check.sh', 'exit 0\n'); // tampering: the restore checks out base's file
    const sha = await commit(w.wt);
    const s = await score(w, sha);
    expect(s.tampered.map((t) => t.path)).toEqual(['test/check.sh']);
    expect(s.checks[0]?.passed).toBe(true);
    expect(existsSync(join(w.mark, 'ran'))).toBe(false);
  });

  it('runs no smudge or clean filter of .git/config selected by .git/info/attributes', async () => {
    const w = await world();
    const filter = `sh -c "touch '${w.mark}/ran'; printf 'exit 0\\\\n'"`;
    w.r.git('config', 'filter.evil.smudge', filter);
    w.r.git('config', 'filter.evil.clean', filter);
    w.r.git('config', 'filter.evil.required', 'true');
    w.r.git('config', 'diff.external', `sh -c "touch '${w.mark}/ran'"`);
    put(w.r.dir, '.git/info/attributes', '* filter=evil\n');
    put(w.wt, 'src/answer.txt', '41\n');
    put(w.wt, 'test/check.sh', '#!/bin/sh\nexit 0\n');
    const sha = await commit(w.wt);
    expect(git(w.wt, '-c', 'filter.evil.smudge=', '-c', 'filter.evil.clean=', '-c', 'filter.evil.required=false', 'show', `${sha}:test/check.sh`)).toBe(
      '#!/bin/sh\nexit 0',
    );
    const s = await score(w, sha);
    expect(s.tampered.map((t) => t.path)).toEqual(['test/check.sh']);
    expect(s.checks[0]?.passed).toBe(false); // base's check ran, through no filter
    expect(s.checks[0]?.outputTail).toContain('41');
    expect(existsSync(join(w.mark, 'ran'))).toBe(false);
  });

  it('does not honour git replace: base stays base', async () => {
    const w = await world();
    // A look-alike of base whose frozen check always passes.
    put(w.wt, 'test/check.sh', '#!/bin/sh\nexit 0\n');
    const lookalikeTree = (() => {
      git(w.wt, 'add', '-A');
      return git(w.wt, 'write-tree');
    })();
    const lookalike = git(w.wt, '-c', 'user.name=x', '-c', 'user.email=x@x', 'commit-tree', lookalikeTree, '-m', 'initial');
    git(w.wt, 'reset', '--quiet', '--hard', w.base);
    w.r.git('replace', w.base, lookalike);
    put(w.wt, 'test/check.sh', '#!/bin/sh\nexit 0\n');
    const sha = await commit(w.wt);
    const s = await score(w, sha);
    expect(s.tampered).toEqual([{ path: 'test/check.sh', change: 'modified', rule: 'frozen' }]);
    expect(s.checks[0]?.passed).toBe(false);
  });
});

describe(".gitattributes: the checks read files as base's attributes write them", () => {
  // A frozen fixture compared byte for byte with the program's output, whose bug is its CRLF line
  // ending: a candidate that makes git convert the fixture to CRLF keeps it so on disk while git
  // hashes it as base's blob (nothing under test/ looks changed).
  const FIXTURE = { 'test/expected.txt': 'ok\n', 'src/out.txt': 'ok\r\n' };
  const CMP = 'cmp src/out.txt test/expected.txt';
  const cheat = async (w: World, attributes: string): Promise<string> => {
    put(w.wt, '.gitattributes', attributes);
    put(w.wt, 'test/expected.txt', 'ok\r\n');
    const sha = await commit(w.wt);
    // git sees the fixture unchanged: the commit's blob is base's.
    expect(git(w.wt, 'rev-parse', `${sha}:test/expected.txt`)).toBe(git(w.wt, 'rev-parse', `${w.base}:test/expected.txt`));
    expect(readFileSync(join(w.wt, 'test/expected.txt'), 'utf8')).toBe('ok\r\n');
    return sha;
  };

  it.each([
    ['read again', undefined],
    ['right after the commit step (no reset)', { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit: true }],
  ] as const)('an added .gitattributes is flagged and the fixture is read as in base (%s)', async (_, justCommitted) => {
    const w = await world(FIXTURE);
    const sha = await cheat(w, 'test/expected.txt text eol=crlf\n');
    const s = await score(w, sha, { command: CMP, justCommitted });
    expect(s.tampered).toEqual([{ path: '.gitattributes', change: 'added', rule: 'frozen' }]);
    expect(s.checks[0]?.passed).toBe(false);
    // Back to the commit after the checks: its .gitattributes, nothing left to commit.
    expect(readFileSync(join(w.wt, '.gitattributes'), 'utf8')).toBe('test/expected.txt text eol=crlf\n');
    expect(git(w.wt, 'rev-parse', 'HEAD')).toBe(sha);
    expect(git(w.wt, 'status', '--porcelain')).toBe('');
  });

  it("a changed .gitattributes in a folder (base has its own) is put back and flagged, and an honest commit's files are read as committed", async () => {
    const w = await world({ ...FIXTURE, 'test/.gitattributes': '*.bin -text\n' });
    // The same trick from the folder's own file, beside an empty root one (added: flagged too).
    put(w.wt, 'test/.gitattributes', '*.bin -text\nexpected.txt text eol=crlf\n');
    const sha = await cheat(w, '');
    const s = await score(w, sha, { command: CMP });
    expect(s.tampered).toEqual([
      { path: '.gitattributes', change: 'added', rule: 'frozen' },
      { path: 'test/.gitattributes', change: 'modified', rule: 'frozen' },
    ]);
    expect(s.checks[0]?.passed).toBe(false);

    // The control: the honest fix, with base's attributes, passes the same check.
    const honest = await world(FIXTURE);
    put(honest.wt, 'src/out.txt', 'ok\n');
    const fixed = await score(honest, await commit(honest.wt), { command: CMP });
    expect(fixed).toMatchObject({ tampered: [], checks: [{ passed: true }] });
  });
});

/**
 * Scores `sha` with one check (`command`) after an agent changed what setup made (node_modules/),
 * so that setup runs again before the checks: its redo runs `setupRuns` (the candidate's code that
 * setup would run), then makes node_modules/ anew.
 */
async function scoreAfterSetupRuns(w: World, sha: string, command: string, setupRuns: () => void): Promise<Scoring> {
  const redo = async (): Promise<Result<void, { message: string }>> => {
    setupRuns();
    put(w.wt, 'node_modules/dep/index.js', 'setup made it\n');
    return ok();
  };
  const setupGuard = createSetupGuard({ worktree: w.wt, setupPaths: ['node_modules/'], redo });
  await setupGuard.seal();
  put(w.wt, 'node_modules/dep/index.js', 'the agent changed it\n');
  return scoreCommit({
    worktree: w.wt,
    baseCommit: w.base,
    commit: sha,
    frozen: ['test/**'],
    checks: [{ name: 'check', command, score: 10, timeout: 30_000, from_iteration: 1, kind: 'score' }],
    keepPaths: ['node_modules/'],
    setupGuard,
    env: { ...process.env },
    logDir: w.logs,
    signal: new AbortController().signal,
  });
}

describe("base's kept files are watched while the checks run", () => {
  // What a candidate's code can do once a check runs it (a build.rs, a module the first test
  // imports): gut the frozen test before the runner reads it, then put it back.
  const GUT_AND_PUT_BACK = `cp test/check.sh "$HOME/saved"; printf '#!/bin/sh\nexit 0\n' > test/check.sh; sh test/check.sh; s=$?; cat "$HOME/saved" > test/check.sh; exit $s`;

  it('a frozen test rewritten during the checks and put back (same bytes at the end): no point, flagged', async () => {
    const w = await world();
    const sha = await commit(w.wt); // the bug left unfixed: the honest check fails
    const s = await score(w, sha, { command: GUT_AND_PUT_BACK });
    expect(s.checks[0]?.passed).toBe(true);
    expect(s.score).toBe(0);
    expect(s.keptFilesChanged).toEqual([{ path: 'test/check.sh', change: 'modified', rule: 'frozen' }]);
    expect(s.tampered).toEqual([{ path: 'test/check.sh', change: 'modified', rule: 'frozen' }]);
    expect(readFileSync(join(w.wt, 'test/check.sh'), 'utf8')).toBe(CHECK);
  });

  it('a frozen folder swapped for another (the files keep their inodes, under another name), a deleted frozen file: flagged', async () => {
    const w = await world({ 'test/data.txt': 'x\n' });
    const sha = await commit(w.wt);
    const s = await score(w, sha, { command: `mv test old && mkdir test && printf '#!/bin/sh\nexit 0\n' > test/check.sh && sh test/check.sh` });
    expect(s.score).toBe(0);
    expect(s.keptFilesChanged).toEqual([
      { path: 'test/check.sh', change: 'modified', rule: 'frozen' },
      { path: 'test/data.txt', change: 'deleted', rule: 'frozen' },
    ]);
    // The put-back makes the worktree the commit again.
    expect(git(w.wt, 'status', '--porcelain')).toBe('');
  });

  it("setup run again before the checks (an agent changed what it made) runs the candidate's code too: a kept file that code changes is caught", async () => {
    const w = await world();
    put(w.wt, 'node_modules/dep/index.js', 'setup made it\n');
    // The candidate's file that setup runs (as a `prepare` script of a frozen package.json would).
    put(w.wt, 'prepare.sh', "printf '#!/bin/sh\\nexit 0\\n' > test/check.sh\n");
    const sha = await commit(w.wt, ['node_modules/']);
    const s = await scoreAfterSetupRuns(w, sha, 'sh test/check.sh', () => execFileSync('sh', ['prepare.sh'], { cwd: w.wt }));
    expect(s.setupRebuilt).toEqual({ changed: ['node_modules/dep/index.js'] });
    // The gutted check passed, and counts nothing.
    expect(s.checks[0]?.passed).toBe(true);
    expect(s.score).toBe(0);
    expect(s.keptFilesChanged).toEqual([{ path: 'test/check.sh', change: 'modified', rule: 'frozen' }]);
  });

  it("what setup run again leaves beside the setup paths is removed before the checks, and the agent's leftover of the same name comes back after", async () => {
    const w = await world();
    put(w.wt, 'node_modules/dep/index.js', 'setup made it\n');
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, ['node_modules/']);
    // The agent's own leftover (ignored, so never committed), moved aside for the checks.
    put(w.wt, 'ignored/conftest.sh', "the agent's\n");
    // What a `prepare` script running a file of the candidate's could plant for the checks.
    const s = await scoreAfterSetupRuns(w, sha, 'test ! -e ignored && test ! -e planted.txt && sh test/check.sh', () => {
      put(w.wt, 'ignored/conftest.sh', 'planted\n');
      put(w.wt, 'planted.txt', 'planted\n');
    });
    expect(s.setupRebuilt).toEqual({ changed: ['node_modules/dep/index.js'], removed: ['ignored/', 'planted.txt'] });
    expect(s).toMatchObject({ score: 10, tampered: [] });
    expect(readFileSync(join(w.wt, 'ignored/conftest.sh'), 'utf8')).toBe("the agent's\n");
    expect(existsSync(join(w.wt, 'planted.txt'))).toBe(false);
  });

  it('checks that only read the kept files, or add files beside them, count as they ran', async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    const s = await score(w, sha, { command: 'mkdir -p test/out && cat test/check.sh > test/out/copy && sh test/check.sh' });
    expect(s).toMatchObject({ score: 10, tampered: [] });
    expect(s.keptFilesChanged).toBeUndefined();
  });
});

describe('[checks] editable', () => {
  it('reverts changes outside the allow-list for the checks and reports them', async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    put(w.wt, 'README.md', '# changed\n');
    put(w.wt, 'conftest.sh', 'exit 0\n');
    const sha = await commit(w.wt);
    const probe = "test ! -e conftest.sh && grep -q '^# r$' README.md && sh test/check.sh";
    const s = await score(w, sha, { command: probe, editable: ['src/**'] });
    expect(s.tampered).toEqual([
      { path: 'README.md', change: 'modified', rule: 'editable' },
      { path: 'conftest.sh', change: 'added', rule: 'editable' },
    ]);
    expect(s.checks[0]?.passed).toBe(true);
    expect(readFileSync(join(w.wt, 'conftest.sh'), 'utf8')).toBe('exit 0\n');
    expect(git(w.wt, 'status', '--porcelain')).toBe('');
  });
});

/** The git subcommands bestof runs during `fn` (without their `-c` options). */
async function gitSubcommands(fn: () => Promise<unknown>): Promise<string[]> {
  const { calls } = await recordGitCalls(tempDir(), fn);
  return calls.map((line) => {
    const args = line.split(' ');
    let i = 0;
    while (args[i] === '-c') i += 2;
    return args[i] ?? '';
  });
}

describe('after the checks: back to exactly the commit', () => {
  it('puts back everything a check changed: an edited, a deleted and a re-moded tracked file, an untracked file and an empty folder', async () => {
    const w = await world();
    put(w.wt, 'setup-made.txt', 'from setup\n');
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, ['setup-made.txt']);
    const check = 'printf 43 >> src/answer.txt && rm README.md && chmod +x src/answer.txt && echo junk > junk.txt && mkdir -p empty/inner && sh test/check.sh';

    const s = await score(w, sha, { command: check, keep: ['setup-made.txt'] });

    expect(s.checks[0]?.passed).toBe(true);
    expect(readFileSync(join(w.wt, 'src/answer.txt'), 'utf8')).toBe('42\n');
    expect(statSync(join(w.wt, 'src/answer.txt')).mode & 0o111).toBe(0);
    expect(readFileSync(join(w.wt, 'README.md'), 'utf8')).toBe('# r\n');
    expect(existsSync(join(w.wt, 'junk.txt'))).toBe(false);
    expect(existsSync(join(w.wt, 'empty'))).toBe(false);
    expect(readFileSync(join(w.wt, 'setup-made.txt'), 'utf8')).toBe('from setup\n');
    expect(git(w.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('?? setup-made.txt');
    expect(git(w.wt, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/t/c1');
    expect(git(w.wt, 'rev-parse', 'HEAD')).toBe(sha);
  });

  it('puts back a tracked file a check edited behind the skip-worktree bit (git reset --hard alone leaves it)', async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    const check = 'git update-index --skip-worktree src/answer.txt && echo 99 > src/answer.txt && sh test/check.sh';

    const s = await score(w, sha, { command: check });

    expect(s.checks[0]?.passed).toBe(false); // it saw its own 99
    expect(readFileSync(join(w.wt, 'src/answer.txt'), 'utf8')).toBe('42\n');
    expect(git(w.wt, 'ls-files', '-v')).not.toMatch(/^[a-zS]/m);
    expect(git(w.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('');
  });

  it('runs no reset and no clean when the checks changed nothing, only the clean when they left an untracked file', async () => {
    const w = await world();
    const keep = ['setup-made.txt', '.env'];
    put(w.wt, 'setup-made.txt', 'from setup\n');
    put(w.wt, '.env', 'SECRET=1\n');
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, keep);
    const putBackAfter = async (checks: () => void): Promise<string[]> => {
      const tree = await prepareScoringTree(w.wt, { base: w.base, commit: sha, frozen: ['test/**'], editable: [], keep });
      checks();
      const calls = await gitSubcommands(() => putBackScoringTree(w.wt, { commit: sha, keep, branch: tree.branch, tree }));
      expect(git(w.wt, 'status', '--porcelain', '--untracked-files=all')).toBe('?? setup-made.txt');
      expect(readFileSync(join(w.wt, 'src/answer.txt'), 'utf8')).toBe('42\n');
      expect(git(w.wt, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/t/c1');
      return calls.filter((c) => c === 'reset' || c === 'clean');
    };

    // Checks that read the files, rewrite one with the same bytes and set its mtime back a day: nothing changed.
    const unchanged = await putBackAfter(() => {
      writeFileSync(join(w.wt, 'src/answer.txt'), readFileSync(join(w.wt, 'src/answer.txt')));
      const dayAgo = new Date(Date.now() - 86_400_000);
      utimesSync(join(w.wt, 'src/answer.txt'), dayAgo, dayAgo);
      readFileSync(join(w.wt, '.env'));
    });
    expect(unchanged).toEqual([]);
    expect(await putBackAfter(() => put(w.wt, 'out/report.txt', 'report\n'))).toEqual(['clean']);
    expect(existsSync(join(w.wt, 'out'))).toBe(false);
    expect(await putBackAfter(() => put(w.wt, 'src/answer.txt', '43\n'))).toEqual(['reset', 'clean']);
  });

  it('removes the ignored files a check left, as the untracked ones: a credential the checks copied there never reaches the next agent call', async () => {
    const w = await world();
    const keep = ['.env', 'node_modules'];
    put(w.wt, '.env', 'SECRET=1\n');
    put(w.wt, 'node_modules/dep/index.js', 'module.exports = 1;\n');
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt, keep);
    // The agent's own ignored leftover: aside during the checks, back after.
    put(w.wt, 'ignored/agent-notes.txt', 'mine\n');
    // The candidate's code, run by a check, copies what it can read into an ignored file (and an ignored folder).
    const leak =
      "mkdir -p ignored && echo 'tok-from-a-credential-file' > ignored/loot.txt && mkdir -p ignored/deep && echo x > ignored/deep/more.txt && sh test/check.sh";

    const s = await score(w, sha, { command: leak, keep, justCommitted: { branchRef: 'refs/heads/bestof/t/c1', worktreeIsCommit: true } });

    expect(s.checks[0]?.passed).toBe(true);
    expect(existsSync(join(w.wt, 'ignored/loot.txt'))).toBe(false);
    expect(existsSync(join(w.wt, 'ignored/deep'))).toBe(false);
    expect(readFileSync(join(w.wt, 'ignored/agent-notes.txt'), 'utf8')).toBe('mine\n');
    expect(readFileSync(join(w.wt, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(readFileSync(join(w.wt, 'node_modules/dep/index.js'), 'utf8')).toBe('module.exports = 1;\n');
    // And on the slow path too (no tree of the preparation: the reset and the clean always run).
    const tree = await prepareScoringTree(w.wt, { base: w.base, commit: sha, frozen: ['test/**'], editable: [], keep });
    put(w.wt, 'ignored/loot.txt', 'again\n');
    await putBackScoringTree(w.wt, { commit: sha, keep, branch: tree.branch });
    expect(existsSync(join(w.wt, 'ignored/loot.txt'))).toBe(false);
    expect(readFileSync(join(w.wt, 'ignored/agent-notes.txt'), 'utf8')).toBe('mine\n');
  });
});

describe('the worktree folder replaced by what runs before the put-back', () => {
  // Without the sandbox the candidate's code, once a check or setup runs it, can rename its worktree
  // folder and put a link to the user's checkout in its place. The put-back would then `git reset
  // --hard` the user's branch to the candidate's commit and `git clean` their untracked files.
  const swapFor = (user: string): string => `d=$(pwd); cd / && mv "$d" "$d-aside" && ln -s '${user}' "$d"`;
  const userWork = (w: World): (() => Record<string, unknown>) => {
    put(w.r.dir, 'README.md', '# r, edited and not committed\n');
    put(w.r.dir, 'notes.txt', "untracked, the user's\n");
    return () => ({
      head: git(w.r.dir, 'symbolic-ref', 'HEAD'),
      tip: git(w.r.dir, 'rev-parse', 'HEAD'),
      status: git(w.r.dir, 'status', '--porcelain'),
      readme: readFileSync(join(w.r.dir, 'README.md'), 'utf8'),
      notes: readFileSync(join(w.r.dir, 'notes.txt'), 'utf8'),
      built: existsSync(join(w.r.dir, 'built.txt')),
    });
  };

  it('by a check: the next check does not run, nothing is put back there, and the scoring ends with WorktreeReplacedError', async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    const state = userWork(w);
    const before = state();
    const scoring = scoreWithChecks(w, sha, [
      { name: 'swap', command: swapFor(w.r.dir) },
      { name: 'build', command: 'echo built > built.txt' },
    ]);
    await expect(scoring).rejects.toThrow(WorktreeReplacedError);
    await expect(scoring).rejects.toThrow(`it is now a symbolic link to ${w.r.dir}`);
    expect(state()).toEqual(before);
    // The candidate's own folder, moved aside by its code, still holds its work.
    expect(readFileSync(join(`${w.wt}-aside`, 'src/answer.txt'), 'utf8')).toBe('42\n');
  });

  it('by setup run again before the checks: no check runs, and its leftovers are not looked for there', async () => {
    const w = await world();
    const sha = await commit(w.wt);
    const state = userWork(w);
    const before = state();
    const scoring = scoreAfterSetupRuns(w, sha, 'echo built > built.txt', () => execFileSync('sh', ['-c', swapFor(w.r.dir)], { cwd: w.wt }));
    await expect(scoring).rejects.toThrow(WorktreeReplacedError);
    expect(state()).toEqual(before);
  });
});

describe("the worktree's own git files changed by what the checks run", () => {
  // Without the sandbox the candidate's code, once a check runs it, can point the worktree's `.git`
  // file at the user's git dir: bestof's git calls there after the checks would act on the user's
  // repository (reset --hard of their branch and index, HEAD attached to the candidate's branch).
  it("is put back before the next check and before the put-back; the user's repository is untouched and the scoring counts no point", async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    const link = readFileSync(join(w.wt, '.git'), 'utf8');
    put(w.r.dir, 'README.md', '# r, edited and not committed\n');
    const user = (): Record<string, string> => ({
      head: readFileSync(join(w.r.dir, '.git', 'HEAD'), 'utf8'),
      tip: git(w.r.dir, 'rev-parse', 'HEAD'),
      index: git(w.r.dir, 'ls-files', '-s'),
      status: git(w.r.dir, 'status', '--porcelain'),
    });
    const before = user();
    const s = await scoreWithChecks(w, sha, [
      { name: 'repoint', command: `printf 'gitdir: %s\\n' '${join(w.r.dir, '.git')}' > .git` },
      // Run in the worktree's own repository again: HEAD is detached at the candidate's commit there.
      { name: 'where', command: `test "$(git rev-parse HEAD)" = ${sha} && test "$(cat .git)" = '${link.trim()}'` },
    ]);
    expect(s.checks.map((c) => c.passed)).toEqual([true, true]);
    expect(s.score).toBe(0);
    expect(s.keptFilesChanged).toEqual([{ path: '.git', change: 'modified', rule: 'frozen' }]);
    expect(user()).toEqual(before);
    expect(readFileSync(join(w.wt, '.git'), 'utf8')).toBe(link);
    expect(git(w.wt, 'symbolic-ref', 'HEAD')).toBe('refs/heads/bestof/t/c1');
  });

  it("a core.worktree in its config.worktree that names the user's checkout: put back before the put-back, whose reset and clean would land there", async () => {
    const w = await world();
    put(w.wt, 'src/answer.txt', '42\n');
    const sha = await commit(w.wt);
    put(w.r.dir, 'README.md', '# r, edited and not committed\n');
    put(w.r.dir, 'notes.txt', "untracked, the user's\n");
    const user = (): Record<string, string> => ({
      readme: readFileSync(join(w.r.dir, 'README.md'), 'utf8'),
      notes: readFileSync(join(w.r.dir, 'notes.txt'), 'utf8'),
      answer: readFileSync(join(w.r.dir, 'src/answer.txt'), 'utf8'),
      status: git(w.r.dir, 'status', '--porcelain'),
    });
    const before = user();
    const s = await scoreWithChecks(w, sha, [
      // The checks' own leftovers make the put-back reset and clean (a tracked file changed, an untracked one added).
      {
        name: 'retarget',
        command: `echo 0 > src/answer.txt; touch scratch.txt; git config extensions.worktreeConfig true && git config --worktree core.worktree '${w.r.dir}'`,
      },
      { name: 'where', command: `test "$(git rev-parse --show-toplevel)" = "$(pwd -P)"` },
    ]);
    expect(s.checks.map((c) => c.passed)).toEqual([true, true]);
    expect(s.score).toBe(0);
    expect(s.keptFilesChanged).toEqual([{ path: '.git/worktrees/c1/config.worktree', change: 'added', rule: 'frozen' }]);
    expect(user()).toEqual(before);
    // The worktree is the candidate's commit again, its leftovers of the checks gone.
    expect(readFileSync(join(w.wt, 'src/answer.txt'), 'utf8')).toBe('42\n');
    expect(existsSync(join(w.wt, 'scratch.txt'))).toBe(false);
  });
});
