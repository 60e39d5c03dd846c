/**
 * TAP as a real runner prints it (`node --test --test-reporter=tap` on stdout), read by
 * parseTestReport: leaf tests named by their parents, nested subtests and `describe` blocks, a
 * failing one with its message bounded, and the edges (no TAP at all, a plan of no test, a name met twice).
 */
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX_CHARS, MESSAGE_MAX_LINES } from '../../../src/checks/test-report/bounded-message.js';
import { parseTestReport } from '../../../src/checks/test-report/parse.js';
import type { ParsedReport, TestCaseResult } from '../../../src/checks/test-report/types.js';
import { tempRepos } from '../../helpers/temp-repo.js';

const { tempDir } = tempRepos();

const HOSTILE = 'hostile <&"> # ünï — 日本';

const NODE_TESTS = `
import { describe, it, test } from 'node:test';
import assert from 'node:assert/strict';
test('passes', () => {});
test('fails', () => assert.equal(1, 2));
test('skipped', { skip: 'not today' }, () => {});
test('todo', { todo: 'later' }, () => { throw new Error('a todo may fail'); });
test(${JSON.stringify(HOSTILE)}, () => {});
describe('outer', () => {
  describe('inner', () => {
    it('deep pass', () => {});
    it('deep fail', () => { throw new Error('x'.repeat(5000) + '\\n' + 'line\\n'.repeat(100)); });
  });
});
test('parent', async (t) => {
  await t.test('child ok', () => {});
  await t.test('middle', async (t) => {
    await t.test('grandchild fails', () => assert.ok(false, 'nope'));
  });
});
test('parent that throws after its subtests pass', async (t) => {
  await t.test('only child', () => {});
  throw new Error('the parent itself failed');
});
test('same name', () => {});
test('same name', () => { throw new Error('the second one'); });
`;

/** The node test file run with the TAP reporter: its stdout, what a `report = "tap"` check reads. */
function nodeTap(source: string): string {
  const work = tempDir();
  writeFileSync(join(work, 'suite.test.mjs'), source);
  const env: NodeJS.ProcessEnv = { ...process.env };
  // A node --test started by another test runner would report to it instead of to its reporter.
  delete env.NODE_TEST_CONTEXT;
  const result = spawnSync(process.execPath, ['--test', '--test-reporter=tap', 'suite.test.mjs'], { cwd: work, env, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return result.stdout;
}

function tests(report: ParsedReport): readonly TestCaseResult[] {
  if (!report.ok) throw new Error(`expected a report, got ${report.reason}: ${report.detail}`);
  return report.tests;
}

const tap = (stdout: string) => parseTestReport('tap', { stdout, files: [] });
const outcomes = (report: ParsedReport) => tests(report).map((test) => [test.name, test.outcome]);
const messageOf = (report: ParsedReport, name: string) => tests(report).find((test) => test.name === name)?.message ?? '';

describe("node --test's TAP reporter", () => {
  it('gives the leaf tests, named by their parents; a parent failing by itself is a failure of its own; a name met twice numbered', () => {
    expect(outcomes(tap(nodeTap(NODE_TESTS)))).toEqual([
      ['passes', 'passed'],
      ['fails', 'failed'],
      ['skipped', 'skipped'],
      ['todo', 'skipped'],
      [HOSTILE, 'passed'],
      ['outer > inner > deep pass', 'passed'],
      ['outer > inner > deep fail', 'failed'],
      ['parent > child ok', 'passed'],
      ['parent > middle > grandchild fails', 'failed'],
      ['parent that throws after its subtests pass > only child', 'passed'],
      ['parent that throws after its subtests pass', 'failed'],
      ['same name', 'passed'],
      ['same name #2', 'failed'],
    ]);
  });

  it("keeps a failure's message from its YAML block, bounded: the assertion's words, a 5000-character error cut and marked", () => {
    const report = tap(nodeTap(NODE_TESTS));
    expect(messageOf(report, 'fails')).toContain('1 !== 2');
    expect(messageOf(report, 'parent > middle > grandchild fails')).toContain('nope');
    expect(messageOf(report, 'parent that throws after its subtests pass')).toContain('the parent itself failed');
    const long = messageOf(report, 'outer > inner > deep fail');
    expect(long).toMatch(/^x{100}/);
    expect(long.endsWith('…')).toBe(true);
    for (const test of tests(report)) {
      if (test.message === undefined) continue;
      expect(test.message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
      expect(test.message.split('\n').length).toBeLessThanOrEqual(MESSAGE_MAX_LINES);
    }
    expect(messageOf(report, 'passes')).toBe('');
  });

  it('a run cut short (the output ends mid-test) gives the tests that ended, no invented ones', () => {
    const whole = nodeTap(NODE_TESTS);
    const cut = whole.slice(0, whole.indexOf('# Subtest: outer'));
    expect(outcomes(tap(cut)).map(([name]) => name)).toEqual(['passes', 'fails', 'skipped', 'todo', HOSTILE]);
  });
});

describe('TAP edges', () => {
  it('output with no TAP line is no report; a plan of no test is an empty report', () => {
    expect(tap('building...\nall good\n')).toMatchObject({ ok: false, reason: 'missing' });
    expect(tap('')).toMatchObject({ ok: false, reason: 'missing' });
    expect(tap('TAP version 14\n1..0 # nothing to run\n')).toEqual({ ok: true, tests: [] });
  });
});
