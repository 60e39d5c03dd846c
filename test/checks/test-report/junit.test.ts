/**
 * JUnit XML as real runners write it (node's `--test-reporter=junit`, pytest's `--junitxml`), into
 * a temp folder as into a check's `$BESTOF_REPORT_DIR`, read by parseTestReport: every test's name
 * and outcome, failure messages present and bounded, and the edges (a cut or broken file, a run of
 * no test, two files naming the same tests).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MESSAGE_MAX_CHARS, MESSAGE_MAX_LINES } from '../../../src/checks/test-report/bounded-message.js';
import { parseTestReport } from '../../../src/checks/test-report/parse.js';
import type { ParsedReport, TestCaseResult } from '../../../src/checks/test-report/types.js';
import { tempRepos } from '../../helpers/temp-repo.js';

const { tempDir } = tempRepos();

/** The Python the CI installs pytest for (.ci/run); the pytest cases are skipped, saying so, without it. */
const PYTHON = '/usr/bin/python3';
const hasPytest = spawnSync(PYTHON, ['-m', 'pytest', '--version'], { stdio: 'ignore' }).status === 0;

/** A name no runner should mangle: XML's specials and text beyond ASCII. */
const HOSTILE = 'hostile <&"> ünï — 日本';

const NODE_TESTS = `
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
test('passes', () => {});
test('fails', () => assert.equal(1, 2));
test('skipped', { skip: 'not today' }, () => {});
test('todo', { todo: 'later' }, () => { throw new Error('a todo may fail'); });
test(${JSON.stringify(HOSTILE)}, () => {});
describe('outer', () => {
  describe('inner', () => {
    test('deep pass', () => {});
    test('deep fail', () => { throw new Error('x'.repeat(5000) + '\\n' + 'line\\n'.repeat(100)); });
  });
});
test('parent', async (t) => {
  await t.test('child ok', () => {});
  await t.test('child fails', () => assert.ok(false, 'nope'));
});
`;

const PYTEST_TESTS = `
import pytest

def test_passes():
    assert 1 + 1 == 2

def test_fails():
    assert 1 + 1 == 3, "x" * 5000

@pytest.mark.skip(reason="not today")
def test_skipped():
    pass

@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False

@pytest.mark.parametrize("value", ['<&">'])
def test_hostile(value):
    assert value

def test_ünï():
    pass

class TestGroup:
    def test_in_class(self):
        pass

@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

def test_errors(broken):
    pass
`;

/** Runs a command in `cwd` (no shell), returning its exit code: the runner's own failures are expected. */
function run(cwd: string, command: string, args: readonly string[]): number | null {
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONDONTWRITEBYTECODE: '1' };
  // A node --test started by another test runner would report to it instead of to its reporter.
  delete env.NODE_TEST_CONTEXT;
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
  if (result.error) throw result.error;
  return result.status;
}

/** Every file the runner wrote into the report folder, as the engine reads it (read-report.ts). */
function reportFolder(dir: string): ParsedReport {
  const files = readdirSync(dir).map((name) => ({ name, text: readFileSync(join(dir, name), 'utf8') }));
  return parseTestReport('junit', { stdout: '', files });
}

function tests(report: ParsedReport): readonly TestCaseResult[] {
  if (!report.ok) throw new Error(`expected a report, got ${report.reason}: ${report.detail}`);
  return report.tests;
}

const outcomes = (report: ParsedReport) => tests(report).map((test) => [test.name, test.outcome]);
const messageOf = (report: ParsedReport, name: string) => tests(report).find((test) => test.name === name)?.message ?? '';

