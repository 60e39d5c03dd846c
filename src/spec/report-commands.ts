/**
 * The commands `bestof init` writes for a test check that reads the runner's own report (the
 * check's `report` key), by runner. Kept apart from ./repo-probe.ts, which finds what a repo has.
 */
/**
 * The test commands init writes with a machine report, so that a run counts tests by name (an early
 * exit or a run of no test fails; see docs/checks.md). Only where the runner writes the report by
 * itself: pytest's `--junitxml`, `go test -json`, vitest's junit reporter, and node's, given through
 * NODE_OPTIONS because `npm test -- <options>` would put them after the script's file arguments,
 * where `node --test` reads them as files. jest (jest-junit), cargo (its JSON is unstable) and make
 * need something the repo may not have: their checks stay exit codes.
 */
export const REPORTING_COMMANDS = {
  pytest: 'python3 -m pytest -q --junitxml="$BESTOF_REPORT_DIR/pytest.xml"',
  goTest: 'go test -json ./...',
  nodeTest:
    'NODE_OPTIONS="--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=$BESTOF_REPORT_DIR/node-test.xml" npm test',
  // vitest reads options anywhere on its command line, after file filters too.
  vitest: 'npm test -- --reporter=default --reporter=junit --outputFile.junit="$BESTOF_REPORT_DIR/vitest.xml"',
} as const;

/** A `test` script that is one `node --test` and nothing else (no `&&`, `;` or pipe that would run a second program). */
const PLAIN_NODE_TEST = /^node\s+--test(\s[^;&|`$()]*)?$/;
/** A `test` script that is one `vitest` run (`vitest`, `vitest run`, with options or filters) and nothing else. */
const PLAIN_VITEST = /^(npx\s+)?vitest(\s[^;&|`$()]*)?$/;

/** The runner a package.json `test` script is, where init can have it write its report: one node --test or one vitest run, nothing chained. */
export function reportingNpmTest(script: string): 'nodeTest' | 'vitest' | undefined {
  const plain = script.trim();
  if (PLAIN_NODE_TEST.test(plain)) return 'nodeTest';
  return PLAIN_VITEST.test(plain) ? 'vitest' : undefined;
}
