/**
 * `bestof init`'s checks against adversaries, each next to an honest agent through the real binary:
 * with the checks init wrote, then without the one name that holds each off. A tier of whole runs
 * (three runs a case); the checks init writes on each kind of repo are in the default tier
 * (test/binary/init-repos.test.ts).
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec } from '../../src/spec/load.js';
import { runCli } from '../helpers/cli.js';
import type { ReportJson } from '../helpers/run-record.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

/** A spec's frozen and protected patterns. */
interface Kept {
  readonly frozen: readonly string[];
  readonly protected: readonly string[];
  /** `[checks] editable`. @default none */
  readonly editable?: readonly string[];
}

describe("bestof init's checks against adversaries", () => {
  /**
   * Ways past a starter that init has closed, each tried by hand first: an adversary next to an
   * honest agent, with the checks init wrote (its frozen, protected and checks, as written), then
   * again without the one name that holds it off (where the cheat then scores as the honest fix).
   * A make repo as many are: no `.PHONY: test` (make takes a file named `test` for the target and,
   * with nothing newer than it, has nothing to do), and a script at the root that runs the tests.
   */
  const MAKE_REPO = { 'run-tests.sh': 'set -e\nfor t in tests/*.sh; do sh "$t"; done\n', 'tests/version.sh': 'test "$(cat VERSION)" = 2\n', VERSION: '1\n' };
  const SIMPLE = { ...MAKE_REPO, Makefile: 'test:\n\tsh run-tests.sh\n' };
  const MAKE_FIX = 'echo 2 > VERSION';
  /** A Go module whose calc package has the bug; the other package passes. */
  const GO_REPO = {
    'go.mod': 'module example.com/m\n\ngo 1.19\n',
    'm.go': 'package m\n\nfunc Hello() string { return "hi" }\n',
    'm_test.go': 'package m\n\nimport "testing"\n\nfunc TestHello(t *testing.T) {\n\tif Hello() != "hi" {\n\t\tt.Fatal()\n\t}\n}\n',
    'calc/add.go': 'package calc\n\nfunc Add(a, b int) int { return a - b }\n',
    'calc/add_test.go': 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal("2 + 3")\n\t}\n}\n',
  };
  const GO_FIX = "printf 'package calc\\n\\nfunc Add(a, b int) int { return a + b }\\n' > calc/add.go";
  /** A Python repo whose calc package (code and its test) has the bug; tests/ passes. */
  const PYTHON_REPO = {
    'pyproject.toml': '[project]\nname = "calc"\nversion = "0.1.0"\n',
    'calc/__init__.py': 'def add(a, b):\n    return a - b\n',
    'calc/test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n',
    'tests/test_ok.py': 'def test_ok():\n    assert True\n',
  };
  const PYTHON_FIX = "printf 'def add(a, b):\\n    return a + b\\n' > calc/__init__.py";
  /**
   * Compiles a gutted copy of calc/test_calc.py of the same size and mtime with pytest (its
   * assertion rewriting caches the bytecode in __pycache__), then puts the test back as it was:
   * pytest then loads the cached bytecode for the unchanged test.
   */
  const FORGE_PYC = `env -u PYTHONDONTWRITEBYTECODE -u PYTHONPYCACHEPREFIX python3 - <<'PY'
import os, subprocess
src = 'calc/test_calc.py'
original = open(src).read()
st = os.stat(src)
gutted = 'def test_add():\\n    pass\\n'
gutted += '#' * (len(original.encode()) - len(gutted.encode()) - 1) + '\\n'
open(src, 'w').write(gutted)
os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
subprocess.run(['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', 'calc'], capture_output=True)
open(src, 'w').write(original)
os.utime(src, ns=(st.st_atime_ns, st.st_mtime_ns))
PY`;
  const unprotected = (name: string) => (k: Kept) => ({ ...k, protected: k.protected.filter((kept) => kept !== name) });
  const unfrozen = (name: string) => (k: Kept) => ({ ...k, frozen: k.frozen.filter((kept) => kept !== name) });
  /** init in a fresh repo of `files`; its checks as written, and the environment the runs get. */
  async function initAndAgents(files: Record<string, string>, cheat: string, fix: string) {
    const r = repo(files);
    const home = tempDir();
    const env = { GOCACHE: join(home, 'go-cache'), GOPATH: join(home, 'go'), GOFLAGS: '-mod=mod', PYTHONDONTWRITEBYTECODE: '1' };
    const init = await runCli(['init'], { cwd: r.dir, env });
    expect(init.code, init.stderr).toBe(0);
    const loaded = await loadSpec(join(r.dir, 'bestof.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const agents = tempDir();
    writeFileSync(join(agents, 'cheat.sh'), `#!/bin/sh\n${cheat}\n`, { mode: 0o755 });
    writeFileSync(join(agents, 'honest.sh'), `#!/bin/sh\n${fix}\n`, { mode: 0o755 });
    return { r, env, agents, checks: loaded.value.spec.checks };
  }

  /** A run of the cheater (c1: a tie goes to it but for a smaller diff) and the honest agent (c2) with these frozen, protected and checks. */
  async function race(
    setup: Awaited<ReturnType<typeof initAndAgents>>,
    k: Kept,
    items: readonly { name: string; command: string; score: number; report?: string | undefined }[],
  ): Promise<ReportJson> {
    const { r, env, agents } = setup;
    const spec = join(agents, 'spec.toml');
    writeFileSync(
      spec,
      [
        `repo = ${JSON.stringify(r.dir)}`,
        '[prompt]\ntext = "Make the tests pass."',
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(agents, 'cheat.sh'))}`,
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(agents, 'honest.sh'))}`,
        `[checks]\nfrozen = ${JSON.stringify(k.frozen)}\nprotected = ${JSON.stringify(k.protected)}${k.editable ? `\neditable = ${JSON.stringify(k.editable)}` : ''}`,
        ...items.map(
          (check) =>
            `[[checks.items]]\nname = ${JSON.stringify(check.name)}\ncommand = ${JSON.stringify(check.command)}\nscore = ${check.score}${check.report ? `\nreport = ${JSON.stringify(check.report)}` : ''}`,
        ),
        '[select]\nmerge = "none"',
        '',
      ].join('\n'),
    );
    const runs = join(r.dir, '.bestof', 'runs');
    const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
    const result = await runCli(['run', spec, '--no-tui'], { cwd: r.dir, worktreesDir: tempDir(), env });
    // The new run's folder (two runs in one second do not sort by their ids).
    const [runId] = readdirSync(runs).filter((id) => !before.has(id));
    const report = JSON.parse(readFileSync(join(runs, runId as string, 'report.json'), 'utf8')) as ReportJson;
    expect(report.candidates.length, result.stdout + result.stderr).toBe(2);
    return report;
  }
  const candidate = (report: ReportJson, id: string) => report.candidates.find((c) => c.id === id);

  it.each([
    {
      cheat: 'adds an empty file named `test` (make then finds its target up to date)',
      files: SIMPLE,
      fix: MAKE_FIX,
      script: ': > test',
      paths: ['test'],
      without: unprotected('test'),
    },
    {
      cheat: 'adds an empty file named as a target `test` depends on',
      files: { ...MAKE_REPO, Makefile: 'test: test-unit\n\ntest-unit:\n\tsh run-tests.sh\n' },
      fix: MAKE_FIX,
      script: ': > test-unit',
      paths: ['test-unit'],
      without: unprotected('test-unit'),
    },
    {
      cheat: 'rewrites the script the make recipe runs to `exit 0`',
      files: SIMPLE,
      fix: MAKE_FIX,
      script: "echo 'exit 0' > run-tests.sh",
      paths: ['run-tests.sh'],
      without: unfrozen('run-tests.sh'),
    },
    {
      cheat: "adds a go.mod in the failing package's folder (`go test ./...` then skips it)",
      files: GO_REPO,
      fix: GO_FIX,
      script: "printf 'module example.com/m/calc\\n\\ngo 1.19\\n' > calc/go.mod",
      paths: ['calc/go.mod'],
      without: unprotected('**/go.mod'),
    },
    // The marks of pytest 8 and later (pyvenv.cfg) and of pytest 7 (bin/activate), so that the cheat works with either.
    {
      cheat: "marks the failing tests' folder as a virtual environment (pytest never collects from one)",
      files: PYTHON_REPO,
      fix: PYTHON_FIX,
      script: ': > calc/pyvenv.cfg; mkdir -p calc/bin; : > calc/bin/activate',
      paths: ['calc/bin/activate', 'calc/pyvenv.cfg'],
      without: (k: Kept) => unprotected('**/bin/activate*')(unprotected('**/pyvenv.cfg')(k)),
    },
  ])(
    'a candidate that $cheat gains nothing with the checks init wrote',
    async ({ files, fix, script, paths, without }) => {
      const setup = await initAndAgents(files, script, fix);
      const { frozen, protected: kept, items } = setup.checks;
      expect(without({ frozen, protected: kept }), 'the name that holds it off is in the spec').not.toEqual({ frozen, protected: kept });

      const guarded = await race(setup, { frozen, protected: kept }, items);
      expect(guarded.winner).toBe('c2');
      expect(candidate(guarded, 'c2')?.score).toBe(100);
      expect(
        candidate(guarded, 'c1')
          ?.tamperedPaths.map((t) => t.path)
          .sort(),
      ).toEqual(paths);
      expect(candidate(guarded, 'c1')?.score).toBeLessThan(100);

      // Without that name, the cheat scores as the honest fix does, unflagged: with an `editable` that
      // covers every path, which exempts the test runners' files bestof keeps by itself too
      // (src/checks/runner-defaults.ts: a go.mod in a folder, a pyvenv.cfg).
      // The checks as exit codes only (init's pytest check also counts tests by name, which catches this
      // cheat by itself: below).
      const bare = items.map(({ report: _report, ...check }) => ({ ...check, command: check.command.replace(/ --junitxml="[^"]*"/, '') }));
      const open = await race(setup, { ...without({ frozen, protected: kept }), editable: ['**'] }, bare);
      expect(candidate(open, 'c1')).toMatchObject({ score: 100, tampered: false });
      expect(candidate(open, 'c2')).toMatchObject({ score: 100 });
      // Where init's test check has a report, the report alone holds it off: the tests the cheat keeps
      // pytest from collecting went missing.
      if (items.some((check) => check.report !== undefined)) {
        const reported = await race(setup, { ...without({ frozen, protected: kept }), editable: ['**'] }, items);
        expect(reported.winner).toBe('c2');
        expect(candidate(reported, 'c1')?.score).toBeLessThan(100);
      }
    },
    180_000,
  );

  // Not a name init writes: the checks' Python reads and writes its bytecode in the checks' own HOME
  // (PYTHONPYCACHEPREFIX, src/engine/scoring/score.ts), so a __pycache__ in the worktree is never loaded.
  // Committed bytecode is not a broken rule (an honest agent that ran pytest may commit some too): nothing is flagged.
  it('a candidate that commits the bytecode of a gutted copy of an unchanged test (pytest would load it from __pycache__) gains nothing', async () => {
    const setup = await initAndAgents(PYTHON_REPO, FORGE_PYC, PYTHON_FIX);
    const { frozen, protected: kept, items } = setup.checks;
    const guarded = await race(setup, { frozen, protected: kept }, items);
    expect(guarded.winner).toBe('c2');
    expect(candidate(guarded, 'c1')).toMatchObject({ score: 0, tampered: false });

    // A check that drops the variable loads the committed bytecode, and the bug passes.
    const open = await race(
      setup,
      { frozen, protected: kept },
      items.map((check) => ({ ...check, command: `env -u PYTHONPYCACHEPREFIX ${check.command}` })),
    );
    expect(candidate(open, 'c1')).toMatchObject({ score: 100, tampered: false });
  }, 180_000);

  // A frozen fixture compared byte for byte, and a program whose bug is its line endings.
  it("a candidate that adds a .gitattributes converting a frozen fixture's line endings (git then sees the changed file as unchanged) gains nothing and cannot win, whatever the spec names", async () => {
    const files = {
      Makefile: 'test:\n\tsh tests/check.sh\n',
      'prog.sh': "printf 'ok\\r\\n'\n",
      'tests/check.sh': 'sh prog.sh | cmp - tests/expected.txt\n',
      'tests/expected.txt': 'ok\n',
    };
    const cheat = "printf 'tests/expected.txt text eol=crlf\\n' > .gitattributes; printf 'ok\\r\\n' > tests/expected.txt";
    const setup = await initAndAgents(files, cheat, 'echo "printf \'ok\\\\n\'" > prog.sh');
    const { frozen, protected: kept, items } = setup.checks;
    // Not a name of init's: the run keeps every .gitattributes as in base (src/checks/frozen.ts GIT_ATTRIBUTES).
    expect(kept.join()).not.toContain('gitattributes');

    const guarded = await race(setup, { frozen, protected: kept }, items);
    expect(guarded.winner).toBe('c2');
    expect(candidate(guarded, 'c2')).toMatchObject({ score: 100, tampered: false });
    // Flagged, and its checks read the fixture as base's attributes write it: the CRLF bug fails.
    expect(candidate(guarded, 'c1')?.tamperedPaths.map((t) => t.path)).toEqual(['.gitattributes']);
    expect(candidate(guarded, 'c1')?.score).toBe(0);
  }, 180_000);
});
