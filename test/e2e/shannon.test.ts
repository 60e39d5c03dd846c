/**
 * The e2e tier for the `shannon` provider (issue 10): the real Claude Code at its pinned version,
 * interactive (no `-p`) in a tmux session that bestof starts, against our fake model server on
 * 127.0.0.1, through the real `bestof run` (bin/bestof.js over dist/).
 *
 * The scenario (fake-model-server.ts `blockedOnceScript`): Claude's first turn writes an add()
 * that fails the frozen checks and stops; bestof holds that Stop hook while it scores the
 * iteration, then answers it with `block` and the next iteration's prompt (the failing checks'
 * report), so the same session goes on; the second turn must see that report in its request,
 * writes the right add() and stops; it passes, and the candidate beats an honest script rival
 * that only gets one check right. While the second turn waits on the server, `bestof attach`
 * (inside a tmux session of the test's own: it needs a terminal) shows the candidate's screen.
 *
 * Run with `npm run test:e2e -- shannon` (installs the CLIs, builds, isolates the network).
 * What the real CLI does in tmux (ready screen, hooks, where a block's reason lands in the next
 * request, what the transcript holds while a Stop hook is held): docs/design/agent-clis.md
 * section 10, and what this test's work verified beyond it: docs/design/claude-code-in-tmux.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BESTOF_BIN, PROJECT_ROOT, runCli, startCli, type CliResult } from '../helpers/cli.js';
import { processesWithArg } from '../helpers/processes.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';
import { blockedOnceScript, startFakeModelServer, type FakeModelServer } from './fake-model-server.js';
import type { ReportJson } from '../helpers/run-record.js';

/** The pinned Claude Code: from scripts/test-e2e.mjs, or installed here when the file is run directly. */
function pinnedClaude(): string {
  if (process.env.BESTOF_E2E_CLAUDE) return process.env.BESTOF_E2E_CLAUDE;
  const out = execFileSync(process.execPath, [join(PROJECT_ROOT, 'scripts', 'install-e2e-clis.mjs'), 'claude'], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return out.trim().split(' ')[2]!;
}

const CORRECT = 'export const add = (a, b) => a + b;\n';
/** Passes `adds` only: the rival's. */
const PARTIAL = 'export const add = (a, b) => Math.abs(a) + Math.abs(b);\n';
/** Passes nothing: Claude's first attempt. */
const WRONG = 'export const add = (a, b) => a * b;\n';

/** Checks with one short line of output, so that the block reason (the next prompt) stays small. */
const check = (a: number, b: number, expected: number) =>
  `import { add } from '../src/add.mjs';\nconst got = add(${a}, ${b});\nif (got !== ${expected}) { console.log(\`add(${a}, ${b}) returned \${got}, expected ${expected}\`); process.exit(1); }\nconsole.log('ok');\n`;

const PROJECT_FILES: Record<string, string> = {
  'src/add.mjs': 'export const add = (a, b) => 0;\n',
  'checks/adds.mjs': check(2, 3, 5),
  'checks/negatives.mjs': check(-2, -3, -5),
  'README.md': '# e2e project\n',
};

/** What the second turn's request must carry: the failing check's own output, from the block reason. */
const FEEDBACK = 'add(2, 3) returned 6, expected 5';

type Report = ReportJson;

type LoggedEvent = {
  type: string;
  candidate?: string;
  iteration?: number;
  outcome?: string;
  costUsd?: number;
  usage?: { input: number; output: number };
  score?: number;
  message?: string;
};

let claude: string;
let server: FakeModelServer;
let repo: TempRepo;
let outside: string;
const tmuxSockets: string[] = [];

beforeAll(async () => {
  claude = pinnedClaude();
  // With KEEP_TEST_DIRS, every request Claude Code sent is kept too (to see where a block's reason lands).
  const dumpFile = process.env.KEEP_TEST_DIRS ? join(makeTempDir('bestof-e2e-dump-'), 'requests.jsonl') : undefined;
  if (dumpFile) console.log(`shannon e2e: the model requests go to ${dumpFile}`);
  server = await startFakeModelServer(dumpFile ? { dumpFile } : {});
  if (process.env.BESTOF_E2E_NETNS === '1') {
    const interfaces = readFileSync('/proc/net/dev', 'utf8')
      .split('\n')
      .slice(2)
      .map((line) => line.split(':')[0]!.trim())
      .filter(Boolean);
    expect(interfaces).toEqual(['lo']);
  }
});
afterAll(async () => server?.close());
afterEach(() => {
  // The test's own tmux servers (the attach viewer), whatever happened.
  for (const socket of tmuxSockets.splice(0)) spawnSync('tmux', ['-S', socket, 'kill-server'], { stdio: 'ignore' });
  server?.release();
  if (process.env.KEEP_TEST_DIRS) return;
  repo?.cleanup();
  if (outside) rmSync(outside, { recursive: true, force: true });
});

function newProject(): void {
  server.requests.length = 0;
  repo = makeTempRepo(PROJECT_FILES);
  outside = makeTempDir('bestof-e2e-shannon-');
}

interface RunOptions {
  readonly sandbox: 'off' | 'required';
  /** Where the pinned Claude Code is named: `[shannon] command`, or the candidate's own `command`. */
  readonly command: 'section' | 'candidate';
}

function spec(options: RunOptions): string {
  const home = join(outside, 'home');
  mkdirSync(home, { recursive: true });
  writeFileSync(join(outside, 'rival.toml'), `[[steps]]\nwrite = "src/add.mjs"\ncontent = ${JSON.stringify(PARTIAL)}\n`);
  const env = {
    HOME: home,
    ANTHROPIC_BASE_URL: server.url,
    ANTHROPIC_API_KEY: 'sk-ant-fake-shannon-0123456789abcdef',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  return [
    'name = "e2e-shannon"',
    `repo = ${JSON.stringify(repo.dir)}`,
    '[prompt]\ntext = "Fix add() in src/add.mjs so that the checks pass."',
    `[sandbox]\nmode = "${options.sandbox}"`,
    '[loop]\nmax_iterations = 2',
    `[shannon]\n${options.command === 'section' ? `command = ${JSON.stringify(claude)}\n` : ''}startup_timeout = "60s"`,
    '[parallel]\nmax_concurrency = 2',
    `[[parallel.providers]]\nkind = "shannon"\n${options.command === 'candidate' ? `command = ${JSON.stringify(claude)}\n` : ''}timeout = "120s"\nenv = { ${Object.entries(
      env,
    )
      .map(([k, v]) => `${k} = ${JSON.stringify(v)}`)
      .join(', ')} }`,
    `[[parallel.providers]]\nkind = "script"\nlabel = "rival"\nscript = ${JSON.stringify(join(outside, 'rival.toml'))}`,
    '[checks]\nfrozen = ["checks/**"]',
    '[[checks.items]]\nname = "adds"\ncommand = "node checks/adds.mjs"\nscore = 10\ntimeout = "60s"',
    '[[checks.items]]\nname = "negatives"\ncommand = "node checks/negatives.mjs"\nscore = 5\ntimeout = "60s"',
    '[select]\nmerge = "branch"',
  ].join('\n\n');
}

function startRun(options: RunOptions): { done: Promise<CliResult>; result: () => CliResult | undefined } {
  const specPath = join(outside, 'spec.toml');
  writeFileSync(specPath, spec(options));
  const { done } = startCli(['run', specPath, '--json'], { cwd: repo.dir, worktreesDir: join(outside, 'worktrees') });
  let finished: CliResult | undefined;
  void done.then((r) => (finished = r));
  return { done, result: () => finished };
}

function reportOf(result: CliResult): Report {
  if (!result.stdout.trim().startsWith('{')) throw new Error(`bestof run printed no report (exit ${result.code}):\n${result.stderr}`);
  return JSON.parse(result.stdout) as Report;
}

function eventsOf(report: Report): LoggedEvent[] {
  const file = join(repo.dir, '.bestof', 'runs', report.runId, 'events.jsonl');
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as LoggedEvent);
}

function candidate(report: Report, provider: string) {
  const found = report.candidates.find((c) => c.provider === provider);
  if (!found) throw new Error(`no ${provider} candidate in the report: ${JSON.stringify(report.candidates.map((c) => c.provider))}`);
  return found;
}

/** The shannon candidate's session record (`<run>/candidates/<id>/shannon.json`), once it is written. */
function findRecord(): { runId: string; candidate: string; record: { socket: string; session: string; sessionId: string } } | undefined {
  const runs = join(repo.dir, '.bestof', 'runs');
  if (!existsSync(runs)) return undefined;
  for (const runId of readdirSync(runs)) {
    const candidates = join(runs, runId, 'candidates');
    if (!existsSync(candidates)) continue;
    for (const id of readdirSync(candidates)) {
      const file = join(candidates, id, 'shannon.json');
      if (existsSync(file)) return { runId, candidate: id, record: JSON.parse(readFileSync(file, 'utf8')) };
    }
  }
  return undefined;
}

/** The tmux screen of a session of the test's own. */
function capture(socket: string, target: string): string {
  return spawnSync('tmux', ['-S', socket, 'capture-pane', '-p', '-t', target], { encoding: 'utf8' }).stdout ?? '';
}

/** Runs the scenario's checks on the finished run: two iterations of one session, the block, the win. */
function expectTwoTurnsOfOneSessionWin(report: Report, events: LoggedEvent[]): void {
  const shannon = candidate(report, 'shannon');
  const rival = candidate(report, 'script');

  // Iteration 1 failed the checks, iteration 2 (the blocked Stop's continuation) passed.
  const scored = events.filter((e) => e.type === 'candidate.scored' && e.candidate === shannon.id && e.iteration !== undefined);
  expect(scored.map((e) => [e.iteration, e.score])).toEqual(
    expect.arrayContaining([
      [1, 0],
      [2, 15],
    ]),
  );
  expect(shannon.history.map((h) => h.outcome)).toEqual(['success', 'success']);
  expect(shannon.iterations).toBe(2);
  expect(`${repo.git('show', `${shannon.ref}:src/add.mjs`)}\n`).toBe(CORRECT);
  expect(shannon.score).toBe(15);
  expect(rival.score).toBe(10);
  expect(report.winner).toBe(shannon.id);

  // One conversation: turn 0 (write, stop), then, after the block carried the failing check's
  // report, turn 1 (write, stop), every request from the same Claude Code session.
  const main = server.requests.filter((r) => r.api === 'anthropic' && r.main);
  expect(main.map((r) => `${r.turn}/${r.step}:${r.answer}`)).toEqual(['0/0:write', '0/1:text', '1/0:write', '1/1:text']);
  const sessions = new Set(main.map((r) => r.session));
  expect(sessions.size).toBe(1);
  const record = JSON.parse(readFileSync(join(repo.dir, '.bestof', 'runs', report.runId, 'candidates', shannon.id, 'shannon.json'), 'utf8')) as {
    sessionId: string;
    socket: string;
  };
  expect([...sessions]).toEqual([record.sessionId]);

  // Tokens and cost reached the event log and the report. Claude Code writes its cost only when
  // a turn really ends, so each held turn's is estimated from its tokens with the built-in
  // [shannon] prices (configs/prices.toml) for the model it asks for by default, claude-opus-5-5
  // (the fake server names the requested model in its answers, as the API does).
  const finished = events.filter((e) => e.type === 'provider.finished' && e.candidate === shannon.id);
  expect(finished.map((e) => e.outcome)).toEqual(['success', 'success']);
  expect(finished.every((e) => (e.usage?.input ?? 0) > 0 && (e.usage?.output ?? 0) > 0)).toBe(true);
  expect(finished.reduce((sum, e) => sum + (e.costUsd ?? 0), 0)).toBeGreaterThan(0);
  expect(shannon.costUsd).toBeGreaterThan(0);
  expect(shannon.usage.input).toBeGreaterThan(0);

  // close() ended the session: no Claude Code process of it is left, nor the run's tmux server,
  // nor its short folder in the temp dir (the tmux and hook sockets).
  expect(processesWithArg(record.sessionId)).toEqual([]);
  expect(spawnSync('tmux', ['-S', record.socket, 'has-session'], { stdio: 'ignore' }).status).not.toBe(0);
  expect(existsSync(dirname(record.socket))).toBe(false);
}

describe('the shannon provider with the real Claude Code in tmux', () => {
  it('blocked once with the failing checks, the same session fixes the work and wins; bestof attach shows its screen', async () => {
    newProject();
    server.script('anthropic', blockedOnceScript('src/add.mjs', WRONG, CORRECT, FEEDBACK, { hold: true }));
    const run = startRun({ sandbox: 'off', command: 'candidate' });
    const ended = () => {
      const r = run.result();
      return r ? `exit ${r.code}\n${r.stderr.slice(-3000)}` : undefined;
    };

    // The second turn's last answer is held: the candidate is mid-iteration-2, its screen up.
    await Promise.race([
      server.whenHeld(150_000),
      run.done.then((r) => {
        throw new Error(
          `bestof run ended before the second turn's held answer (exit ${r.code}):\n${r.stderr.slice(-3000)}\nrequests: ${JSON.stringify(server.requests)}`,
        );
      }),
    ]);
    await waitUntil(() => findRecord() !== undefined, 'the shannon session record', { ended });
    const found = findRecord()!;

    // `bestof attach` needs a terminal: it runs in a tmux session of the test's own.
    const viewer = join(outside, 'viewer.sock');
    tmuxSockets.push(viewer);
    const attach = `${JSON.stringify(process.execPath)} ${JSON.stringify(BESTOF_BIN)} attach ${found.runId} ${found.candidate}; echo "attach exited $?"; sleep 60`;
    const started = spawnSync('tmux', ['-f', '/dev/null', '-S', viewer, 'new-session', '-d', '-s', 'viewer', '-x', '120', '-y', '40', '-c', repo.dir, attach], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', TMUX: undefined },
    });
    expect(started.status, started.stderr).toBe(0);
    let screen = '';
    await waitUntil(
      () => {
        screen = capture(viewer, 'viewer');
        // Claude Code's rendering of its Write tool call, and of the block's reason (the failing checks).
        return screen.includes('Write(src/add.mjs)') && screen.includes(FEEDBACK);
      },
      'the candidate screen in the attach viewer',
      { ended: () => ended() ?? (/attach exited/.test(screen) ? `attach ended:\n${screen}` : undefined), attempts: 300 },
    ).catch((error: unknown) => {
      throw new Error(`${String(error)}\nviewer screen:\n${screen}`);
    });
    // The viewer watches read-only.
    const clients = spawnSync('tmux', ['-S', found.record.socket, 'list-clients', '-t', found.record.session, '-F', '#{client_readonly}'], {
      encoding: 'utf8',
    });
    expect(clients.stdout.trim()).toBe('1');

    server.release();
    const result = await run.done;
    const report = reportOf(result);
    expect(result.code, result.stderr).toBe(0);
    expectTwoTurnsOfOneSessionWin(report, eventsOf(report));
    // The run's end killed the session the viewer was attached to: attach ended, and says so now.
    await waitUntil(() => /attach exited/.test(capture(viewer, 'viewer')), 'attach to end with the session');
    const late = await runCli(['attach', report.runId, found.candidate], { cwd: repo.dir });
    expect(late.code).not.toBe(0);
    expect(late.stderr).toMatch(new RegExp(`tmux session of ${found.candidate} \\(run ${report.runId}\\) is gone`));
  });

  it('the same inside the sandbox (bubblewrap, [sandbox] mode = "required"), Claude Code named by [shannon] command', async () => {
    newProject();
    server.script('anthropic', blockedOnceScript('src/add.mjs', WRONG, CORRECT, FEEDBACK));
    const run = startRun({ sandbox: 'required', command: 'section' });
    const result = await run.done;
    const report = reportOf(result);
    expect(result.code, result.stderr).toBe(0);
    expectTwoTurnsOfOneSessionWin(report, eventsOf(report));
  });
});
