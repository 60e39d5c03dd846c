/**
 * The failing part of a check's output (src/checks/failure-excerpt.ts), cut from what real test
 * runners print when a test fails: node's own runner with both its reporters and pytest, run here
 * as child processes on a failing test; and the rules on outputs written out (noise before the
 * failure, a summary after it, no marker at all).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EXCERPT_LINES, failureExcerpt } from '../../src/checks/failure-excerpt.js';
import { findOnPathSync } from '../../src/process/find-on-path.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { tempDir } = tempRepos();

/** A runner's whole output (stdout then stderr, as a check's is joined), from a real run. */
function run(command: string, args: readonly string[], cwd: string): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
  expect(result.status, result.stdout + result.stderr).not.toBe(0);
  return [result.stdout, result.stderr].filter(Boolean).join('\n');
}

/** Twenty passing tests, then one that fails with a plain assertion, then twenty more: the failure is neither first nor last. */
function nodeTests(dir: string): string {
  const file = join(dir, 'add.test.mjs');
  const passing = (from: number) =>
    Array.from({ length: 20 }, (_, i) => `test('passes ${from + i}', () => assert.equal(${from + i}, ${from + i}));`).join('\n');
  writeFileSync(
    file,
    `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\n${passing(0)}\ntest('adds two numbers', () => assert.equal(2 + 2, 5));\n${passing(20)}\n`,
  );
  return file;
}

describe('failureExcerpt on real runners', () => {
  it("node --test with the TAP reporter: from the `not ok` line, with the assertion's expected and actual, not the summary", () => {
    const dir = tempDir();
    const output = run(process.execPath, ['--test', '--test-reporter=tap', nodeTests(dir)], dir);
    const excerpt = failureExcerpt(output);
    const lines = excerpt.split('\n');
    expect(lines[0]).toMatch(/^… \(\d+ lines above\)$/);
    expect(excerpt).toMatch(/not ok \d+ - adds two numbers/);
    expect(excerpt).toMatch(/expected: 5/);
    expect(excerpt).toMatch(/actual: 4/);
    expect(excerpt).not.toMatch(/# fail 1/);
    expect(lines.length).toBeLessThanOrEqual(EXCERPT_LINES + 1);
    // What the dashboard showed before: the end, the TAP summary only.
    expect(output.trimEnd().split('\n').slice(-8).join('\n')).not.toContain('adds two numbers');
  });

  it('node --test with the spec reporter: the failed test and its AssertionError', () => {
    const dir = tempDir();
    const output = run(process.execPath, ['--test', '--test-reporter=spec', nodeTests(dir)], dir);
    const excerpt = failureExcerpt(output);
    expect(excerpt).toContain('adds two numbers');
    expect(excerpt).toMatch(/AssertionError/);
    expect(excerpt).toMatch(/4 !== 5/);
  });

  it.skipIf(findOnPathSync('pytest') === undefined)('pytest: the assertion lines (E ...) of the failing test', () => {
    const dir = tempDir();
    const body = Array.from({ length: 30 }, (_, i) => `def test_pass_${i}():\n    assert ${i} == ${i}\n`).join('\n');
    writeFileSync(join(dir, 'test_calc.py'), `${body}\ndef test_adds():\n    total = 2 + 2\n    assert total == 5\n`);
    const output = run('pytest', ['-q', '-p', 'no:cacheprovider', 'test_calc.py'], dir);
    const excerpt = failureExcerpt(output);
    expect(excerpt).toMatch(/assert total == 5/);
    expect(excerpt).toMatch(/^E\s+assert 4 == 5/m);
  });
});

describe('failureExcerpt rules', () => {
  it("prefers a runner's failure detail anywhere to noise that came earlier (nyc's cache error before tape's `not ok`)", () => {
    const output = [
      "Error: EROFS: read-only file system, mkdir '/repo/node_modules/.cache/nyc'",
      '    at Object.mkdirSync (node:fs:1386:26)',
      'TAP version 13',
      ...Array.from({ length: 500 }, (_, i) => `ok ${i + 1} round trip`),
      'not ok 501 decodes + as a space',
      '  ---',
      '    operator: equal',
      "    expected: 'a b'",
      "    actual:   'a+b'",
      '  ...',
      ...Array.from({ length: 500 }, (_, i) => `ok ${i + 502} parse`),
      '# tests 1001',
      '# fail  1',
      'All files  |   96.15 |    83.33 |     100 |   96.15 |',
    ].join('\n');
    const excerpt = failureExcerpt(output);
    expect(excerpt.split('\n')[0]).toBe('… (503 lines above)');
    expect(excerpt).toContain('not ok 501 decodes + as a space');
    expect(excerpt).toContain("actual:   'a+b'");
    expect(excerpt).not.toContain('EROFS');
    expect(excerpt).not.toContain('All files');
  });

  it('prefers the detail to a mark: a vitest run, where `×` marks the test early and the AssertionError comes later', () => {
    const output = [
      ' ❯ test/slug.test.ts (21 tests | 1 failed)',
      '   × slugify > strips accents',
      ...Array.from({ length: 20 }, (_, i) => `   ✓ case ${i + 1}`),
      ' FAIL  test/slug.test.ts > slugify > strips accents',
      "AssertionError: expected 'cr-me' to be 'creme'",
      '- Expected',
      '+ Received',
    ].join('\n');
    const excerpt = failureExcerpt(output);
    expect(excerpt).toContain(' FAIL  test/slug.test.ts > slugify > strips accents');
    expect(excerpt).toContain("AssertionError: expected 'cr-me' to be 'creme'");
    expect(excerpt).not.toContain('case 1\n');
  });

  it('a mark when there is no detail, a weak word when there is no mark', () => {
    expect(failureExcerpt(['build ok', 'FAIL src/a.test.js', 'done'].join('\n'))).toBe('build ok\nFAIL src/a.test.js\ndone');
    expect(failureExcerpt(['step 1', 'step 2', 'step 3', 'compile error: x undefined', 'exit'].join('\n'))).toBe(
      '… (1 line above)\nstep 2\nstep 3\ncompile error: x undefined\nexit',
    );
  });

  it('never starts at a summary line, nor at a TODO test', () => {
    const output = ['not ok 1 later # TODO', ...Array.from({ length: 30 }, (_, i) => `line ${i}`), '# fail 1', '# tests 3'].join('\n');
    // No marker but the summary and a TODO: the end.
    expect(failureExcerpt(output)).toBe(['line 24', 'line 25', 'line 26', 'line 27', 'line 28', 'line 29', '# fail 1', '# tests 3'].join('\n'));
  });

  it('is bounded in lines and characters, and says so', () => {
    const long = ['not ok 1 x', ...Array.from({ length: 100 }, () => 'y'.repeat(300))].join('\n');
    const excerpt = failureExcerpt(long);
    expect(excerpt.length).toBeLessThanOrEqual(2000 + '\n… (cut)'.length);
    expect(excerpt.endsWith('… (cut)')).toBe(true);
    expect(failureExcerpt(['not ok 1 x', ...Array.from({ length: 100 }, (_, i) => `l${i}`)].join('\n')).split('\n')).toHaveLength(EXCERPT_LINES);
  });
});
