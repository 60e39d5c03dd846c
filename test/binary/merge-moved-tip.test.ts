/**
 * A merge into a branch that moved past `base` since the run started (another run merged into it,
 * the user committed): the merge's result is scored in a worktree of bestof's own first, and the
 * branch moves only when it keeps every check the winner passed (src/engine/merge/merge-check.ts).
 * Through the real binary and real git. A run whose `base` is the sha the branch was at before the
 * other run's merge (or the user's commit) is what a run started then finds at its end.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIX_SCRIPT, makeProject, type Project } from '../helpers/project.js';
import { readEventLines, type EventLine, type ReportJson } from '../helpers/run-record.js';

let project: Project;
afterEach(() => project?.cleanup());

/** The project's tests, and a second check that only a src/sub.mjs passes: two runs can each pass one. */
const CHECKS = `
[checks]
frozen = ["test/**", "scripts/check.sh"]

[[checks.items]]
name = "tests"
command = "scripts/check.sh"
score = 10
timeout = "60s"

[[checks.items]]
name = "sub"
command = "test -f src/sub.mjs"
score = 10
timeout = "60s"
`;

const SUB_SCRIPT = `
[[steps]]
write = "src/sub.mjs"
content = "export const sub = (a, b) => a - b;\\n"
`;

interface RunOutcome {
  readonly code: number | null;
  readonly stdout: string;
  readonly runId: string;
  readonly events: EventLine[];
  readonly report: ReportJson;
}

/** One run of one script candidate from `base` (a sha), merged into the checked-out main. */
async function runFrom(base: string, name: string, script: string): Promise<RunOutcome> {
  const agent = project.writeOutside(`${name}.toml`, script);
  const spec = project.writeOutside(
    `${name}-spec.toml`,
    `name = "${name}"\nrepo = ${JSON.stringify(project.repo.dir)}\nbase = "${base}"\n\n[prompt]\ntext = "Make the tests pass."\n\n` +
      `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(agent)}\n${CHECKS}\n[select]\nmerge = "merge"\n`,
  );
  const runsDir = join(project.repo.dir, '.bestof', 'runs');
  const before = new Set(existsSync(runsDir) ? readdirSync(runsDir) : []);
  const result = await runCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  const runId = readdirSync(runsDir).find((id) => !before.has(id)) as string;
  return {
    code: result.code,
    stdout: result.stdout + result.stderr,
    runId,
    events: readEventLines(join(runsDir, runId, 'events.jsonl')),
    report: JSON.parse(readFileSync(join(runsDir, runId, 'report.json'), 'utf8')) as ReportJson,
  };
}

const mergeFinished = (run: RunOutcome): EventLine => run.events.find((e) => e.type === 'merge.finished') as EventLine;

/** Nothing of the check's worktree is left: not the folder, not its branch, not its git admin entry. */
function expectNoCheckerLeft(run: RunOutcome): void {
  expect(existsSync(join(project.worktreesDir, run.runId, 'merge-check'))).toBe(false);
  expect(project.repo.git('branch', '--list', `bestof/${run.runId}/merge-check`)).toBe('');
  expect(project.repo.git('worktree', 'list')).not.toContain('merge-check');
}

