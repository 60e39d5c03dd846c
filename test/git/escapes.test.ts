/**
 * What escapes a commit (src/git/guards/escapes.ts): a symbolic link that leads outside the worktree and a
 * nested git repository are left out of bestof's commit of a candidate's work, with a reason, and
 * stay on disk; a link between two files of the worktree is committed as before. Real git, real
 * links, in temp repos.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { commitAll } from '../../src/git/history/commit.js';
import { rangeHoldsFiltered } from '../../src/git/history/commit-filter.js';
import { linkLeadsOut } from '../../src/git/guards/escapes.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** `path mode` of every entry of a commit's tree. */
const treeEntries = (r: TempRepo, rev = 'HEAD'): string[] =>
  r
    .git('ls-tree', '-r', '-z', rev)
    .split('\0')
    .filter(Boolean)
    .map((entry) => `${entry.slice(entry.indexOf('\t') + 1)} ${entry.split(' ')[0]}`)
    .sort();

/** A repository of its own at `dir`, with one commit holding `files`. */
function nestedRepo(dir: string, files: Record<string, string>, opts: { commit?: boolean } = {}): void {
  mkdirSync(dir, { recursive: true });
  const git = (...args: string[]): string => execFileSync('git', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '--quiet', '--initial-branch=main');
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  if (opts.commit === false) return;
  git('add', '-A');
  git('-c', 'user.name=Agent', '-c', 'user.email=agent@example.com', 'commit', '--quiet', '-m', 'fix in a nested repo');
}

describe('commitAll leaves out a symbolic link that leads outside the worktree', () => {
  it('absolute (to /tmp, or to the worktree itself), relative climbing out with .., to a link that leads out, through a linked folder: each skipped with where it leads; the links stay on disk', async () => {
    const r = repo({ 'README.md': '# r\n', 'src/add.js': 'module.exports = (a, b) => a - b;\n' });
    const outside = tempDir();
    writeFileSync(join(outside, 'add.js'), 'module.exports = (a, b) => a + b;\n');
    mkdirSync(join(r.dir, 'lib'));
    symlinkSync(join(outside, 'add.js'), join(r.dir, 'lib/absolute.js'));
    symlinkSync(join(r.dir, 'README.md'), join(r.dir, 'lib/self-absolute.md'));
    symlinkSync('../../../../../../../../../../etc/hostname', join(r.dir, 'lib/climbs.txt'));
    symlinkSync('absolute.js', join(r.dir, 'lib/chain.js'));
    symlinkSync(outside, join(r.dir, 'out-dir'));
    symlinkSync('../out-dir/add.js', join(r.dir, 'lib/through-folder.js'));
    r.write('lib/work.js', 'ok\n');
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.skipped.map((file) => [file.path, file.reason])).toEqual([
      ['lib/absolute.js', 'link_out'],
      ['lib/chain.js', 'link_out'],
      ['lib/climbs.txt', 'link_out'],
      ['lib/self-absolute.md', 'link_out'],
      ['lib/through-folder.js', 'link_out'],
      ['out-dir', 'link_out'],
    ]);
    expect(result.skipped[0]?.detail).toBe(`is a symbolic link to ${join(outside, 'add.js')}, outside the worktree: commit the file itself, not a link to it`);
    expect(result.skipped[1]?.detail).toContain(`absolute.js (through lib/absolute.js -> ${join(outside, 'add.js')})`);
    expect(treeEntries(r)).toEqual(['README.md 100644', 'lib/work.js 100644', 'src/add.js 100644']);
    expect(readlinkSync(join(r.dir, 'lib/absolute.js'))).toBe(join(outside, 'add.js'));
  });

  it('a tracked file replaced by a link out keeps its committed version; links that stay inside (also dangling ones) are committed', async () => {
    const r = repo({ 'README.md': '# r\n', 'src/add.js': 'module.exports = (a, b) => a - b;\n' });
    rmSync(join(r.dir, 'src/add.js'));
    symlinkSync('/etc/hostname', join(r.dir, 'src/add.js'));
    mkdirSync(join(r.dir, 'docs'));
    symlinkSync('../README.md', join(r.dir, 'docs/README.md'));
    symlinkSync('not-yet.txt', join(r.dir, 'dangling'));
    symlinkSync('docs', join(r.dir, 'docs-link'));
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.skipped.map((file) => [file.path, file.reason])).toEqual([['src/add.js', 'link_out']]);
    expect(treeEntries(r)).toEqual(['README.md 100644', 'dangling 120000', 'docs-link 120000', 'docs/README.md 120000', 'src/add.js 100644']);
    expect(r.git('show', 'HEAD:src/add.js')).toBe('module.exports = (a, b) => a - b;');
    expect(lstatSync(join(r.dir, 'src/add.js')).isSymbolicLink()).toBe(true);
  });

  it('linkLeadsOut: a link to the worktree root or inside it is not out; an absolute one always is', async () => {
    const r = repo();
    symlinkSync('.', join(r.dir, 'here'));
    symlinkSync('/', join(r.dir, 'root'));
    expect(await linkLeadsOut(r.dir, 'here')).toBeUndefined();
    expect(await linkLeadsOut(r.dir, 'root')).toBe('/');
    expect(await linkLeadsOut(r.dir, 'README.md')).toBeUndefined();
  });
});

