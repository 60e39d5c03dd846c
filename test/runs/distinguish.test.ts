/**
 * Distinguishing tests end to end: the offline example (configs/examples/distinguish.toml) run by
 * the real binary in a temp repo. Three scripted candidates pass every check; the cheapest is
 * wrong on an even count, another on numbers of two digits. Without the step the cheapest wins
 * by cost; with it the right one wins, and the record says why. Then what the tester received,
 * read byte by byte; where its files went (nowhere but the run folder); kill -9 during the step.
 */
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli, startCli } from '../helpers/cli.js';
import { readEventLines } from '../helpers/run-record.js';
import { tempRepos, type TempRepo } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';

const { repo, tempDir } = tempRepos();
const EXAMPLE = 'configs/examples/distinguish.toml';

interface Report {
  winner: string | null;
  ranking: { candidate: string; eligible: boolean; costUsd: number }[];
}

interface State {
  selectionMessage?: string;
  picks?: { tie_break: string | null; distinguish?: string | null };
  distinguish?: {
    start?: { finalists: string[]; labels: { candidate: string; label: string }[] };
    call?: { tests: { id: string; file: string }[]; reused?: boolean };
    runs: { test: string; target: string; outcome: string }[];
    result?: { kept: string[]; order: string[]; decided: string };
    skipped?: string;
  };
}

/** A temp repo holding a copy of the configs (and `extra` files), committed. */
function exampleRepo(extra: Record<string, string> = {}): TempRepo {
  const r = repo();
  cpSync(join(PROJECT_ROOT, 'configs'), join(r.dir, 'configs'), { recursive: true });
  for (const [path, content] of Object.entries(extra)) {
    r.write(path, content);
    if (path.endsWith('.mjs')) chmodSync(join(r.dir, path), 0o755);
  }
  r.commitAll('add the example');
  return r;
}

/** The example's spec with some text replaced, written beside it (so its relative paths hold). */
function variant(replace: readonly [string | RegExp, string][]): string {
  let text = readFileSync(join(PROJECT_ROOT, EXAMPLE), 'utf8');
  for (const [from, to] of replace) {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`the example no longer has ${String(from)}`);
    text = next;
  }
  return text;
}

async function run(r: TempRepo, spec: string) {
  const worktreesDir = join(tempDir(), 'worktrees');
  const result = await runCli(['run', spec, '--no-tui'], { cwd: r.dir, worktreesDir });
  const runsDir = join(r.dir, '.bestof', 'runs');
  const runId = readdirSync(runsDir)[0] as string;
  const runDir = join(runsDir, runId);
  return {
    ...result,
    runId,
    runDir,
    worktreesDir,
    report: JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as Report,
    state: JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as State,
  };
}

describe('configs/examples/distinguish.toml: three candidates pass every check, the cheapest is wrong', () => {
  it('without the step the cheapest wins by cost; with it the right one wins, and the record says why', async () => {
    const without = await run(
      exampleRepo({ 'configs/examples/plain.toml': variant([[/^\[select\.distinguish\][\s\S]*$/m, '']]) }),
      'configs/examples/plain.toml',
    );
    expect(without.code).toBe(0);
    expect(without.report.winner).toBe('c1');
    expect(without.state.distinguish).toBeUndefined();

    const r = exampleRepo();
    const { code, report, state, stdout } = await run(r, EXAMPLE);
    expect(code).toBe(0);
    expect(report.winner).toBe('c2');
    expect(report.ranking.map((e) => e.candidate)).toEqual(['c2', 'c1', 'c3']);
    // The hand-worked matrix of the example's header.
    expect(state.distinguish?.start?.finalists).toEqual(['c1', 'c3', 'c2']);
    expect(state.distinguish?.call?.tests.map((t) => t.file)).toEqual([
      'broken.test.mjs',
      'even.test.mjs',
      'odd.test.mjs',
      'single.test.mjs',
      'two-digits.test.mjs',
    ]);
    expect(state.distinguish?.result?.kept).toEqual(['t2', 't3', 't4', 't5']);
    const cells = Object.fromEntries(
      ['c1', 'c2', 'c3', 'base'].map((target) => [
        target,
        ['t1', 't2', 't3', 't4', 't5'].map((t) => state.distinguish?.runs.find((x) => x.test === t && x.target === target)?.outcome[0]).join(''),
      ]),
    );
    expect(cells).toEqual({ c1: 'ffppp', c2: 'fpppp', c3: 'fpppf', base: 'fffff' });
    expect(state.distinguish?.result?.decided).toBe('c2 won: passed 4 of 4 distinguishing tests, c1 and c3 passed 3');
    expect(state.selectionMessage).toContain('c2 won: passed 4 of 4 distinguishing tests, c1 and c3 passed 3');
    expect(stdout).toContain('c2 won: passed 4 of 4 distinguishing tests');
    // The same candidates, picked by the tie-break alone: the cheap wrong one.
    expect(state.picks).toEqual({ tie_break: 'c1', distinguish: 'c2' });
  });
});

