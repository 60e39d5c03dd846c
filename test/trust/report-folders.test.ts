/**
 * Base's run of a report check is the reference every candidate is held to, and it runs while the
 * agents work: its `$BESTOF_REPORT_DIR` is `.bestof-reports/report-<n>` in the HOME of its scoring,
 * under `<worktrees>/<run>/.homes/`. An agent that wrote a JUnit file of its own there would add a
 * test to base's list that no honest candidate's report has: the honest one would lose its points
 * ("1 test went missing"). The spy here looks for every such folder beside its worktree, all the
 * time base's check runs, and writes a forged report into the first it finds.
 *
 * In the sandbox (`required`: never a run that fell back to none, where the spy would win) the
 * worktrees root is hidden from the agents: the spy finds nothing, base's tests are the two of the
 * test file, and the honest agent wins. Without the sandbox the same spy
 * reaches base's folder and the honest agent loses its points: a known gap, shown so that the first
 * case cannot pass by the spy merely missing its moment.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { makeTrustProject, readEvents, readTrustReport, safeGit, type TrustProject } from './harness.js';

const SPY = 'c1';
const HONEST = 'c2';

let project: TrustProject | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const hasPytest = (() => {
  try {
    execFileSync('python3', ['-c', 'import pytest'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

const FILES = {
  'calc.py': 'def add(a, b):\n    return a - b\n',
  'test_calc.py': 'from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(0, 0) == 0\n',
};

/**
 * The check sleeps first, so that base's report folder stands for seconds while the agents work
 * (a folder made for each check, removed as soon as it is read).
 */
const CHECK = 'sleep 4; PYTHONDONTWRITEBYTECODE=1 python3 -m pytest -q -p no:cacheprovider --junitxml=$BESTOF_REPORT_DIR/r.xml';

/**
 * The spy: for up to 20 s, every report folder of base's scoring beside its worktree
 * (`../.homes/reference-checks-*`, the worktree `reference` of src/engine/scoring/base-reference.ts)
 * gets a forged JUnit file with a test of its own; what it found is written to spy.txt, committed
 * with its work.
 */
const SPY_STEPS = `
[[steps]]
run = '''
for i in $(seq 200); do
  for dir in ../.homes/reference-checks-*/.bestof-reports/report-*; do
    if [ -d "$dir" ] && printf '<testsuites><testcase classname="forged" name="test_forged"/></testsuites>' > "$dir/forged.xml"; then
      echo "wrote $dir" > spy.txt
      exit 0
    fi
  done
  sleep 0.1
done
echo "found no report folder" > spy.txt
'''
`;

const HONEST_STEPS = `
[[steps]]
write = "calc.py"
content = "def add(a, b):\\n    return a + b\\n"
[[steps]]
sleep = "1s"
`;

function spec(p: TrustProject, sandbox: 'required' | 'off'): string {
  return `name = "report-folders"
repo = ${JSON.stringify(p.repo.dir)}

[prompt]
text = "Fix the bug so that the tests pass."

[loop]
max_iterations = 1

[sandbox]
mode = "${sandbox}"

[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(p.writeOutside('spy.toml', SPY_STEPS))}

[[parallel.providers]]
kind = "script"
script = ${JSON.stringify(p.writeOutside('honest.toml', HONEST_STEPS))}

[checks]
frozen = ["test_calc.py"]

[[checks.items]]
name = "tests"
command = ${JSON.stringify(CHECK)}
score = 10
timeout = "120s"
report = "junit"

[select]
merge = "none"
`;
}

async function run(sandbox: 'required' | 'off'): Promise<{ result: CliResult; spy: string; baseTests: unknown }> {
  const p = makeTrustProject();
  project = p;
  // Only the Python code's tests: the JS library's Python test would be collected too.
  p.repo.git('rm', '-rq', 'src', 'test', 'package.json');
  for (const [path, content] of Object.entries(FILES)) p.repo.write(path, content);
  p.repo.commitAll('the Python code');
  const result = await runCli(['run', p.writeOutside('spec.toml', spec(p, sandbox))], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: p.env });
  const spyCommit = readTrustReport(p).candidates.find((c) => c.id === SPY)?.commit;
  const spy = spyCommit ? safeGit(p.repo.dir, ['show', `${spyCommit}:spy.txt`]) : '(no commit)';
  const baseTests = readEvents(p).find((e) => e.type === 'reference.finished')?.checks;
  return { result, spy, baseTests };
}

function output(result: CliResult): string {
  return `exit ${result.code}\n--- stdout\n${result.stdout.slice(-4000)}\n--- stderr\n${result.stderr.slice(-4000)}`;
}

describe("base's report folder, while base's check runs beside the agents", () => {
  if (!hasPytest) {
    it.skip('(skipped: python3 with pytest is not installed)', () => {});
    return;
  }

  it('[sandbox required] an agent finds no report folder to forge: base holds its two tests and the honest agent wins', async () => {
    const { result, spy, baseTests } = await run('required');
    expect(result.code, output(result)).toBe(0);
    expect(spy, output(result)).toBe('found no report folder');
    expect(baseTests).toEqual([{ name: 'tests', tests: 2, failing: 1 }]);
    const report = readTrustReport(project as TrustProject);
    expect(report.winner, JSON.stringify(report.ranking)).toBe(HONEST);
    expect(report.ranking.find((r) => r.candidate === HONEST)?.score).toBe(10);
  });

  it('[sandbox off: a known gap] the same agent writes a test into base\'s report, and the honest agent loses its points ("1 test went missing")', async () => {
    const { result, spy, baseTests } = await run('off');
    expect(spy, output(result)).toMatch(/^wrote \.\.\/\.homes\/reference-checks-[^/]+\/\.bestof-reports\/report-0$/);
    expect(baseTests).toEqual([{ name: 'tests', tests: 3, failing: 1 }]);
    const honestCheck = readEvents(project as TrustProject)
      .filter((e) => e.type === 'check.finished' && e.candidate === HONEST)
      .at(-1) as { check?: { report?: { failure?: string } } } | undefined;
    expect(honestCheck?.check?.report?.failure).toBe('1 test went missing');
    expect(readTrustReport(project as TrustProject).ranking.find((r) => r.candidate === HONEST)?.score).toBe(0);
  });
});
