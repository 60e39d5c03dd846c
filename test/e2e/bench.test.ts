/**
 * The end-to-end tier's bench: the real `bestof bench` (bin/bestof.js over dist/) runs a matrix of
 * 1 task x the three real CLIs (Claude Code, Codex, Gemini CLI at their pinned versions) x 2
 * trials, 3 trials at a time, against the fake model server. Each trial is a real `bestof run`
 * child in the bench's repo of the task, with the agent's table as its only provider: the same
 * table a `[[parallel.providers]]` entry of real-clis.test.ts gives (the pinned binary, its own
 * HOME, isolate_config, the fake server's URL and key).
 *
 * The pattern, and why it can be scripted: the server cannot tell two trials of one agent apart
 * (their worktrees are named by run ids it cannot foresee), so each API does one thing for the
 * whole bench. Claude writes the fix (both trials resolved). Codex writes a fix that passes the
 * fail-to-pass test but breaks the pass-to-pass one (scored, never resolved). Gemini writes the
 * fix, but the first of its main requests gets a 401: the trial that sent it ends `auth_error`,
 * an infra failure left out of the rates, and the other trial is resolved. Which of the two
 * trials reaches the server first is a race between two CLIs starting, so the test finds it from
 * the server's log (the 401's working directory is in that trial's run's worktree) rather than
 * assuming it.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BenchFile, TrialRecord } from '../../src/bench/types.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { API, CLIS, namespaceInterfaces, pinnedClis, processesIn, providerTable, tomlTable, type Cli } from './e2e-helpers.js';
import { editScript, startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const CORRECT = 'export const add = (a, b) => a + b;\n';
/** Fixes the fail-to-pass test, and breaks the pass-to-pass one (the sign of a negative sum). */
const PARTIAL = 'export const add = (a, b) => Math.abs(a) + Math.abs(b);\n';

/** The task's folder: add() subtracts, so "adds" fails; "keeps the sign" passes already (-4 - 0). */
const TASK_FILES: Record<string, string> = {
  'src/add.mjs': 'export const add = (a, b) => a - b;\n',
  'test/add.test.mjs':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
  'test/sign.test.mjs':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('keeps the sign', () => assert.equal(add(-4, 0), -4));\n",
  'README.md': '# e2e bench task\n',
};

const TASK_SPEC = [
  '[prompt]\ntext = "Fix add() in src/add.mjs so that the tests pass."',
  '[checks]\nfrozen = ["test/**"]',
  '[[checks.items]]\nname = "adds"\ncommand = "node --test test/add.test.mjs"\nkind = "fail_to_pass"\nscore = 10\ntimeout = "60s"',
  '[[checks.items]]\nname = "keeps the sign"\ncommand = "node --test test/sign.test.mjs"\nkind = "pass_to_pass"\nscore = 5\ntimeout = "60s"',
].join('\n\n');

let clis: Record<Cli, string>;
let server: FakeModelServer;
let dir: string;

beforeAll(async () => {
  clis = pinnedClis();
  server = await startFakeModelServer();
  const interfaces = namespaceInterfaces();
  if (interfaces) expect(interfaces).toEqual(['lo']);
});
afterAll(async () => {
  await server?.close();
  if (dir && !process.env.KEEP_TEST_DIRS) rmSync(dir, { recursive: true, force: true });
});

/** The bench folder: the task's folder and run spec, and bench.toml with one agent per CLI. */
function makeBench(): void {
  dir = makeTempDir('bestof-e2e-bench-');
  for (const [path, content] of Object.entries(TASK_FILES)) {
    mkdirSync(dirname(join(dir, 'task', path)), { recursive: true });
    writeFileSync(join(dir, 'task', path), content);
  }
  writeFileSync(join(dir, 'task.toml'), TASK_SPEC);
  // Each agent's HOME is made outside the task (in `homes/`), as for a candidate of real-clis.test.ts.
  const context = { clis, serverUrl: server.url, outside: join(dir, 'homes') };
  writeFileSync(
    join(dir, 'bench.toml'),
    [
      'name = "e2e"',
      'trials = 2',
      'max_concurrency = 3',
      '[[tasks]]\nid = "add"\nspec = "task.toml"\nfolder = "task"\nbar = 0.5\n',
      ...CLIS.map((cli) => tomlTable('[[agents]]', { id: cli, ...providerTable(cli, context) })),
    ].join('\n'),
  );
}