/** A tester that writes down everything it received (prompt, argv, environment, folder), then does the example tester's work. */
const DUMP_TESTER = `#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
const received = { argv: process.argv.slice(2), prompt: readFileSync(process.argv[2], 'utf8'), env: process.env, cwd: process.cwd() };
writeFileSync(join(process.env.BESTOF_TESTS_DIR, 'zz-received.json'), JSON.stringify(received));
await import(new URL('./tester.mjs', import.meta.url).href);
`;

describe('what the tester receives and where its files go', () => {
  it('names no candidate, provider, model, branch, run or path of the run; its files reach no candidate branch and no merge', async () => {
    const r = exampleRepo({
      'configs/examples/distinguish/dump-tester.mjs': DUMP_TESTER,
      'configs/examples/dump.toml': variant([
        ['command = "distinguish/tester.mjs"', 'command = "distinguish/dump-tester.mjs"'],
        ['merge = "branch"', 'merge = "merge"'],
      ]),
    });
    const { code, report, runDir, runId, worktreesDir } = await run(r, 'configs/examples/dump.toml');
    expect(code).toBe(0);
    expect(report.winner).toBe('c2');
    const bytes = readFileSync(join(runDir, 'distinguish', 'tests', 'zz-received.json'), 'utf8');
    const received = JSON.parse(bytes) as { prompt: string; env: Record<string, string>; cwd: string };
    // The diffs are there, under labels, with the task.
    expect(received.prompt).toContain('### Solution A');
    expect(received.prompt).toContain('### Solution C');
    expect(received.prompt).toContain('(a, b) => a - b');
    expect(received.prompt).toContain('Write `lib/median.mjs`');
    for (const forbidden of [runId, `bestof/${runId}`, r.dir, worktreesDir, runDir, 'writer-cheap', 'writer-right', 'writer-textsort', 'script:writer']) {
      expect(bytes).not.toContain(forbidden);
    }
    for (const id of ['c1', 'c2', 'c3']) expect(bytes).not.toMatch(new RegExp(`\\b${id}\\b`));
    expect(received.env.BESTOF_RUN).toBeUndefined();
    expect(received.env.BESTOF_CANDIDATE).toBeUndefined();
    expect(received.env.BESTOF_TESTS_DIR).toBe(join(received.cwd, 'bestof-tests'));
    // The tests never went into a commit: no candidate's branch, and not the merged winner.
    for (const c of ['c1', 'c2', 'c3']) {
      expect(r.git(...['ls-tree', '-r', '--name-only', `bestof/${runId}/${c}`])).not.toContain('bestof-tests');
    }
    expect(r.git(...['ls-tree', '-r', '--name-only', 'HEAD'])).not.toContain('bestof-tests');
    expect(r.git(...['ls-tree', '-r', '--name-only', 'HEAD'])).toContain('lib/median.mjs');
    expect(existsSync(join(r.dir, 'bestof-tests'))).toBe(false);
  });
});

/** The example's tester, then one slow test, so that the step can be killed while the tests run. */
const SLOW_TESTER = `#!/usr/bin/env node
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
await import(new URL('./tester.mjs', import.meta.url).href);
writeFileSync(join(process.env.BESTOF_TESTS_DIR, 'zz-slow.test.mjs'), "import { test } from 'node:test';\\ntest('slow', async () => { await new Promise((r) => setTimeout(r, 1500)); });\\n");
`;