describe('commitAll leaves out a nested git repository', () => {
  it('an untracked folder with its own .git and commits: no gitlink (mode 160000) in the commit; its files stay on disk', async () => {
    const r = repo({ 'README.md': '# r\n' });
    nestedRepo(join(r.dir, 'lib'), { 'add.js': 'module.exports = (a, b) => a + b;\n' });
    r.write('src/index.js', 'require("../lib/add.js");\n');
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.skipped).toEqual([
      { path: 'lib', reason: 'nested_repo', detail: expect.stringMatching(/^is a nested git repository .*: commit its files, not a repository$/) },
    ]);
    expect(treeEntries(r)).toEqual(['README.md 100644', 'src/index.js 100644']);
    expect(existsSync(join(r.dir, 'lib/add.js'))).toBe(true);
    expect(existsSync(join(r.dir, 'lib/.git'))).toBe(true);
  });

  it('one without a commit does not fail the commit of the rest (git add -A alone refuses it)', async () => {
    const r = repo({ 'README.md': '# r\n' });
    nestedRepo(join(r.dir, 'scratch'), { 'a.txt': 'a\n' }, { commit: false });
    r.write('work.txt', 'w\n');
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.skipped.map((file) => [file.path, file.reason])).toEqual([['scratch', 'nested_repo']]);
    expect(treeEntries(r)).toEqual(['README.md 100644', 'work.txt 100644']);
  });

  it("the agent's own `git add lib` (a gitlink in the index, no .gitmodules) is unstaged and left out", async () => {
    const r = repo({ 'README.md': '# r\n' });
    nestedRepo(join(r.dir, 'lib'), { 'add.js': 'module.exports = (a, b) => a + b;\n' });
    r.git('add', 'lib');
    expect(r.git('ls-files', '-s', 'lib')).toMatch(/^160000 /);
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.skipped.map((file) => [file.path, file.reason])).toEqual([['lib', 'nested_repo']]);
    expect(result.commit).toBeUndefined();
    expect(r.git('ls-files', '-s', 'lib')).toBe('');
  });

  it('a .gitmodules entry of its own for it changes nothing: the staged gitlink is still left out (as a submodule whose commit bestof does not make), and is not on disk for the checks', async () => {
    const r = repo({ 'README.md': '# r\n' });
    nestedRepo(join(r.dir, 'lib'), { 'add.js': 'module.exports = (a, b) => a + b;\n' });
    r.write('.gitmodules', '[submodule "lib"]\n\tpath = lib\n\turl = ./lib\n');
    r.git('add', 'lib', '.gitmodules');
    const result = await commitAll(r.dir, { message: 'm' });
    expect(result.skipped.map((file) => [file.path, file.reason])).toEqual([['lib', 'submodule']]);
    expect(treeEntries(r)).toEqual(['.gitmodules 100644', 'README.md 100644']);
    // Unstaged, lib/ is an untracked folder now: the scoring tree moves it aside with the other leftovers.
    expect(r.git('status', '--porcelain', '--untracked-files=normal')).toBe('?? lib/');
  });
});

describe("rangeHoldsFiltered: an agent's own commits that add a link or a gitlink are folded, so the filter looks at them", () => {
  it('a committed link or gitlink is named, without a limit or secret values; plain files are not', async () => {
    const r = repo({ 'README.md': '# r\n' });
    const base = r.git('rev-parse', 'HEAD');
    r.write('plain.txt', 'p\n');
    const plain = r.commitAll('plain');
    expect(await rangeHoldsFiltered(r.dir, base, plain, {})).toBeUndefined();
    symlinkSync('/etc/hostname', join(r.dir, 'out'));
    const linked = r.commitAll('a link');
    expect(await rangeHoldsFiltered(r.dir, base, linked, {})).toBe('a symbolic link (out)');
    rmSync(join(r.dir, 'out'));
    r.commitAll('no link');
    nestedRepo(join(r.dir, 'lib'), { 'add.js': 'x\n' });
    r.git('add', 'lib');
    r.git('commit', '--quiet', '-m', 'gitlink');
    expect(await rangeHoldsFiltered(r.dir, base, r.git('rev-parse', 'HEAD'), {})).toBe('a gitlink (lib, a repository inside the worktree)');
  });
});
