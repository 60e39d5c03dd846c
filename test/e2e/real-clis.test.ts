/**
 * The end-to-end tier: the real `bestof run` (bin/bestof.js over dist/) with one candidate of
 * each real CLI — Claude Code, Codex and Gemini CLI at their pinned versions — in real
 * worktrees of a real repo, against our fake model server on 127.0.0.1. Each CLI really edits
 * files through its own tools, the frozen checks score the results, and a winner is chosen.
 *
 * Run it with `npm run test:e2e` (installs the CLIs, builds, and isolates the network when it
 * can; see scripts/test-e2e.mjs). BESTOF_E2E_CAPTURE=1 copies each candidate's raw output
 * into test/fixtures/providers/<kind>/captured-<scenario>.log for the parser tests.
 */
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT, runCli } from '../helpers/cli.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { API, namespaceInterfaces, pinnedClis, processesIn, providerEntry as entryFor, type CandidateOptions, type Cli } from './e2e-helpers.js';
import { editScript, startFakeModelServer, type Behaviour, type FakeModelServer } from './fake-model-server.js';

const CORRECT = 'export const add = (a, b) => a + b;\n';
/** Passes the positive test only. */
const PARTIAL = 'export const add = (a, b) => Math.abs(a) + Math.abs(b);\n';
/** Passes nothing. */
const WRONG = 'export const add = (a, b) => a * b;\n';

const PROJECT_FILES: Record<string, string> = {
  'src/add.mjs': 'export const add = (a, b) => 0;\n',
  'test/add.test.mjs':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds', () => assert.equal(add(2, 3), 5));\n",
  'test/neg.test.mjs':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.mjs';\ntest('adds negatives', () => assert.equal(add(-2, -3), -5));\n",
  'README.md': '# e2e project\n',
};

interface Report {
  status: string;
  exitCode: number;
  winner: string | null;
  runId: string;
  candidates: {
    id: string;
    provider: string;
    status: string;
    reason: string | null;
    message: string | null;
    score: number | null;
    costUsd: number;
    usage: { input: number; output: number };
    commit: string | null;
    ref: string;
    history: { outcome?: string }[];
  }[];
}

let clis: Record<Cli, string>;
let server: FakeModelServer;
let repo: TempRepo;
let outside: string;

