/**
 * `bestof bench mine` over a small real history (test/helpers/mined-history.ts), through the binary:
 * what it keeps and rejects and why, what it writes, that the hidden tests stay out of every task's
 * prompt and out of the repo, that the repo is left as it was, and its bad-input refusals.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.js';
import { minedHistory } from '../../helpers/mined-history.js';
import { makeTempDir } from '../../helpers/temp-repo.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setUp() {
  const history = minedHistory();
  cleanups.push(() => history.repo.cleanup());
  const out = join(makeTempDir('bestof-mined-'), 'bench');
  return { ...history, out };
}

interface MinedJson {
  kept: Array<{
    sha: string;
    id: string;
    parent: string;
    message: string;
    failToPass: string[];
    passToPass: string[];
    testFiles: string[];
    size: { lines: number; files: number };
  }>;
  rejected: Array<{ sha: string; reason: string; detail: string }>;
  commitsLookedAt: number;
  timing: { validatedCommits: number; validationMsPerValidatedCommit: number | null };
}

describe('bestof bench mine', () => {
  it('keeps the fix with its tests and rejects every other kind of commit, saying why', async () => {
    const { repo, commits, out } = setUp();
    const refsBefore = repo.git('for-each-ref');
    const result = await runCli(['bench', 'mine', '--out', out], { cwd: join(repo.dir, 'lib') });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/7 commits looked at, 1 tasks kept, 6 rejected/);
    const mined = JSON.parse(readFileSync(join(out, 'mined.json'), 'utf8')) as MinedJson;

    expect(mined.kept.map((k) => k.sha)).toEqual([commits.fix]);
    const [task] = mined.kept;
    expect(task?.parent).toBe(repo.git('rev-parse', `${commits.fix}^`));
    expect(task?.message).toBe('Add mul\n\nmul(a, b) multiplies two numbers, as add adds them.');
    expect(task?.failToPass.sort()).toEqual(['mul by zero is zero', 'mul multiplies the secret operands']);
    expect(task?.passToPass).toEqual(['add adds']);
    expect(task?.testFiles).toEqual(['test/mul.test.mjs']);
    expect(task?.size).toEqual({ lines: 1, files: 1 });

    const reasons = Object.fromEntries(mined.rejected.map((r) => [r.sha, r.reason]));
    expect(reasons[commits.docs]).toBe('docs-only');
    expect(reasons[commits.testOnly]).toBe('no-source-change');
    expect(reasons[commits.passesBefore]).toBe('no-fail-before');
    expect(reasons[commits.changesOldTest]).toBe('breaks-visible');
    expect(reasons[commits.sourceOnly]).toBe('no-test-change');
    expect(mined.rejected.find((r) => r.sha === commits.changesOldTest)?.detail).toContain('add keeps fractions');
    // Three commits were run (the others sorted out by their files), each timed.
    expect(mined.timing.validatedCommits).toBe(3);
    expect(mined.timing.validationMsPerValidatedCommit).toBeGreaterThan(0);
    expect(readFileSync(join(out, 'mined.md'), 'utf8')).toContain('| no-fail-before |');

    // The repo is as it was: no ref, worktree, index change or file of bestof's.
    expect(repo.git('for-each-ref')).toBe(refsBefore);
    expect(repo.git('status', '--porcelain', '--ignored')).toBe('');
    expect(repo.git('worktree', 'list').split('\n')).toHaveLength(1);
  });

  it('writes the task: a run spec at the parent with the message as its prompt, the hidden tests outside the repo, the fix as a patch', async () => {
    const { repo, commits, out } = setUp();
    const result = await runCli(['bench', 'mine', '--out', out, '--reference'], { cwd: repo.dir });
    expect(result.code, result.stderr).toBe(0);
    const [id] = readdirSync(join(out, 'tasks')).map((f) => f.replace(/\.toml$/, ''));
    expect(id).toBe(`${commits.fix.slice(0, 8)}-add-mul`);
    const spec = readFileSync(join(out, 'tasks', `${id}.toml`), 'utf8');
    expect(spec).toContain(`base = "${repo.git('rev-parse', `${commits.fix}^`)}"`);
    expect(spec).toContain('kind = "oracle"');
    expect(spec).toContain('expect = ');
    const hiddenTest = readFileSync(join(out, 'hidden', id as string, 'files', 'test', 'mul.test.mjs'), 'utf8');
    expect(hiddenTest).toBe(repo.git('show', `${commits.fix}:test/mul.test.mjs`) + '\n');
    const expected = JSON.parse(readFileSync(join(out, 'hidden', id as string, 'expected.json'), 'utf8')) as { tests: string[] };
    expect(expected.tests.sort()).toEqual(['add adds', 'mul by zero is zero', 'mul multiplies the secret operands']);
    // Not a byte of the hidden tests in the prompt (their names and lines), and none in the parent's tree.
    const prompt = /\[prompt\]\ntext = "([^"]*)"/.exec(spec)?.[1] ?? '';
    expect(prompt).toContain('Add mul');
    for (const line of ['secret operands', 'mul(6, 7), 42', 'mul by zero']) {
      expect(spec).not.toContain(line);
      expect(() => repo.git('grep', '-F', '-e', line, `${commits.fix}^`, '--'), `${line} is in the parent's tree`).toThrow();
    }
    expect(readFileSync(join(out, 'reference', `${id}.patch`), 'utf8')).toMatch(/^diff --git a\/lib\/mul\.mjs b\/lib\/mul\.mjs/);
    expect(readFileSync(join(out, 'reference', `${id}.patch`), 'utf8')).not.toContain('test/');
    const bench = readFileSync(join(out, 'bench.toml'), 'utf8');
    expect(bench).toContain(`spec = "tasks/${id}.toml"`);
    expect(bench).toContain('history = "base"');
    expect(bench).toContain('resolved_by = "oracle"');
    expect(bench).toMatch(/id = "reference"[\s\S]*reference = true/);
  });

  it('refuses an --out inside the repo, and a repo whose checks report no test by name, creating nothing', async () => {
    const { repo, out } = setUp();
    const inside = await runCli(['bench', 'mine', '--out', join(repo.dir, 'mined')], { cwd: repo.dir });
    expect(inside.code).toBe(2);
    expect(inside.stderr).toMatch(/--out .* is inside the repo; the hidden tests must be outside it/);
    expect(existsSync(join(repo.dir, 'mined'))).toBe(false);

    repo.write('bestof.toml', '[[checks.items]]\nname = "test"\ncommand = "node --test"\n');
    const noReport = await runCli(['bench', 'mine', '--out', out], { cwd: repo.dir });
    expect(noReport.code).toBe(2);
    expect(noReport.stderr).toMatch(/mining needs a check that reports its tests by name .* \(its checks: `test`\)/);
    expect(existsSync(out)).toBe(false);
    const unknown = await runCli(['bench', 'mine', '--out', out, '--check', 'lint'], { cwd: repo.dir });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no check named "lint"');
    expect(existsSync(out)).toBe(false);
  });
});
