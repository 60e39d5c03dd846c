/**
 * Checks that count tests by name (`report`): the check runs on base as the run starts, beside the
 * agents, and a candidate's report is held to base's tests (src/engine/scoring/base-reference.ts,
 * src/checks/test-report/judge.ts). Real node --test with its JUnit reporter, real runs of the
 * built binary with scripted agents.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../helpers/cli.js';
import { FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';

let project: Project | undefined;
afterEach(() => project?.cleanup());

const JUNIT = 'node --test --test-reporter=junit --test-reporter-destination=$BESTOF_REPORT_DIR/junit.xml test/*.test.mjs';

/** The adversary: its code ends the test process with success as it loads, so no test runs. */
const EARLY_EXIT = `
[[steps]]
write = "src/add.mjs"
content = "process.exit(0);\\nexport const add = (a, b) => 0;\\n"
`;

interface Event {
  readonly type: string;
  readonly t: string;
  readonly [key: string]: unknown;
}

function checksBody(check: string, agents: readonly string[]): string {
  const providers = agents.map((script) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(script)}\n`).join('\n');
  return `${providers}
[loop]
max_iterations = 1

[checks]
frozen = ["test/**"]

[[checks.items]]
name = "tests"
command = ${JSON.stringify(check)}
score = 10
timeout = "60s"
${check.includes('--test-reporter=junit') ? 'report = "junit"\n' : ''}
[select]
merge = "none"
tie_break = ["score", "duration"]
`;
}

async function run(
  p: Project,
  check: string,
  agents: Record<string, string>,
): Promise<{ code: number | null; output: string; runDir: string; events: Event[] }> {
  const scripts = Object.entries(agents).map(([name, text]) => p.writeOutside(`${name}.toml`, text));
  const spec = p.writeOutside('spec.toml', specToml(p.repo.dir, checksBody(check, scripts)));
  const result = await runCli(['run', spec], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
  const runs = join(p.repo.dir, '.bestof', 'runs');
  const newest = readdirSync(runs).sort().at(-1) as string;
  const runDir = join(runs, newest);
  const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Event);
  return { code: result.code, output: result.stdout + result.stderr, runDir, events };
}

/** Every file's text under `dir`, joined (a run folder's logs). */
function textUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'))
    .join('\n');
}

function report(runDir: string): { winner: string | null; ranking: { candidate: string; score: number }[] } {
  return JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8'));
}

describe('a check with a test report', () => {
  it('an agent whose code exits 0 as it loads passes the bare check, and scores 0 with a report: its tests went missing; the honest one wins', async () => {
    project = makeProject();
    // Without `report`: node --test says success, and the cheat ties with the honest fix (and wins the tie: it is faster).
    const bare = await run(project, 'node --test test/*.test.mjs', { cheat: EARLY_EXIT, honest: `${FIX_SCRIPT}\n[[steps]]\nsleep = "2s"\n` });
    expect(report(bare.runDir).ranking.find((r) => r.candidate === 'c1')?.score, bare.output).toBe(10);
    expect(report(bare.runDir).winner).toBe('c1');

    const withReport = await run(project, JUNIT, { cheat: EARLY_EXIT, honest: `${FIX_SCRIPT}\n[[steps]]\nsleep = "2s"\n` });
    const ranking = report(withReport.runDir).ranking;
    expect(ranking.find((r) => r.candidate === 'c1')?.score, withReport.output).toBe(0);
    expect(report(withReport.runDir).winner).toBe('c2');
    const cheatCheck = withReport.events.find((e) => e.type === 'check.finished' && e.candidate === 'c1') as
      | { check: { report?: { failure?: string } } }
      | undefined;
    expect(cheatCheck?.check.report?.failure).toBe('1 test went missing');
  });

  it("runs the check on base beside the agents, and caches base's tests for the next run", async () => {
    project = makeProject();
    // The check sleeps so that base's run lasts: it overlaps the agents, which sleep longer.
    // It also prints who it runs as: base's run is a candidate 0 of its own (no agent's $PORT or index).
    const slow = `sleep 1; echo "runs as $BESTOF_CANDIDATE $BESTOF_INDEX $PORT"; ${JUNIT}`;
    const agents = { a: `${FIX_SCRIPT}\n[[steps]]\nsleep = "4s"\n` };
    const first = await run(project, slow, agents);
    expect(first.code, first.output).toBe(0);
    const started = first.events.find((e) => e.type === 'reference.started');
    const finished = first.events.find((e) => e.type === 'reference.finished') as Event & {
      cached: boolean;
      checks: { name: string; tests: number; failing: number }[];
    };
    expect(finished?.cached).toBe(false);
    expect(finished?.checks).toEqual([{ name: 'tests', tests: 1, failing: 1 }]);
    const agentRunning = first.events.find((e) => e.type === 'candidate.status' && e.status === 'running');
    const agentDone = first.events.find((e) => e.type === 'provider.finished');
    // Base's run and the agent's call overlap: each began before the other ended.
    expect(Date.parse(started!.t)).toBeLessThan(Date.parse(agentDone!.t));
    expect(Date.parse(agentRunning!.t)).toBeLessThan(Date.parse(finished.t));
    expect(textUnder(join(first.runDir, 'reference'))).toContain('runs as reference 0 4100');
    expect(textUnder(join(first.runDir, 'candidates', 'c1'))).toContain('runs as c1 1 4101');

    const second = await run(project, slow, agents);
    const again = second.events.find((e) => e.type === 'reference.finished') as Event & { cached: boolean; checks: unknown };
    expect(again.cached, second.output).toBe(true);
    expect(again.checks).toEqual(finished.checks);
    expect(existsSync(join(second.runDir, 'reference'))).toBe(false); // nothing ran on base this time
  });

  it('a check whose run on base writes no report stops the run with exit 2, the fix and the output', async () => {
    project = makeProject();
    const body = checksBody('node --test test/*.test.mjs', [project.writeOutside('a.toml', `${FIX_SCRIPT}\n[[steps]]\nsleep = "3s"\n`)]).replace(
      'timeout = "60s"',
      'timeout = "60s"\nreport = "junit"',
    );
    const result = await runCli(['run', project.writeOutside('spec.toml', specToml(project.repo.dir, body))], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
    });
    const output = result.stdout + result.stderr;
    expect(result.code, output).toBe(2);
    expect(output).toMatch(/check tests \(report = "junit"\) left nothing to hold the candidates to when it ran on base: no test report/);
    expect(output).toContain('$BESTOF_REPORT_DIR');
    expect(output).toMatch(/not ok 1 - adds|adds/); // the runner's own output tail
  });
});

describe('partial credit', () => {
  /** 50 tests of double(i); base's double returns 0, so only double(0) passes there. */
  const FIFTY = [
    "import { test } from 'node:test';",
    "import assert from 'node:assert/strict';",
    "import { double } from '../src/double.mjs';",
    'for (let i = 0; i < 50; i++) test(`double ${i}`, () => assert.equal(double(i), 2 * i));',
    '',
  ].join('\n');
  /** A double() right but for the inputs listed. */
  const doubleWrongFor = (wrong: number[]) => `
[[steps]]
write = "src/double.mjs"
content = "const wrong = new Set(${JSON.stringify(wrong)});\\nexport const double = (i) => (wrong.has(i) ? -1 : 2 * i);\\n"
`;

  it('48 of 50 ranks above 45 of 50, each scored by its share, and the retry prompt names the tests still failing', async () => {
    project = makeProject();
    project.repo.write('test/double.test.mjs', FIFTY);
    project.repo.write('src/double.mjs', 'export const double = () => 0;\n');
    project.repo.git('rm', '-q', 'test/add.test.mjs');
    project.repo.commitAll('fifty tests');
    const body = checksBody(JUNIT, [
      project.writeOutside('close.toml', doubleWrongFor([7, 9])),
      project.writeOutside('far.toml', doubleWrongFor([1, 2, 3, 4, 5])),
    ])
      .replace('max_iterations = 1', 'max_iterations = 2')
      .replace('report = "junit"', 'report = "junit"\npartial = true');
    const result = await runCli(['run', project.writeOutside('spec.toml', specToml(project.repo.dir, body))], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
    });
    const output = result.stdout + result.stderr;
    const runs = join(project.repo.dir, '.bestof', 'runs');
    const runDir = join(runs, readdirSync(runs)[0] as string);
    const ranking = report(runDir).ranking;
    expect(
      ranking.map((r) => [r.candidate, r.score]),
      output,
    ).toEqual([
      ['c1', 9.6],
      ['c2', 9],
    ]);
    // Neither passed: the second iteration's prompt says what is left, by name.
    const prompt = readFileSync(join(runDir, 'candidates', 'c1', 'iteration-2', 'prompt.md'), 'utf8');
    expect(prompt).toContain('48 of 50 tests pass. Still to pass:');
    expect(prompt).toContain('- double 7 (failed)');
    expect(prompt).toContain('- double 9 (failed)');
    expect(prompt).not.toContain('double 8 (');
  });
});