/** The version in the pinned binary's path (`.cache/e2e-clis/<name>-<version>/...`). */
function pinnedVersion(cli: Cli): string | undefined {
  return new RegExp(`/${cli}-(\\d+\\.\\d+\\.\\d+)/`).exec(clis[cli])?.[1];
}

/** A trial's run folder, where its report and event log are. */
function runDir(record: TrialRecord): string {
  return join(dir, 'out', 'repos', 'add', '.bestof', 'runs', record.runId);
}

describe('bestof bench with the real Claude Code, Codex and Gemini CLI', () => {
  it('runs 1 task x 3 CLIs x 2 trials: rates, CLI versions, tokens and cost, an infra failure apart, and the JUnit cases', async () => {
    makeBench();
    server.requests.length = 0;
    server.script(API.claude, editScript('src/add.mjs', CORRECT));
    server.script(API.codex, editScript('src/add.mjs', PARTIAL));
    server.script(API.gemini, { ...editScript('src/add.mjs', CORRECT), failFirst: { status: 401, count: 1 } });

    const worktrees = join(dir, 'worktrees');
    const result = await runCli(['bench', 'bench.toml', '--out', 'out', '--json'], { cwd: dir, worktreesDir: worktrees });
    expect(result.code, result.stderr).toBe(0);
    const file = JSON.parse(result.stdout) as BenchFile;
    expect(JSON.parse(readFileSync(join(dir, 'out', 'bench.json'), 'utf8'))).toEqual(file);
    const records = file.records;

    // Six records in matrix order, each a run of its own.
    expect(records.map((r) => `${r.task}/${r.agent}#${r.trial}`)).toEqual([
      'add/claude#1',
      'add/claude#2',
      'add/codex#1',
      'add/codex#2',
      'add/gemini#1',
      'add/gemini#2',
    ]);
    expect(new Set(records.map((r) => r.runId)).size).toBe(6);
    expect(records.map((r) => [r.kind, r.model])).toEqual([
      ['claude', null],
      ['claude', null],
      ['codex', 'gpt-5'],
      ['codex', 'gpt-5'],
      ['gemini', 'gemini-2.5-flash'],
      ['gemini', 'gemini-2.5-flash'],
    ]);
    // Every CLI started, and said its pinned version.
    for (const r of records) {
      // bestof asks `<cli> --version` once per run, within 15 s: a null here is that call lost (see candidate.provider in the trial's events.jsonl).
      expect(r.cliVersion, `${r.agent}#${r.trial}: no CLI version (run ${r.runId})`).toEqual(expect.any(String));
      const pinned = pinnedVersion(r.agent as Cli);
      if (pinned) expect(r.cliVersion, `${r.agent}#${r.trial}`).toContain(pinned);
    }

    // Gemini: the trial whose request got the 401 is the infra failure; the other one resolved.
    const refused = server.requests.filter((q) => q.api === 'gemini' && q.answer === 'error 401');
    expect(refused).toHaveLength(1);
    const gemini = records.filter((r) => r.agent === 'gemini');
    const infra = gemini.find((r) => refused[0]?.cwd?.startsWith(`${join(worktrees, r.runId)}/`));
    expect(infra, `the 401 went to ${refused[0]?.cwd}, in no gemini trial's worktree`).toBeDefined();
    expect(infra).toMatchObject({
      infra: true,
      resolved: false,
      outcome: { reason: 'auth_error' },
      infraReason: expect.stringMatching(/^auth_error: Gemini CLI cannot authenticate: .*API key not valid/),
    });
    const geminiOk = gemini.find((r) => r !== infra)!;

    // Resolved: claude both, codex none (its fix breaks the pass-to-pass check: scored 10 of 15), gemini the one that ran.
    const pattern = (r: TrialRecord) => [r.infra ? 'infra' : r.resolved ? 'resolved' : 'unresolved', r.score, r.maxScore];
    expect(records.filter((r) => r.agent !== 'gemini').map(pattern)).toEqual([
      ['resolved', 15, 15],
      ['resolved', 15, 15],
      ['unresolved', 10, 15],
      ['unresolved', 10, 15],
    ]);
    expect(pattern(geminiOk)).toEqual(['resolved', 15, 15]);
    for (const r of records.filter((r) => !r.infra)) {
      expect(r.infraReason).toBeNull();
      expect(r.outcome.status, `${r.agent}#${r.trial}`).toMatch(/^(winner|no_winner)$/);
      expect(r.tokens.input, `${r.agent}#${r.trial}`).toBeGreaterThan(0);
      expect(r.tokens.output, `${r.agent}#${r.trial}`).toBeGreaterThan(0);
      expect(r.costUsd, `${r.agent}#${r.trial}`).toBeGreaterThan(0);
    }

    // Each CLI worked only in the worktrees of its own trials' runs.
    for (const cli of CLIS) {
      const roots = records.filter((r) => r.agent === cli).map((r) => `${join(worktrees, r.runId)}/`);
      const cwds = server.requests.filter((q) => q.api === API[cli] && q.main).map((q) => q.cwd);
      expect(cwds.length, cli).toBeGreaterThan(0);
      for (const cwd of cwds)
        expect(
          roots.some((root) => cwd?.startsWith(root)),
          `${cli}: ${cwd}`,
        ).toBe(true);
    }
    // The trials' own reports agree: the codex candidate ran its one iteration and failed "keeps the sign".
    const codexReport = JSON.parse(readFileSync(join(runDir(records[2]!), 'report.json'), 'utf8')) as {
      candidates: { history: { checks?: { name: string; passed: boolean }[] }[] }[];
    };
    expect(codexReport.candidates[0]?.history.at(-1)?.checks?.map((k) => [k.name, k.passed])).toEqual([
      ['adds', true],
      ['keeps the sign', false],
    ]);

    // bench.md: the agents' rates (gemini's infra failure out of its rate, counted apart) and the infra section.
    const markdown = readFileSync(join(dir, 'out', 'bench.md'), 'utf8');
    expect(markdown).toContain('1 task × 3 agents × 2 trials: 6 trials, 1 infra failure.');
    expect(markdown).toMatch(/^\| claude \| claude \| 100\.0% \(2\/2\) \|.*\| 0 \|$/m);
    expect(markdown).toMatch(/^\| codex \| codex · gpt-5 \| 0\.0% \(0\/2\) \|.*\| 0 \|$/m);
    expect(markdown).toMatch(/^\| gemini \| gemini · gemini-2\.5-flash \| 100\.0% \(1\/1\) \|.*\| 1 \|$/m);
    expect(markdown).toMatch(/^\| add \| 50\.0% \| 100\.0% \(2\/2\) pass \| 0\.0% \(0\/2\) FAIL \| 100\.0% \(1\/1\) pass \|$/m);
    expect(markdown).toContain(`- add/gemini#${infra!.trial}: auth_error: Gemini CLI cannot authenticate`);

    // junit.xml: one case per task x agent; codex is under the bar.
    const junit = readFileSync(join(dir, 'out', 'junit.xml'), 'utf8');
    expect(junit.match(/<testcase classname="add" name="[a-z]+"/g)).toEqual([
      '<testcase classname="add" name="claude"',
      '<testcase classname="add" name="codex"',
      '<testcase classname="add" name="gemini"',
    ]);
    expect(junit.match(/<failure /g)).toHaveLength(1);
    expect(junit).toMatch(/<testcase classname="add" name="codex"[^>]*>\s*<failure message="resolved 0\.0% \(0\/2\), under the bar of 50\.0%"/);
    expect(junit).toMatch(/<testsuite name="e2e" tests="3" failures="1" errors="0" skipped="0"/);

    // No CLI (or anything it started) is left in the worktrees or the bench's repos.
    expect(processesIn(worktrees)).toEqual([]);
    expect(processesIn(join(dir, 'out'))).toEqual([]);
  }, 600_000);
});