beforeAll(async () => {
  clis = pinnedClis();
  server = await startFakeModelServer();
  // Nothing but loopback exists in the network namespace: a CLI that ignored its settings could reach nothing.
  const interfaces = namespaceInterfaces();
  if (interfaces) expect(interfaces).toEqual(['lo']);
});
afterAll(async () => server?.close());
afterEach(() => {
  if (process.env.KEEP_TEST_DIRS) return;
  repo?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

/** One `[[parallel.providers]]` entry per CLI, each pointed at the fake server only. */
function providerEntry(cli: Cli, options: CandidateOptions = {}): string {
  return entryFor(cli, { clis, serverUrl: server.url, outside }, options);
}

async function runBestof(entries: string[], extra = ''): Promise<{ report: Report; code: number | null; stderr: string; events: string }> {
  const spec = [
    'name = "e2e"',
    `repo = ${JSON.stringify(repo.dir)}`,
    '[prompt]\ntext = "Fix add() in src/add.mjs so that the tests pass."',
    extra,
    '[parallel]\nmax_concurrency = 3',
    ...entries,
    '[checks]\nfrozen = ["test/**"]',
    '[[checks.items]]\nname = "adds"\ncommand = "node --test test/add.test.mjs"\nscore = 10\ntimeout = "60s"',
    '[[checks.items]]\nname = "negatives"\ncommand = "node --test test/neg.test.mjs"\nscore = 5\ntimeout = "60s"',
    '[select]\nmerge = "branch"',
  ].join('\n\n');
  const specPath = join(outside, 'spec.toml');
  writeFileSync(specPath, spec);
  const result = await runCli(['run', specPath, '--json'], { cwd: repo.dir, worktreesDir: join(outside, 'worktrees') });
  if (!result.stdout.trim().startsWith('{')) throw new Error(`bestof run printed no report (exit ${result.code}):\n${result.stderr}`);
  const report = JSON.parse(result.stdout) as Report;
  const runDir = join(repo.dir, '.bestof', 'runs', report.runId);
  return { report, code: result.code, stderr: result.stderr, events: readFileSync(join(runDir, 'events.jsonl'), 'utf8') };
}

function candidate(report: Report, cli: Cli) {
  const found = report.candidates.find((c) => c.provider === cli);
  if (!found) throw new Error(`no ${cli} candidate in the report`);
  return found;
}

function fileAt(ref: string, path: string): string {
  return `${repo.git('show', `${ref}:${path}`)}\n`;
}

/**
 * Copies the raw output (stdout and stderr as they came) of one agent call per candidate into
 * the fixtures, when BESTOF_E2E_CAPTURE=1: test/fixtures/providers/<kind>/captured-<scenario>.log.
 */
function capture(report: Report, scenario: string, clis: readonly Cli[] = ['claude', 'codex', 'gemini']): void {
  if (process.env.BESTOF_E2E_CAPTURE !== '1') return;
  for (const c of report.candidates.filter((c) => (clis as readonly string[]).includes(c.provider))) {
    const log = join(repo.dir, '.bestof', 'runs', report.runId, 'candidates', c.id, 'iteration-1', 'output.log');
    if (existsSync(log)) copyFileSync(log, join(PROJECT_ROOT, 'test', 'fixtures', 'providers', c.provider, `captured-${scenario}.log`));
  }
}

type LoggedEvent = { type: string; candidate?: string; outcome?: string; text?: string; message?: string };

function parseEvents(events: string): LoggedEvent[] {
  return events
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedEvent);
}

/** The activity lines of one candidate, in order. */
function activity(events: string, id: string): string[] {
  return parseEvents(events)
    .filter((e) => e.type === 'candidate.activity' && e.candidate === id)
    .map((e) => e.text ?? '');
}

function newProject(): void {
  server.requests.length = 0;
  repo = makeTempRepo(PROJECT_FILES);
  outside = makeTempDir('bestof-e2e-');
}

function script(cli: Cli, behaviour: Behaviour): void {
  server.script(API[cli], behaviour);
}

describe('bestof run with the real Claude Code, Codex and Gemini CLI', () => {
  it('each CLI edits its worktree, the frozen checks score them, and the best one wins', async () => {
    newProject();
    script('claude', editScript('src/add.mjs', CORRECT));
    script('codex', editScript('src/add.mjs', PARTIAL));
    script('gemini', editScript('src/add.mjs', WRONG));
    const { report, code, events } = await runBestof([providerEntry('claude'), providerEntry('codex'), providerEntry('gemini')]);
    capture(report, 'edit');

    for (const cli of ['claude', 'codex', 'gemini'] as const) expect(candidate(report, cli).history[0]?.outcome, cli).toBe('success');
    expect(fileAt(candidate(report, 'claude').ref, 'src/add.mjs')).toBe(CORRECT);
    expect(fileAt(candidate(report, 'codex').ref, 'src/add.mjs')).toBe(PARTIAL);
    expect(fileAt(candidate(report, 'gemini').ref, 'src/add.mjs')).toBe(WRONG);
    expect([candidate(report, 'claude').score, candidate(report, 'codex').score, candidate(report, 'gemini').score]).toEqual([15, 10, 0]);
    expect(code).toBe(0);
    expect(report.winner).toBe(candidate(report, 'claude').id);

    // Tokens and cost: reported by Claude Code, estimated from configs/prices.toml for the others.
    expect(candidate(report, 'claude').costUsd).toBeGreaterThan(0);
    expect(candidate(report, 'codex').usage.input).toBeGreaterThan(0);
    expect(candidate(report, 'codex').costUsd).toBeGreaterThan(0);
    expect(candidate(report, 'gemini').costUsd).toBeGreaterThan(0);
    // Live activity: each CLI's tool call reached the event log.
    expect(activity(events, candidate(report, 'claude').id)).toContainEqual(expect.stringMatching(/^Write \/.*\/src\/add\.mjs$/));
    expect(activity(events, candidate(report, 'codex').id)).toContainEqual(expect.stringMatching(/^\$ \/bin\/bash -lc .*src\/add\.mjs/));
    expect(activity(events, candidate(report, 'gemini').id)).toContainEqual(expect.stringMatching(/^write_file \/.*\/src\/add\.mjs$/));
    // The edits went into the worktrees bestof made, as each CLI announced them.
    const cwds = new Set(server.requests.filter((r) => r.main).map((r) => r.cwd));
    expect([...cwds].every((cwd) => cwd?.startsWith(join(outside, 'worktrees')))).toBe(true);
  });

  it('a 429 and then success: each CLI backs off by itself and finishes', async () => {
    newProject();
    for (const cli of ['claude', 'codex', 'gemini'] as const) script(cli, { ...editScript('src/add.mjs', CORRECT), failFirst: { status: 429, count: 1 } });
    const { report, code } = await runBestof([providerEntry('claude'), providerEntry('codex'), providerEntry('gemini')]);
    capture(report, 'ratelimit-retried');
    for (const cli of ['claude', 'codex', 'gemini'] as const) {
      expect(candidate(report, cli).history[0]?.outcome, cli).toBe('success');
      expect(candidate(report, cli).score, cli).toBe(15);
      const answers = server.requests.filter((r) => r.api === API[cli] && r.main).map((r) => r.answer);
      expect(answers.slice(0, 2), cli).toEqual(['error 429', 'write']);
    }
    expect(code).toBe(0);
  });

  it('a 429 the CLI does not retry is rate_limited, and bestof backs off and runs it again', async () => {
    newProject();
    script('claude', { ...editScript('src/add.mjs', CORRECT), failFirst: { status: 429, count: 1 } });
    script('codex', { ...editScript('src/add.mjs', CORRECT), failFirst: { status: 429, count: 1 } });
    const { report, code, events } = await runBestof(
      [
        providerEntry('claude', { env: { CLAUDE_CODE_MAX_RETRIES: '0' } }),
        providerEntry('codex', { config: { 'model_providers.fake.request_max_retries': 0, 'model_providers.fake.stream_max_retries': 0 } }),
      ],
      '[loop]\nrate_limit_backoff = "1s"',
    );
    const types = parseEvents(events).map((e) => `${e.type}${e.outcome ? `:${e.outcome}` : ''}`);
    expect(types).toContain('provider.finished:rate_limited');
    expect(types).toContain('candidate.waiting');
    for (const cli of ['claude', 'codex'] as const) expect(candidate(report, cli).score, cli).toBe(15);
    expect(code).toBe(0);
  });

  it('a 401 stops that candidate with an auth message, and the others go on', async () => {
    newProject();
    script('claude', { steps: [{ kind: 'error', status: 401 }] });
    script('codex', editScript('src/add.mjs', CORRECT));
    script('gemini', editScript('src/add.mjs', PARTIAL));
    const first = await runBestof([providerEntry('claude'), providerEntry('codex'), providerEntry('gemini')]);
    capture(first.report, 'auth', ['claude']);
    expect(candidate(first.report, 'claude')).toMatchObject({
      status: 'failed',
      reason: 'auth_error',
      message: expect.stringMatching(/Claude Code cannot authenticate.*ANTHROPIC_API_KEY/),
    });
    expect(candidate(first.report, 'codex').score).toBe(15);
    expect(candidate(first.report, 'gemini').score).toBe(10);
    expect(first.report.winner).toBe(candidate(first.report, 'codex').id);

    newProject();
    script('claude', editScript('src/add.mjs', CORRECT));
    script('codex', { steps: [{ kind: 'error', status: 401 }] });
    script('gemini', { steps: [{ kind: 'error', status: 401 }] });
    const second = await runBestof([
      providerEntry('claude'),
      providerEntry('codex', { config: { 'model_providers.fake.request_max_retries': 0 } }),
      providerEntry('gemini'),
    ]);
    capture(second.report, 'auth', ['codex', 'gemini']);
    expect(candidate(second.report, 'codex')).toMatchObject({
      status: 'failed',
      reason: 'auth_error',
      message: expect.stringMatching(/Codex cannot authenticate: .*401/),
    });
    expect(candidate(second.report, 'gemini')).toMatchObject({
      status: 'failed',
      reason: 'auth_error',
      message: expect.stringMatching(/Gemini CLI cannot authenticate: .*API key not valid/),
    });
    expect(candidate(second.report, 'claude').score).toBe(15);
    expect(second.code).toBe(0);
  });

  it('a hung CLI (the server stops answering) is killed at its timeout with its process tree; its written file is committed', async () => {
    newProject();
    script('claude', { steps: [{ kind: 'write', path: 'src/add.mjs', content: CORRECT }, { kind: 'hang' }] });
    script('codex', { steps: [{ kind: 'write', path: 'src/add.mjs', content: PARTIAL }, { kind: 'hang' }] });
    script('gemini', editScript('src/add.mjs', PARTIAL));
    const { report, code, events } = await runBestof([
      providerEntry('claude', { timeout: '15s' }),
      providerEntry('codex', { timeout: '15s' }),
      providerEntry('gemini'),
    ]);
    capture(report, 'hang', ['claude', 'codex']);
    for (const cli of ['claude', 'codex'] as const) {
      const finished = parseEvents(events).find((e) => e.type === 'provider.finished' && e.candidate === candidate(report, cli).id);
      expect(finished, cli).toMatchObject({
        outcome: 'timeout',
        message: expect.stringMatching(/did not finish within 15s and was killed with its whole process tree/),
      });
    }
    // What the hung agents wrote before they hung was committed and scored.
    expect(fileAt(candidate(report, 'claude').ref, 'src/add.mjs')).toBe(CORRECT);
    expect(fileAt(candidate(report, 'codex').ref, 'src/add.mjs')).toBe(PARTIAL);
    expect(candidate(report, 'claude').score).toBe(15);
    expect(candidate(report, 'gemini').history[0]?.outcome).toBe('success');
    expect(processesIn(join(outside, 'worktrees'))).toEqual([]);
    expect(code).toBe(0);
  });
});