describe('kill -9 during the distinguish step, then resume', () => {
  it('in the sandbox: the same winner, the tester not called again, the recorded runs not run again', async () => {
    const spec = variant([
      ['command = "distinguish/tester.mjs"', 'command = "distinguish/slow-tester.mjs"'],
      ['[parallel]\n', '[parallel]\nmax_concurrency = 1\n'],
    ]);
    const r = exampleRepo({
      'configs/examples/distinguish/slow-tester.mjs': SLOW_TESTER,
      'configs/examples/slow.toml': `${spec}\n[sandbox]\nmode = "required"\n`,
    });
    const worktreesDir = join(tempDir(), 'worktrees');
    const { child, done } = startCli(['run', 'configs/examples/slow.toml', '--no-tui'], { cwd: r.dir, worktreesDir });
    let ended: string | undefined;
    void done.then((res) => (ended = `exit ${res.code}\n${res.stdout}\n${res.stderr}`));
    const runsDir = join(r.dir, '.bestof', 'runs');
    const events = () =>
      existsSync(runsDir) && readdirSync(runsDir)[0] ? readEventLines(join(runsDir, readdirSync(runsDir)[0] as string, 'events.jsonl')) : [];
    await waitUntil(() => events().filter((e) => e.type === 'distinguish.run').length >= 3, 'three test runs recorded', { ended: () => ended });
    child.kill('SIGKILL');
    await done;
    const runId = readdirSync(runsDir)[0] as string;
    const before = events().filter((e) => e.type === 'distinguish.run').length;
    const resumed = await runCli(['resume', runId], { cwd: r.dir, worktreesDir });
    expect(resumed.code).toBe(0);
    const runDir = join(runsDir, runId);
    const all = readEventLines(join(runDir, 'events.jsonl'));
    const lastStart = all.map((e) => e.type).lastIndexOf('distinguish.started');
    const after = all.slice(lastStart) as unknown as { type: string; reused?: boolean; test?: string; target?: string }[];
    expect(after.find((e) => e.type === 'distinguish.tester')?.reused).toBe(true);
    const reusedRuns = after.filter((e) => e.type === 'distinguish.run' && e.reused);
    expect(reusedRuns.length).toBeGreaterThanOrEqual(before);
    // Every (test, target) once after the resume: 6 tests on 3 finalists and base.
    const cells = new Set(after.filter((e) => e.type === 'distinguish.run').map((e) => `${e.test} ${e.target}`));
    expect(cells.size).toBe(24);
    expect(after.filter((e) => e.type === 'distinguish.run')).toHaveLength(24);
    // One tester call in all: one artifacts folder.
    expect(readdirSync(join(runDir, 'distinguish')).filter((n) => n.startsWith('tester-'))).toEqual(['tester-1']);
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as Report;
    expect(report.winner).toBe('c2');
  });
});

/** The cheap writer, which also commits its own `bestof-tests/even.test.mjs`, a test that passes whatever median does. */
const SQUATTER = `${readFileSync(join(PROJECT_ROOT, 'configs/examples/distinguish/writer-cheap.toml'), 'utf8')}
[[steps]]
write = "bestof-tests/even.test.mjs"
content = "import { test } from 'node:test';\\ntest('even', () => {});\\n"
`;

describe('a cheater and the budget', () => {
  it('a candidate that commits files where the tests are laid gains nothing: its runs fail, the right one wins', async () => {
    const r = exampleRepo({
      'configs/examples/distinguish/squatter.toml': SQUATTER,
      'configs/examples/squat.toml': variant([['distinguish/writer-cheap.toml', 'distinguish/squatter.toml']]),
    });
    const { code, report, state } = await run(r, 'configs/examples/squat.toml');
    expect(code).toBe(0);
    expect(report.winner).toBe('c2');
    const c1 = state.distinguish?.runs.filter((x) => x.target === 'c1') ?? [];
    expect(c1).toHaveLength(5);
    expect(c1.every((x) => x.outcome === 'failed')).toBe(true);
    expect(state.distinguish?.result?.order).toEqual(['c2', 'c3', 'c1']);
  });

  it('a step the budget cannot pay for is skipped with the numbers, and the tie-break picks', async () => {
    const r = exampleRepo({ 'configs/examples/tight.toml': `${variant([])}\n[budget]\nmax_total_cost_usd = 0.09\n` });
    const { code, report, state } = await run(r, 'configs/examples/tight.toml');
    expect(code).toBe(0);
    expect(report.winner).toBe('c1');
    // $0.08 spent over three calls: about $0.03 a call, and $0.01 left.
    expect(state.distinguish?.skipped).toBe(
      "no distinguishing tests: the tester may cost about $0.03 (this run's cost per agent call), and [budget] max_total_cost_usd = $0.09 has $0.01 left; selection uses the tie-break. Raise max_total_cost_usd, or lower [select.distinguish] max_cost_usd",
    );
    expect(state.picks).toEqual({ tie_break: 'c1' });
  });
});

