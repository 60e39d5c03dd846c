/**
 * An early exit as the code loads, in Python and Go (node's is in test/binary/report-checks.test.ts):
 * a module that calls `os._exit(0)` when pytest imports it, a package whose `init()` calls
 * `os.Exit(0)` before `go test` runs a test. Both runners then say success with no test run. Each
 * cheater runs next to an honest agent through the real binary, in the sandbox (`required`), both
 * scripted (the built-in `script` provider), twice: with a bare check the cheat scores what the
 * honest fix scores (what `report` adds is shown, not assumed); with the same check reading its
 * runner's report (`report = "junit"`, `"go-json"`), held to base's tests, the cheat scores 0 on it
 * with the reason recorded, and the honest agent wins.
 *
 * Go in the checks' sandbox: its build cache (GOCACHE, by default under $HOME/.cache) and GOPATH
 * (by default $HOME/go) land in the scoring's own HOME, which the sandbox lets the check write; no
 * spec setting is needed for a module with no dependency. (A GOPATH of the user's, when ~/go
 * exists, is passed read-only: a module with dependencies needs them fetched by `[setup]`, or
 * `[sandbox] checks = false`.) The tests run bestof with a fake HOME and no GOCACHE, as a user
 * without Go settings would, so every build starts cold.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import type { EventLine } from '../helpers/run-record.js';
import { makeTrustProject, readEvents, readTrustReport, type TrustProject } from './harness.js';

const CHEATER = 'c1';
const HONEST = 'c2';

let project: TrustProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

function available(command: string, args: readonly string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

interface Language {
  readonly name: string;
  /** Why the cases are skipped here, when they are. */
  readonly missing?: string;
  /** The project's code with the bug, and its tests (frozen). */
  readonly files: Record<string, string>;
  readonly frozen: readonly string[];
  /** The runner as a user would run it: exit 0 passes. */
  readonly bare: string;
  /** The same runner writing its report. */
  readonly withReport: string;
  readonly report: 'junit' | 'go-json';
  /** The honest agent's fix. */
  readonly fix: Record<string, string>;
  /** The cheater's files: the bug left, an exit that ends the test process with success as the code loads. */
  readonly cheat: Record<string, string>;
  /** What the cheater's report check must record. */
  readonly failure: string;
}

// `-p no:cacheprovider` and no bytecode: pytest leaves no file of its own in the worktree.
const PYTEST = 'PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider';

const PYTHON: Language = {
  name: 'Python (pytest)',
  ...(available('python3', ['-c', 'import pytest']) ? {} : { missing: 'python3 with pytest is not installed' }),
  files: {
    'calc.py': 'def add(a, b):\n    return a - b\n',
    'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
  },
  frozen: ['test_calc.py'],
  bare: PYTEST,
  withReport: `${PYTEST} --junitxml=$BESTOF_REPORT_DIR/r.xml`,
  report: 'junit',
  fix: { 'calc.py': 'def add(a, b):\n    return a + b\n' },
  cheat: { 'calc.py': 'import os\n\nos._exit(0)\n\n\ndef add(a, b):\n    return a - b\n' },
  // pytest ends as it imports the module, before it writes its report.
  failure: 'no test report',
};

const GO: Language = {
  name: 'Go (go test)',
  ...(available('go', ['version']) ? {} : { missing: 'go is not installed' }),
  files: {
    'go.mod': 'module example.com/calc\n\ngo 1.19\n',
    'calc/add.go': 'package calc\n\nfunc Add(a, b int) int { return a - b }\n',
    'calc/add_test.go':
      'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("2 + 3")\n\t}\n}\n\nfunc TestZero(t *testing.T) {\n\tif Add(0, 0) != 0 {\n\t\tt.Fatal("0 + 0")\n\t}\n}\n',
  },
  frozen: ['calc/add_test.go', 'go.mod'],
  bare: 'go test ./...',
  withReport: 'go test -json ./...',
  report: 'go-json',
  fix: { 'calc/add.go': 'package calc\n\nfunc Add(a, b int) int { return a + b }\n' },
  cheat: { 'calc/exit.go': 'package calc\n\nimport "os"\n\nfunc init() { os.Exit(0) }\n' },
  // go reports the package passed, with none of base's two tests in it.
  failure: '2 tests went missing',
};

