/**
 * `go test -json` as the real go prints it, on a temp module, read by parseTestReport: a pass, a
 * fail, a skip, subtests, a package that fails to build (with and without its compiler output
 * merged into stdout), a package with no test, a test run twice that fails once. Go's caches go to
 * the temp folder, modules are never fetched (GOFLAGS=-mod=mod, GOPROXY=off, GOTOOLCHAIN=local).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MESSAGE_MAX_CHARS, MESSAGE_MAX_LINES } from '../../../src/checks/test-report/bounded-message.js';
import { parseTestReport } from '../../../src/checks/test-report/parse.js';
import type { ParsedReport, TestCaseResult } from '../../../src/checks/test-report/types.js';
import { makeTempDir, tempRepos } from '../../helpers/temp-repo.js';

const { tempDir } = tempRepos();

/** One build cache for the file's runs: each run of its own would build the testing packages again. */
const goCaches = makeTempDir('bestof-go-');
afterAll(() => rmSync(goCaches, { recursive: true, force: true }));

const hasGo = spawnSync('go', ['version'], { stdio: 'ignore' }).status === 0;

const MODULE: Record<string, string> = {
  'go.mod': 'module example.com/m\n\ngo 1.19\n',
  'calc/calc.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n',
  'calc/calc_test.go': `package calc

import (
	"strings"
	"testing"
)

func TestPass(t *testing.T) {
	if Add(1, 2) != 3 {
		t.Fatal("1 + 2")
	}
}

func TestFail(t *testing.T) { t.Errorf("Add(2, 2) = %d, want 5", Add(2, 2)) }

func TestSkip(t *testing.T) { t.Skip("not today") }

func TestX(t *testing.T) {
	t.Run("case 1", func(t *testing.T) {})
	t.Run("case <&\\"> ünï", func(t *testing.T) { t.Error("sub failed") })
}

func TestLong(t *testing.T) { t.Error(strings.Repeat("x", 5000) + strings.Repeat("\\nline", 100)) }
`,
  'broken/broken.go': 'package broken\n\nfunc Oops() int { return "not an int" }\n',
  'broken/broken_test.go': 'package broken\n\nimport "testing"\n\nfunc TestOops(t *testing.T) { Oops() }\n',
  'notests/notests.go': 'package notests\n\nfunc Nothing() {}\n',
};

/** A test that fails on its first run in the process and passes on the second (`-count=2`). */
const FLAKY: Record<string, string> = {
  'go.mod': 'module example.com/f\n\ngo 1.19\n',
  'flaky/flaky_test.go': `package flaky

import "testing"

var runs int

func TestFlaky(t *testing.T) {
	runs++
	if runs == 1 {
		t.Fatal("the first run fails")
	}
}
`,
};

/** `command` run by sh in a fresh module of these files, go's caches in the temp folder: its stdout. */
function goJson(files: Record<string, string>, command: string): string {
  const work = tempDir();
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), text);
  }
  const env = {
    ...process.env,
    GOCACHE: join(goCaches, 'go-cache'),
    GOPATH: join(goCaches, 'go'),
    GOFLAGS: '-mod=mod',
    GOTOOLCHAIN: 'local',
    GOPROXY: 'off',
  };
  const result = spawnSync('sh', ['-c', command], { cwd: work, env, encoding: 'utf8', timeout: 120_000 });
  if (result.error) throw result.error;
  return result.stdout;
}

function tests(report: ParsedReport): readonly TestCaseResult[] {
  if (!report.ok) throw new Error(`expected a report, got ${report.reason}: ${report.detail}`);
  return report.tests;
}

const read = (stdout: string) => parseTestReport('go-json', { stdout, files: [] });
const outcomes = (report: ParsedReport) => tests(report).map((test) => [test.name, test.outcome]);
const messageOf = (report: ParsedReport, name: string) => tests(report).find((test) => test.name === name)?.message ?? '';

describe.skipIf(!hasGo)('go test -json', () => {
  it('gives every test and subtest by package path, a parent failing with its subtest, a package that cannot build errored', () => {
    const report = read(goJson(MODULE, 'go test -json ./...'));
    // The order is that of the report: go builds the broken package before any test runs.
    expect(outcomes(report)).toEqual([
      ['example.com/m/broken', 'errored'],
      ['example.com/m/calc/TestPass', 'passed'],
      ['example.com/m/calc/TestFail', 'failed'],
      ['example.com/m/calc/TestSkip', 'skipped'],
      ['example.com/m/calc/TestX', 'failed'],
      ['example.com/m/calc/TestX/case_1', 'passed'],
      ['example.com/m/calc/TestX/case_<&">_ünï', 'failed'],
      ['example.com/m/calc/TestLong', 'failed'],
    ]);
    expect(messageOf(report, 'example.com/m/broken')).toMatch(/^the package failed to build/);
  });

  it("keeps a failure's own output, bounded, go's framing lines left out; with stderr merged, the compiler's error too", () => {
    const report = read(goJson(MODULE, 'go test -json ./... 2>&1'));
    expect(messageOf(report, 'example.com/m/calc/TestFail')).toBe('    calc_test.go:14: Add(2, 2) = 4, want 5');
    expect(messageOf(report, 'example.com/m/calc/TestX/case_<&">_ünï')).toContain('sub failed');
    expect(messageOf(report, 'example.com/m/broken')).toContain('cannot use "not an int"');
    const long = messageOf(report, 'example.com/m/calc/TestLong');
    expect(long).toContain('x'.repeat(100));
    expect(long.endsWith('…')).toBe(true);
    for (const test of tests(report)) {
      if (test.message === undefined) continue;
      expect(test.message).not.toMatch(/=== RUN|--- FAIL/);
      expect(test.message.length).toBeLessThanOrEqual(MESSAGE_MAX_CHARS);
      expect(test.message.split('\n').length).toBeLessThanOrEqual(MESSAGE_MAX_LINES);
    }
  });

  it('a package with no test files alone is an empty report, not a missing one', () => {
    expect(read(goJson(MODULE, 'go test -json ./notests'))).toEqual({ ok: true, tests: [] });
  });

  it('a test run twice (-count=2) is a test per run: the first run failing is not hidden by the second passing', () => {
    expect(outcomes(read(goJson(FLAKY, 'go test -json -count=2 ./...')))).toEqual([
      ['example.com/f/flaky/TestFlaky', 'failed'],
      ['example.com/f/flaky/TestFlaky #2', 'passed'],
    ]);
  });

  it('a package whose init() exits 0 runs no test: the report says so by having none', () => {
    const files = { ...MODULE, 'calc/exit.go': 'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n' };
    const report = read(goJson(files, 'go test -json ./calc'));
    expect(tests(report).filter((test) => test.name.startsWith('example.com/m/calc/'))).toEqual([]);
  });

  it('output with no go test event is no report', () => {
    expect(read('ok  \texample.com/m/calc\t0.01s\n')).toMatchObject({ ok: false, reason: 'missing' });
  });
});

if (!hasGo) it.skip('go test -json (skipped: go is not installed; .ci/run installs golang-go)', () => {});