/** A writer of the example that also commits a test file of its own. */
function writerWithTest(writer: string, path: string, body: string): string {
  return `${readFileSync(join(PROJECT_ROOT, `configs/examples/distinguish/${writer}`), 'utf8')}
[[steps]]
write = "${path}"
content = """import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../lib/median.mjs';
${body}
"""
`;
}

describe('cross_tests: the finalists test each other', () => {
  it("runs each finalist's own new test on the others, never on its own; one only its author passes is dropped", async () => {
    const r = exampleRepo({
      // The cheap one pins its own mistake (the upper middle value); the right one pins the task.
      'configs/examples/distinguish/cheap-tested.toml': writerWithTest(
        'writer-cheap.toml',
        'test/upper.test.mjs',
        "test('upper', () => assert.equal(median([1, 2, 3, 4]), 3));",
      ),
      'configs/examples/distinguish/right-tested.toml': writerWithTest(
        'writer-right.toml',
        'test/even.test.mjs',
        "test('even', () => assert.equal(median([1, 2, 3, 4]), 2.5));",
      ),
      'configs/examples/cross.toml': variant([
        ['distinguish/writer-cheap.toml', 'distinguish/cheap-tested.toml'],
        ['distinguish/writer-right.toml', 'distinguish/right-tested.toml'],
        ['seed = "distinguish"', 'seed = "distinguish"\ncross_tests = true'],
      ]),
    });
    const { code, report, state } = await run(r, 'configs/examples/cross.toml');
    expect(code).toBe(0);
    expect(report.winner).toBe('c2');
    const cross = (state.distinguish as { cross?: { id: string; author: string; path: string }[] }).cross;
    expect(cross?.map((t) => [t.id, t.author, t.path])).toEqual([
      ['x1', 'c1', 'test/upper.test.mjs'],
      ['x2', 'c2', 'test/even.test.mjs'],
    ]);
    const cell = (test: string, target: string) => state.distinguish?.runs.find((x) => x.test === test && x.target === target)?.outcome;
    expect([cell('x1', 'c1'), cell('x1', 'c2'), cell('x1', 'c3')]).toEqual([undefined, 'failed', 'failed']);
    expect([cell('x2', 'c1'), cell('x2', 'c2'), cell('x2', 'c3')]).toEqual(['failed', undefined, 'passed']);
    expect(state.distinguish?.result?.kept).toEqual(['t2', 't3', 't4', 't5', 'x2']);
    // c2: 4 of the tester's and its own; c1 and c3 three each, c3 one more for passing c2's.
    expect(state.distinguish?.result?.decided).toBe('c2 won: passed 5 of 5 distinguishing tests, c3 passed 4, c1 passed 3');
  });
});

describe('a report kind for the generated tests', () => {
  it('with report = "tap", a failing run names its failing test in the tail, and the ranking is the same', async () => {
    const r = exampleRepo({
      'configs/examples/tap.toml': variant([['command = "node --test {file}"', 'command = "node --test --test-reporter=tap {file}"\nreport = "tap"']]),
    });
    const { code, report, state } = await run(r, 'configs/examples/tap.toml');
    expect(code).toBe(0);
    expect(report.winner).toBe('c2');
    expect(state.distinguish?.result?.decided).toBe('c2 won: passed 4 of 4 distinguishing tests, c1 and c3 passed 3');
    const even = state.distinguish?.runs.find((x) => x.test === 't2' && x.target === 'c1') as { outcome: string; tail?: string } | undefined;
    expect(even?.outcome).toBe('failed');
    // The report's words first: which test failed, by name.
    expect(even?.tail?.split('\n')[0]).toMatch(/even/);
  });
});