function expectBounded(message: string): void {
  expect(message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
  expect(message.split('\n').length).toBeLessThanOrEqual(MESSAGE_MAX_LINES);
}

/** The node test file run with its junit reporter into `reports/<file>`. */
function nodeJunit(source: string, file = 'node.xml'): { work: string; reports: string } {
  const work = tempDir();
  const reports = tempDir();
  writeFileSync(join(work, 'suite.test.mjs'), source);
  run(work, process.execPath, ['--test', '--test-reporter=junit', `--test-reporter-destination=${join(reports, file)}`, 'suite.test.mjs']);
  return { work, reports };
}

/**
 * A nested node test's name as bestof reads it. Node 24's junit reporter gives a nested test the
 * class name of its suites and parent tests joined by "." (`outer.inner`), read as any class name
 * is (`outer.inner::deep pass`); Node 20 and 22 give every test the class name "test", and the
 * test is named by its suites (`outer > inner > deep pass`). The same on base and on every
 * candidate of one machine; after an upgrade, base's cached tests are cleared (docs/checks.md).
 */
const NODE_CLASS_NAMES = Number(process.versions.node.split('.')[0]) >= 24;
const nested = (suites: readonly string[], name: string): string => (NODE_CLASS_NAMES ? `${suites.join('.')}::${name}` : [...suites, name].join(' > '));

describe("node --test's junit reporter", () => {
  it('gives every test by name (a nested one by its suites and parent tests), with its outcome; a todo is skipped, failing or not', () => {
    const report = reportFolder(nodeJunit(NODE_TESTS).reports);
    expect(outcomes(report)).toEqual([
      ['passes', 'passed'],
      ['fails', 'failed'],
      ['skipped', 'skipped'],
      ['todo', 'skipped'],
      // Node writes its `"` as `&amp;quot;`: read back as the `"` of the test file (junit.ts).
      [HOSTILE, 'passed'],
      [nested(['outer', 'inner'], 'deep pass'), 'passed'],
      [nested(['outer', 'inner'], 'deep fail'), 'failed'],
      [nested(['parent'], 'child ok'), 'passed'],
      [nested(['parent'], 'child fails'), 'failed'],
    ]);
  });

  it("keeps a failure's message, bounded: the assertion's words, and a 5000-character error cut and marked", () => {
    const report = reportFolder(nodeJunit(NODE_TESTS).reports);
    expect(messageOf(report, 'fails')).toContain('1 !== 2');
    expect(messageOf(report, nested(['parent'], 'child fails'))).toContain('nope');
    const long = messageOf(report, nested(['outer', 'inner'], 'deep fail'));
    expect(long).toMatch(/^x{100}/);
    expect(long.endsWith('…')).toBe(true);
    for (const test of tests(report)) if (test.message !== undefined) expectBounded(test.message);
    expect(tests(report).filter((test) => test.outcome === 'passed' && test.message !== undefined)).toEqual([]);
  });

  it('two files of the same tests: the second\'s names numbered " #2", none lost', () => {
    const source = "import { test } from 'node:test';\ntest('a', () => {});\ntest('b', () => { throw new Error('b'); });\n";
    const { work, reports } = nodeJunit(source, 'first.xml');
    run(work, process.execPath, ['--test', '--test-reporter=junit', `--test-reporter-destination=${join(reports, 'second.xml')}`, 'suite.test.mjs']);
    expect(outcomes(reportFolder(reports))).toEqual([
      ['a', 'passed'],
      ['b', 'failed'],
      ['a #2', 'passed'],
      ['b #2', 'failed'],
    ]);
  });

  it('a report cut short (the runner killed while writing) is unreadable, naming the file and where it broke', () => {
    const { reports } = nodeJunit(NODE_TESTS);
    const path = join(reports, 'node.xml');
    const whole = readFileSync(path, 'utf8');
    writeFileSync(path, whole.slice(0, Math.floor(whole.length / 2)));
    const report = reportFolder(reports);
    expect(report.ok).toBe(false);
    if (report.ok) return;
    expect(report.reason).toBe('unreadable');
    expect(report.detail).toMatch(/^node\.xml is not a JUnit XML report: line \d+, column \d+: /);
  });

  it('a folder with no XML file is no report, and says what the check wrote there', () => {
    const reports = tempDir();
    writeFileSync(join(reports, 'results.txt'), 'all good\n');
    expect(reportFolder(reports)).toEqual({
      ok: false,
      reason: 'missing',
      detail: 'no *.xml file in the report folder (the check wrote only results.txt there)',
    });
  });
});

describe("pytest's --junitxml", () => {
  if (!hasPytest) {
    it.skip(`(skipped: ${PYTHON} -m pytest is not installed; .ci/run installs python3-pytest)`, () => {});
    return;
  }

  /** The test module run by pytest with its JUnit report in `reports/py.xml`. */
  function pytestJunit(source: string): { reports: string; code: number | null } {
    const work = tempDir();
    const reports = tempDir();
    writeFileSync(join(work, 'test_mod.py'), source);
    const code = run(work, PYTHON, ['-m', 'pytest', '-q', '-p', 'no:cacheprovider', `--junitxml=${join(reports, 'py.xml')}`]);
    return { reports, code };
  }

  it('gives every test as module::name (class in the module part), with its outcome; xfail is skipped, a broken fixture errored', () => {
    const { reports, code } = pytestJunit(PYTEST_TESTS);
    expect(code).toBe(1);
    expect(outcomes(reportFolder(reports))).toEqual([
      ['test_mod::test_passes', 'passed'],
      ['test_mod::test_fails', 'failed'],
      ['test_mod::test_skipped', 'skipped'],
      ['test_mod::test_xfail', 'skipped'],
      ['test_mod::test_hostile[<&">]', 'passed'],
      ['test_mod::test_ünï', 'passed'],
      ['test_mod.TestGroup::test_in_class', 'passed'],
      ['test_mod::test_errors', 'errored'],
    ]);
  });

  it('keeps the messages, bounded: the assertion cut and marked, the fixture error named, the skip reason', () => {
    const report = reportFolder(pytestJunit(PYTEST_TESTS).reports);
    const failed = messageOf(report, 'test_mod::test_fails');
    expect(failed).toMatch(/^AssertionError: x{100}/);
    expect(failed.endsWith('…')).toBe(true);
    expect(messageOf(report, 'test_mod::test_errors')).toContain('fixture broke');
    expect(messageOf(report, 'test_mod::test_skipped')).toContain('not today');
    for (const test of tests(report)) if (test.message !== undefined) expectBounded(test.message);
  });

  it('a run that collects no test (exit 5) is an empty report, not a missing one: the judge finds every base test missing', () => {
    const { reports, code } = pytestJunit('VALUE = 1\n');
    expect(code).toBe(5);
    expect(reportFolder(reports)).toEqual({ ok: true, tests: [] });
  });

  it('a module that ends the process as it loads (os._exit(0)) writes no report at all', () => {
    const { reports, code } = pytestJunit(`import os\nos._exit(0)\n${PYTEST_TESTS}`);
    expect(code).toBe(0);
    expect(reportFolder(reports)).toMatchObject({ ok: false, reason: 'missing' });
  });
});
