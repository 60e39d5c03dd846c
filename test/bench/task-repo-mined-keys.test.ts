/**
 * `history = "base"` (prepareTaskRepo, src/bench/run-trial.ts): the task's repo holds only what
 * base reaches, no later commit (a mined task's fix and its tests) in any object store an agent can
 * read, no alternates; and the trials are told to hide the source repo, whose HEAD holds that
 * future. `"shared"` keeps today's clone, which borrows the source's objects.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { BenchTaskSpec } from '../../src/bench/bench-spec.js';
import { prepareTaskRepo } from '../../src/bench/run-trial.js';
import { loadSpec } from '../../src/spec/load.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** A source repo whose base is followed by a fix with its test (on main) and a commit on a side branch; and the task's loaded spec. */
async function minedSource() {
  const r = repo({ 'src/f.py': 'def f():\n    return 0\n' });
  const base = r.git('rev-parse', 'HEAD');
  r.write('src/f.py', 'def f():\n    return 42  # the fix\n');
  r.write('tests/test_f.py', 'def test_f():\n    assert f() == 42  # the fix test\n');
  r.commitAll('fix f');
  r.git('checkout', '-q', '-b', 'side', base);
  r.write('side.txt', 'a future on a side branch\n');
  r.commitAll('side');
  r.git('checkout', '-q', 'main');
  r.git('tag', 'v1', 'side');
  // Every object some commit after base brought: none may be in the task's repo.
  const future = new Set(
    r
      .git('rev-list', '--objects', '--all', `^${base}`)
      .split('\n')
      .map((line) => line.split(' ')[0] ?? ''),
  );
  const specDir = tempDir();
  writeFileSync(join(specDir, 't.toml'), `repo = "${r.dir}"\nbase = "${base}"\n[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n`);
  const loaded = await loadSpec(join(specDir, 't.toml'));
  if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
  return { r, base, future, loaded: loaded.value };
}

const task = (history: 'shared' | 'base'): BenchTaskSpec => ({ id: 't', spec: 't.toml', bar: 0.5, history, resolved_by: 'checks' });

function objectsOf(dir: string): string[] {
  return execFileSync('git', ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
}

describe('the task repo of a mined task', () => {
  it('history = "base": only the objects base reaches, no alternates, checked out at base; the source repo is hidden', async () => {
    const { r, base, future, loaded } = await minedSource();
    const bench = tempDir();
    const made = await prepareTaskRepo(task('base'), loaded, bench, bench);
    expect(made.base).toBe(base);
    expect(made.hide).toEqual([r.dir]);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: made.repo, encoding: 'utf8' }).trim();
    expect(git('rev-parse', 'HEAD')).toBe(base);
    expect(git('status', '--porcelain')).toBe('');
    expect(existsSync(join(made.repo, '.git', 'objects', 'info', 'alternates'))).toBe(false);
    const objects = objectsOf(made.repo);
    expect(objects.filter((o) => future.has(o))).toEqual([]);
    // Base's whole history is there, complete: fsck finds nothing missing.
    expect(objects).toContain(base);
    git('fsck', '--no-progress', '--strict');
    // A second trial of the same bench folder reuses the repo, and still hides the source.
    expect(await prepareTaskRepo(task('base'), loaded, bench, bench)).toEqual(made);
  });

  it('history = "shared": a clone that borrows the source repo objects, later commits included; nothing more hidden', async () => {
    const { future, loaded } = await minedSource();
    const bench = tempDir();
    const made = await prepareTaskRepo(task('shared'), loaded, bench, bench);
    expect(made.hide).toBeUndefined();
    expect(existsSync(join(made.repo, '.git', 'objects', 'info', 'alternates'))).toBe(true);
    expect(objectsOf(made.repo).filter((o) => future.has(o)).length).toBe(future.size);
  });
});
