/**
 * The e2e tier for distinguishing tests (issue 46): the real Claude Code, at its pinned version,
 * is the tester of a `bestof run` whose two scripted candidates both pass the visible check; it
 * writes its test file through its own Write tool, against our fake model server on 127.0.0.1.
 * The test fails the cheap candidate (wrong on an even count) and passes the right one, which wins
 * though the tie-break (cost) would pick the cheap one. The request the server got names neither
 * the run, a candidate, a provider of the candidates nor a path of the run, and the CLI worked in
 * a neutral folder.
 *
 * Run with `npm run test:e2e -- distinguish` (installs the CLIs, builds, isolates the network).
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { fakeServerEnv, namespaceInterfaces, pinnedClis, processesIn, tomlTable, type Cli } from './e2e-helpers.js';
import { editScript, startFakeModelServer, type FakeModelServer } from './fake-model-server.js';

const TEST_FILE = 'bestof-tests/even.test.mjs';
const TEST_BODY =
  "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { median } from '../lib/median.mjs';\n\ntest('an even count', () => assert.equal(median([4, 1, 3, 2]), 2.5));\n";

const CHEAP = 'export function median(xs) {\n  const s = [...xs].sort((a, b) => a - b);\n  return s[Math.floor(s.length / 2)];\n}\n';
const RIGHT =
  'export function median(xs) {\n  const s = [...xs].sort((a, b) => a - b);\n  const m = Math.floor(s.length / 2);\n  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;\n}\n';

let clis: Record<Cli, string>;
let server: FakeModelServer;
let repo: TempRepo;
let outside: string;

beforeAll(async () => {
  clis = pinnedClis();
  server = await startFakeModelServer();
  const interfaces = namespaceInterfaces();
  if (interfaces) expect(interfaces).toEqual(['lo']);
});
afterAll(async () => server?.close());
afterEach(() => {
  if (process.env.KEEP_TEST_DIRS) return;
  repo?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

function writer(name: string, code: string, cost: number): string {
  const file = join(outside, `${name}.toml`);
  writeFileSync(
    file,
    `[[steps]]\nwrite = "lib/median.mjs"\ncontent = ${JSON.stringify(code)}\n[[steps]]\nusage = { input = 100, output = 10 }\ncost_usd = ${cost}\n`,
  );
  return file;
}

describe('distinguishing tests with the real Claude Code as the tester', () => {
  it('the tester writes a test through its own tool; it fails the cheap wrong candidate, and the right one wins', async () => {
    repo = makeTempRepo({
      'README.md': '# median\n',
      'test/visible.test.mjs':
        "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { median } from '../lib/median.mjs';\ntest('odd', () => assert.equal(median([3, 1, 2]), 2));\n",
    });
    outside = makeTempDir('bestof-e2e-distinguish-');
    const home = join(outside, 'home-claude');
    mkdirSync(home, { recursive: true });
    server.script('anthropic', editScript(TEST_FILE, TEST_BODY, 'Done: the test is written.'));
    const spec = [
      'name = "e2e-distinguish"',
      `repo = ${JSON.stringify(repo.dir)}`,
      '[prompt]\ntext = "Write lib/median.mjs exporting median(numbers): the median; for an even count, the mean of the two middle values."',
      // The tester's settings come from [provider] (its env: the fake server's URL and key, a HOME of its own).
      tomlTable('[provider]', {
        kind: 'script',
        script: writer('cheap', CHEAP, 0.01),
        isolate_config: true,
        timeout: '150s',
        env: { HOME: home, ...fakeServerEnv('claude', server.url) },
      }),
      `[parallel]\nproviders = [\n  { kind = "script", script = ${JSON.stringify(writer('cheap', CHEAP, 0.01))} },\n  { kind = "script", script = ${JSON.stringify(writer('right', RIGHT, 0.05))} },\n]`,
      '[[checks.items]]\nname = "visible"\ncommand = "node --test test/visible.test.mjs"\ntimeout = "60s"',
      '[select]\nmerge = "branch"',
      `[select.distinguish]\nprovider = { kind = "claude", command = ${JSON.stringify(clis.claude)} }\ncommand = "node --test {file}"\ntimeout = "150s"\nseed = "e2e"`,
    ].join('\n\n');
    const specPath = join(outside, 'spec.toml');
    writeFileSync(specPath, spec);
    const result = await runCli(['run', specPath, '--json'], { cwd: repo.dir, worktreesDir: join(outside, 'worktrees') });
    if (!result.stdout.trim().startsWith('{')) throw new Error(`bestof run printed no report (exit ${result.code}):\n${result.stderr}`);
    const report = JSON.parse(result.stdout) as { runId: string; winner: string | null };
    const runDir = join(repo.dir, '.bestof', 'runs', report.runId);
    const state = JSON.parse(readFileSync(join(runDir, 'state.json'), 'utf8')) as {
      distinguish?: {
        call?: { tests: { file: string }[]; error?: string };
        runs: { test: string; target: string; outcome: string }[];
        result?: { decided: string };
        skipped?: string;
      };
      picks?: Record<string, string | null>;
    };
    const why = JSON.stringify({ skipped: state.distinguish?.skipped, error: state.distinguish?.call?.error, stderr: result.stderr.slice(-2000) });
    expect(
      state.distinguish?.call?.tests.map((t) => t.file),
      why,
    ).toEqual(['even.test.mjs']);
    // The file is what Claude's Write tool put there, byte for byte.
    expect(readFileSync(join(runDir, 'distinguish', 'tests', 'even.test.mjs'), 'utf8')).toBe(TEST_BODY);
    expect(
      state.distinguish?.runs
        .filter((r) => r.test === 't1')
        .map((r) => `${r.target} ${r.outcome}`)
        .sort(),
    ).toEqual(['base failed', 'c1 failed', 'c2 passed']);
    expect(state.distinguish?.result?.decided).toBe('c2 won: passed 1 of 1 distinguishing test, c1 passed 0');
    expect(report.winner).toBe('c2');
    expect(state.picks).toEqual({ tie_break: 'c1', distinguish: 'c2' });
    expect(result.code).toBe(0);

    // The tester's conversation: in a neutral folder, never the repo, a worktree or the run folder.
    const main = server.requests.filter((r) => r.api === 'anthropic' && r.main);
    expect(main.length).toBeGreaterThanOrEqual(2);
    for (const r of main) {
      expect(r.cwd).toMatch(/\/tester-[^/]+\/work$/);
      for (const forbidden of [report.runId, repo.dir, runDir, join(outside, 'worktrees')]) expect(r.cwd ?? '').not.toContain(forbidden);
    }
    expect(processesIn(join(outside, 'worktrees'))).toEqual([]);
  });
});
