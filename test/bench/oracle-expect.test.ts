/**
 * An oracle check with `expect` (runOracle, src/bench/oracle.ts): the tests it lists, read from the
 * check's report by the scoring's own parser, decide, not the exit code: every listed test in the
 * report and passed. A test missing from the report fails it (an early exit 0 never passes), and
 * so does a report that cannot be read. The JUnit report is written into `$BESTOF_REPORT_DIR`, a
 * folder outside the export, writable in the oracle's sandbox when bubblewrap works here.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runOracle } from '../../src/bench/oracle.js';
import { loadSpec } from '../../src/spec/load.js';
import { tempRepos } from '../helpers/temp-repo.js';

const { repo, tempDir } = tempRepos();

const TAP_HEAD = 'echo "TAP version 13"; echo "1..3"';
const junit = (cases: string) => `printf '%s' '<?xml version="1.0"?><testsuite name="s">${cases}</testsuite>' > "$BESTOF_REPORT_DIR/r.xml"\n`;

/** Each candidate's test scripts: `tap.sh` for the TAP oracle, `junit.sh` for the JUnit one. */
const CANDIDATES: Record<string, { tap: string; junit: string }> = {
  // The listed tests pass; another test fails and the runner exits 1: passes.
  c1: {
    tap: `${TAP_HEAD}; echo "ok 1 - a"; echo "ok 2 - b"; echo "not ok 3 - c"; exit 1\n`,
    junit: `${junit('<testcase name="j"/><testcase name="k"><failure message="no"/></testcase>')}exit 1\n`,
  },
  // A listed test fails, and the runner exits 0 all the same: fails, naming it.
  c2: { tap: `${TAP_HEAD}; echo "ok 1 - a"; echo "not ok 2 - b"; echo "ok 3 - c"\n`, junit: junit('<testcase name="j"/>') },
  // An early exit 0 after one test: fails, the other listed test missing.
  c3: { tap: `${TAP_HEAD}; echo "ok 1 - b"; exit 0\n`, junit: junit('<testcase name="j"/>') },
  // The TAP tests pass; the JUnit runner wrote no report: fails, saying so.
  c4: { tap: `${TAP_HEAD}; echo "ok 1 - a"; echo "ok 2 - b"; echo "ok 3 - c"\n`, junit: 'exit 0\n' },
  // An early exit 0 before any test ran: fails, nothing to read.
  c5: { tap: 'exit 0\n', junit: junit('<testcase name="j"/>') },
};

describe('runOracle with expect', () => {
  it('passes a candidate when every expected test is in the report and passed, whatever the exit code and the other tests', async () => {
    const r = repo({ 'README.md': '# t\n' });
    const base = r.git('rev-parse', 'HEAD').trim();
    for (const [id, scripts] of Object.entries(CANDIDATES)) {
      r.git('checkout', '-q', '--detach', base);
      r.write('tap.sh', scripts.tap);
      r.write('junit.sh', scripts.junit);
      r.git('update-ref', `refs/bestof/r1/${id}/kept`, r.commitAll(id));
    }
    const specDir = tempDir();
    mkdirSync(join(specDir, 'expected'));
    writeFileSync(join(specDir, 'expected', 'tap.json'), '{"tests": ["a", "b"]}\n');
    writeFileSync(join(specDir, 'expected', 'junit.json'), '{"tests": ["s > j"]}\n');
    writeFileSync(
      join(specDir, 't.toml'),
      '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n' +
        '[[checks.items]]\nname = "fix-tests"\ncommand = "sh tap.sh"\nkind = "oracle"\nreport = "tap"\nexpect = "expected/tap.json"\n' +
        '[[checks.items]]\nname = "junit-tests"\ncommand = "sh junit.sh"\nkind = "oracle"\nreport = "junit"\nexpect = "expected/junit.json"\n',
    );
    const loaded = await loadSpec(join(specDir, 't.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const verdicts = await runOracle({
      repo: r.dir,
      base,
      loaded: loaded.value,
      runId: 'r1',
      candidates: Object.keys(CANDIDATES).map((id) => ({ id, ref: `refs/bestof/r1/${id}/kept`, commit: null })),
      workDir: join(tempDir(), 'oracle'),
      env: process.env,
      signal: new AbortController().signal,
    });
    expect(verdicts.map((v) => [v.candidate, v.passed, v.why])).toEqual([
      ['c1', true, ''],
      ['c2', false, 'oracle check fix-tests: 1 of 2 expected tests failed or missing: b'],
      ['c3', false, 'oracle check fix-tests: 1 of 2 expected tests failed or missing: a'],
      ['c4', false, expect.stringMatching(/^oracle check junit-tests: its junit report could not be read \(missing: no \*\.xml file/)],
      ['c5', false, expect.stringMatching(/^oracle check fix-tests: its tap report could not be read \(missing: /)],
    ]);
  });

  it('an expect file that is not a list of names fails the check, saying so', async () => {
    const r = repo({ 'tap.sh': `${TAP_HEAD}; echo "ok 1 - a"\n` });
    const base = r.git('rev-parse', 'HEAD').trim();
    const specDir = tempDir();
    writeFileSync(join(specDir, 'e.json'), '{"tests": "a"}\n');
    writeFileSync(
      join(specDir, 't.toml'),
      '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n[[checks.items]]\nname = "o"\ncommand = "sh tap.sh"\nkind = "oracle"\nreport = "tap"\nexpect = "e.json"\n',
    );
    const loaded = await loadSpec(join(specDir, 't.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const [verdict] = await runOracle({
      repo: r.dir,
      base,
      loaded: loaded.value,
      runId: 'r1',
      candidates: [{ id: 'c1', ref: null, commit: base }],
      workDir: join(tempDir(), 'oracle'),
      env: process.env,
      signal: new AbortController().signal,
    });
    expect(verdict?.passed).toBe(false);
    expect(verdict?.why).toMatch(/^oracle check o did not run: its expected tests \(.*e\.json\) are not \{"tests": \["name", \.\.\.\]\}/);
  });
});