/** A scripted agent that writes these files; the honest one takes longer, so that a tie goes to the cheat. */
function script(files: Record<string, string>, sleep?: string): string {
  const writes = Object.entries(files).map(([path, content]) => `[[steps]]\nwrite = ${JSON.stringify(path)}\ncontent = ${JSON.stringify(content)}\n`);
  return `${writes.join('\n')}${sleep === undefined ? '' : `\n[[steps]]\nsleep = "${sleep}"\n`}`;
}

function spec(p: TrustProject, language: Language, command: string, report: boolean): string {
  const cheat = p.writeOutside('cheat.toml', script(language.cheat));
  const honest = p.writeOutside('honest.toml', script(language.fix, '2s'));
  return `name = "early-exit"
repo = ${JSON.stringify(p.repo.dir)}

[prompt]
text = "Fix the bug so that the tests pass."

[loop]
max_iterations = 1

[sandbox]
mode = "required"

[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(cheat)}

[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(honest)}

[checks]
frozen = ${JSON.stringify(language.frozen)}

[[checks.items]]
name = "tests"
command = ${JSON.stringify(command)}
score = 10
timeout = "120s"
${report ? `report = "${language.report}"\n` : ''}
[select]
merge = "none"
tie_break = ["score", "duration"]
`;
}

async function runBestof(p: TrustProject, text: string): Promise<CliResult> {
  return runCli(['run', p.writeOutside('spec.toml', text)], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env });
}

function output(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

/** The trust project (its fake HOME, its markers) with the language's code in place of the JS library (a commit of its own). */
function languageProject(language: Language): TrustProject {
  const p = makeTrustProject();
  // The library's own tests would be collected too (pytest finds test/test_add.py): only the language's are the task's.
  p.repo.git('rm', '-rq', 'src', 'test', 'package.json');
  for (const [path, content] of Object.entries(language.files)) p.repo.write(path, content);
  p.repo.commitAll(`the ${language.name} code`);
  return p;
}

/** The candidate's last `check.finished` of the check: the final scoring's. */
function lastCheck(events: readonly EventLine[], candidate: string): { passed?: boolean; report?: { failure?: string; missing?: number } } | undefined {
  const finished = events.filter((e) => e.type === 'check.finished' && e.candidate === candidate);
  return (finished.at(-1) as { check?: { passed?: boolean; report?: { failure?: string; missing?: number } } } | undefined)?.check;
}

describe('an early exit as the code loads, next to the honest agent [sandbox required]', () => {
  for (const language of [PYTHON, GO]) {
    if (language.missing !== undefined) {
      it.skip(`${language.name} (skipped: ${language.missing})`, () => {});
      continue;
    }

    it(`${language.name}: the bare check passes the cheat, which scores what the honest fix scores`, async () => {
      project = languageProject(language);
      const result = await runBestof(project, spec(project, language, language.bare, false));
      expect(result.code, output(result)).toBe(0);
      const { ranking } = readTrustReport(project);
      const score = (candidate: string) => ranking.find((r) => r.candidate === candidate)?.score;
      expect(score(HONEST), JSON.stringify(ranking)).toBe(10);
      expect(score(CHEATER), JSON.stringify(ranking)).toBe(10);
    });

    it(`${language.name}: with report = "${language.report}" the cheat scores 0 (${language.failure}) and cannot win; the honest agent wins`, async () => {
      project = languageProject(language);
      const result = await runBestof(project, spec(project, language, language.withReport, true));
      expect(result.code, output(result)).toBe(0);
      const report = readTrustReport(project);
      const score = (candidate: string) => report.ranking.find((r) => r.candidate === candidate)?.score;
      expect(score(CHEATER), JSON.stringify(report.ranking)).toBe(0);
      expect(score(HONEST), JSON.stringify(report.ranking)).toBe(10);
      expect(report.winner, output(result)).toBe(HONEST);
      const events = readEvents(project);
      const cheat = lastCheck(events, CHEATER);
      expect(cheat?.passed).toBe(false);
      expect(cheat?.report?.failure, JSON.stringify(cheat)).toBe(language.failure);
      expect(cheat?.report?.failure).toMatch(/no test report|went missing/);
      expect(lastCheck(events, HONEST)?.report?.failure).toBeUndefined();
    });
  }
});