describe('a merge into a branch that moved past base', () => {
  it('two runs from one base: the second merge is checked on the tip the first moved, and lands when it passes', async () => {
    project = makeProject();
    const base = project.repo.git('rev-parse', 'HEAD');
    const first = await runFrom(base, 'first', FIX_SCRIPT);
    expect(first.code, first.stdout).toBe(0);
    expect(mergeFinished(first)).toMatchObject({ ok: true, onto: { tip: base, commitsPastBase: 0 } });
    expect(mergeFinished(first).onto).not.toHaveProperty('checked');
    const afterFirst = project.repo.git('rev-parse', 'main');

    // The second run started from the same base: its winner (sub only, 10/20) never saw the first's fix.
    const second = await runFrom(base, 'second', SUB_SCRIPT);
    expect(second.code, second.stdout).toBe(0);
    expect(second.report.candidates[0]?.score).toBe(10);
    expect(second.stdout).toContain('main had moved 2 commits past base since the run started: the merge was checked on the new tip: 20/20');
    const finished = mergeFinished(second);
    expect(finished).toMatchObject({
      ok: true,
      onto: { tip: afterFirst, commitsPastBase: 2, checked: { score: 20, maxScore: 20, failedChecks: [], lost: [] } },
    });
    // main moved by the merge onto the first run's merge; both changes are on it, the checkout clean.
    expect(project.repo.git('rev-parse', 'main^1')).toBe(afterFirst);
    expect(project.repo.git('show', 'main:src/add.mjs')).toContain('a + b');
    expect(project.repo.git('show', 'main:src/sub.mjs')).toContain('a - b');
    expect(project.repo.git('status', '--porcelain')).toBe('');
    // The check's own scoring is in its own folder of the run, not in the candidate's record.
    expect(existsSync(join(project.repo.dir, '.bestof', 'runs', second.runId, 'merge-check', 'checks'))).toBe(true);
    expect(second.events.filter((e) => e.type === 'check.finished')).toHaveLength(2);
    expectNoCheckerLeft(second);
  });

  it("a user commit after base that, with the winner's fix, fails a check it passed: main is not moved, exit 3, the branch kept", async () => {
    project = makeProject();
    // add() is to use toNumber() of src/num.mjs; the user renames it after base, in another file than
    // the one the winner changes: no conflict for git, a broken import for node.
    project.repo.write('src/num.mjs', 'export const toNumber = (x) => Number(x);\n');
    const base = project.repo.commitAll('num');
    project.repo.write('src/num.mjs', 'export const asNumber = (x) => Number(x);\n');
    const userCommit = project.repo.commitAll('rename toNumber to asNumber');
    const fix = `
[[steps]]
write = "src/add.mjs"
content = "import { toNumber } from './num.mjs';\\nexport const add = (a, b) => toNumber(a) + toNumber(b);\\n"
`;
    const run = await runFrom(base, 'fix', fix);
    expect(run.code, run.stdout).toBe(3);
    expect(run.stdout).toContain(
      'main had moved 1 commit past base since the run started: the merge onto the new tip fails tests (which c1 passed), so main was not moved',
    );
    expect(run.stdout).toContain(`merge it by hand with \`git merge bestof/${run.runId}/c1\``);
    const finished = mergeFinished(run);
    expect(finished).toMatchObject({
      ok: false,
      onto: { tip: userCommit, commitsPastBase: 1, checked: { score: 0, failedChecks: ['tests', 'sub'], lost: ['tests'] } },
    });
    expect(run.report.merge?.ok).toBe(false);
    // main, the checkout and the winner's branch and kept ref are as they were.
    expect(project.repo.git('rev-parse', 'main')).toBe(userCommit);
    expect(project.repo.git('status', '--porcelain')).toBe('');
    const winner = run.report.candidates[0];
    expect(project.repo.git('rev-parse', winner?.branch as string)).toBe(winner?.commit);
    expect(project.repo.git('rev-parse', winner?.ref as string)).toBe(winner?.commit);
    expectNoCheckerLeft(run);
  });

  it('a branch that did not move: merged as before, no check of the merge is run', async () => {
    project = makeProject();
    const base = project.repo.git('rev-parse', 'HEAD');
    const run = await runFrom(base, 'plain', FIX_SCRIPT);
    expect(run.code, run.stdout).toBe(0);
    const finished = mergeFinished(run);
    expect(finished).toMatchObject({ ok: true, onto: { tip: base, commitsPastBase: 0 } });
    expect(finished.onto).not.toHaveProperty('checked');
    expect(run.stdout).not.toContain('had moved');
    // The candidate's own two checks, and nothing more.
    expect(run.events.filter((e) => e.type === 'check.finished').map((e) => e.candidate)).toEqual(['c1', 'c1']);
    expect(existsSync(join(project.repo.dir, '.bestof', 'runs', run.runId, 'merge-check'))).toBe(false);
    expect(project.repo.git('rev-parse', 'main^1')).toBe(base);
  });
});
