/**
 * `kind = "shannon"` through the real binary: the fake interactive Claude Code
 * (test/fixtures/bin/fake-claude-tui) in real tmux, driven through its hooks by the real
 * `bestof hook`. Its first iteration fails the checks; the second prompt (the retry prompt and
 * the failing checks) reaches the same session as the held Stop hook's block reason, the agent
 * fixes the code there, and it wins. Also: with the sandbox on, `bestof attach` during a run,
 * and a session left by a killed bestof that `bestof clean` ends.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { capturePane, killServer, sessionAlive } from '../../src/process/tmux.js';
import { processesWithEnv } from '../../src/process/tagged-processes.js';
import { PROJECT_ROOT, BESTOF_BIN, runCli, startCli } from '../helpers/cli.js';
import { readLoopReport } from '../helpers/loop.js';
import { ADD_CHECKS, makeProject, specToml, type Project } from '../helpers/project.js';
import { readEventLines } from '../helpers/run-record.js';
import { processIsGone, waitUntil } from '../helpers/wait.js';
import { killAll, SeenProcesses } from '../helpers/processes.js';

const FAKE = join(PROJECT_ROOT, 'test/fixtures/bin/fake-claude-tui');
let project: Project;
const sockets: string[] = [];
const seen = new SeenProcesses();
afterEach(async () => {
  for (const socket of sockets.splice(0)) {
    await killServer(socket);
    // The run's short folder under /tmp: a killed bestof leaves its hook folder there.
    if (socket.endsWith('/tmux.sock')) rmSync(dirname(socket), { recursive: true, force: true });
  }
  killAll(seen);
  project?.cleanup();
});

interface LogLine {
  readonly pid: number;
  readonly event: string;
  readonly [key: string]: unknown;
}

const logFile = () => join(project.outside, 'fake.log');
function fakeLog(): LogLine[] {
  return existsSync(logFile())
    ? readFileSync(logFile(), 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as LogLine)
    : [];
}
const runsDir = () => join(project.repo.dir, '.bestof', 'runs');
const onlyRunId = (): string | undefined => (existsSync(runsDir()) ? readdirSync(runsDir())[0] : undefined);

/**
 * One shannon candidate. Iteration 1's prompt makes add() subtract (the check fails); the retry
 * prompt (iteration 2 on) makes it add.
 */
function shannonSpec(options: { sandbox?: 'off' | 'required'; task?: string; checks?: string; env?: Record<string, string> } = {}): string {
  const retry = project.writeOutside('retry.md', 'The checks failed; fix it.\nWRITE src/add.mjs export const add = (a, b) => a + b;\nSAY fixed it\n');
  const env = { ANTHROPIC_API_KEY: 'sk-ant-test-0123456789abcdefghijklmn', FAKE_TUI_LOG: logFile(), FAKE_TUI_START_MS: '100', ...options.env };
  const envToml = Object.entries(env)
    .map(([name, value]) => `${name} = ${JSON.stringify(value)}`)
    .join(', ');
  return project.writeOutside(
    'spec.toml',
    specToml(
      project.repo.dir,
      [
        `[loop]\nmax_iterations = 3\n`,
        `[parallel]\ncandidates = 1\n`,
        `[provider]\nkind = "shannon"\ncommand = ${JSON.stringify(FAKE)}\nenv = { ${envToml} }\n`,
        options.checks ?? ADD_CHECKS,
        `[select]\nmerge = "branch"\n`,
        `[sandbox]\nmode = "${options.sandbox ?? 'off'}"\n`,
      ].join('\n'),
    ).replace(
      'text = "Make the tests pass."',
      `text = ${JSON.stringify(options.task ?? 'Make the tests pass.\nWRITE src/add.mjs export const add = (a, b) => a - b;\nSAY first try')}\nretry_prompt_file = ${JSON.stringify(retry)}`,
    ),
  );
}

async function runAndExpectTwoIterationsInOneSession(sandbox: 'off' | 'required'): Promise<void> {
  project = makeProject();
  const spec = shannonSpec({ sandbox });
  const result = await runCli(['run', spec, '--json'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
  expect(result.code, result.stderr).toBe(0);
  const report = readLoopReport(project.repo.dir);
  expect(report.winner).toBe('c1');
  const c1 = report.candidates[0]!;
  expect(c1.history.map((h) => [h.iteration, h.outcome, h.score])).toEqual([
    [1, 'success', 0],
    [2, 'success', 10],
  ]);
  expect(project.repo.git('show', `${c1.ref}:src/add.mjs`)).toBe('export const add = (a, b) => a + b;');

  const runId = onlyRunId() as string;
  const candidateDir = join(runsDir(), runId, 'candidates', 'c1');
  // One session: one transcript, whose second prompt is the held Stop hook's block reason.
  const projects = join(candidateDir, 'shannon-config', 'projects');
  const transcripts = readdirSync(projects).flatMap((dir) => readdirSync(join(projects, dir)).map((file) => join(projects, dir, file)));
  expect(transcripts).toHaveLength(1);
  const userLines = readFileSync(transcripts[0]!, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { type: string; isMeta?: boolean; message?: { content?: unknown } })
    .filter((line) => line.type === 'user' && typeof line.message?.content === 'string');
  expect(userLines.map((line) => line.isMeta === true)).toEqual([false, true]);
  expect(userLines[1]?.message?.content).toContain('WRITE src/add.mjs export const add = (a, b) => a + b;');
  const how = (n: number) => (JSON.parse(readFileSync(join(candidateDir, `iteration-${n}`, 'invocation.json'), 'utf8')) as { prompt: string }).prompt;
  expect([how(1), how(2)]).toEqual(['typed into the session', 'the held Stop hook answered block with it']);
  if (sandbox === 'off') {
    // The fake's own log (inside the sandbox it writes to the sandbox's private /tmp): one process, one start.
    const log = fakeLog();
    expect([...new Set(log.map((l) => l.pid))]).toHaveLength(1);
    expect(log.filter((l) => l.event === 'prompt').map((p) => p.source)).toEqual(['typed', 'block']);
    // The candidate ended: its held Stop was allowed and the session exited.
    expect(log.at(-1)).toMatchObject({ event: 'exit', code: 0 });
  }

  const events = readEventLines(join(runsDir(), runId, 'events.jsonl'));
  const calls = events.filter((e) => e.type === 'provider.finished');
  expect(calls.map((c) => c.outcome)).toEqual(['success', 'success']);
  expect(calls.every((c) => (c.usage as { input: number }).input > 0)).toBe(true);
  const record = JSON.parse(readFileSync(join(runsDir(), runId, 'candidates/c1/shannon.json'), 'utf8')) as { socket: string; session: string };
  expect(await sessionAlive({ socket: record.socket, name: record.session })).toBe(false);
  expect(existsSync(record.socket)).toBe(false);
}

describe('bestof run with a shannon candidate', () => {
  it('fails the checks in iteration 1, passes in iteration 2 in the same tmux session, and wins', async () => {
    await runAndExpectTwoIterationsInOneSession('off');
  });

  it('the same inside the sandbox ([sandbox] mode = "required")', async () => {
    await runAndExpectTwoIterationsInOneSession('required');
    const invocation = JSON.parse(readFileSync(join(runsDir(), onlyRunId() as string, 'candidates/c1/iteration-1/invocation.json'), 'utf8')) as {
      argv: string[];
      sandboxed: boolean;
    };
    expect(invocation).toMatchObject({ sandboxed: true, argv: expect.arrayContaining(['--dangerously-skip-permissions']) });
  });

  it('in the sandbox the session sees nothing of the run folder but its own config folder and hooks file', async () => {
    project = makeProject();
    const task = `Look around.\nRUN for d in ${runsDir()}/* ${runsDir()}/*/candidates ${runsDir()}/*/candidates/*; do echo "$(basename $d): $(ls -A $d | tr '\\n' ' ')"; done > seen.txt 2>&1\nWRITE src/add.mjs export const add = (a, b) => a + b;\nSAY looked`;
    const result = await runCli(['run', shannonSpec({ sandbox: 'required', task })], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const report = readLoopReport(project.repo.dir);
    const seen = project.repo.git('show', `${report.candidates[0]?.commit}:seen.txt`);
    // The run folder is hidden: only the paths down to the session's own config folder (bound in,
    // so that Claude Code keeps its transcripts) and hooks file (read-only) exist in there: no
    // events.jsonl, state.json, run-key or spec.toml, no other candidate's folder, none of the
    // candidate's own records (iterations, channel.jsonl, setup-paths.json).
    expect(
      seen
        .trim()
        .split('\n')
        .map((line) => line.trim()),
    ).toEqual([`${report.runId}: candidates`, 'candidates: c1', 'c1: shannon-config shannon-settings.json']);
    expect(report.winner).toBe('c1');
  });

  it('bestof attach shows the session during the run; after the run it says the session is gone', async () => {
    project = makeProject();
    const go = join(project.outside, 'go');
    // The check waits for the test: the Stop hook is held meanwhile and the session lives.
    const checks = `[checks]\nfrozen = ["test/**", "scripts/check.sh"]\n[[checks.items]]\nname = "tests"\ncommand = ${JSON.stringify(`while [ ! -f ${go} ]; do sleep 0.1; done; scripts/check.sh`)}\nscore = 10\ntimeout = "120s"\n`;
    const spec = shannonSpec({ task: 'WRITE src/add.mjs export const add = (a, b) => a + b;\nSAY watch me', checks });
    const { done } = startCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    // The round is logged before its Stop hook runs; the check waits for the test, so the hook stays held.
    await waitUntil(() => fakeLog().some((l) => l.event === 'round'), 'the first round', { ended: () => ended });
    const runId = onlyRunId() as string;

    // attach needs a terminal: it runs in a tmux session of the test's own.
    const watcher = join(project.outside, 'watch.sock');
    sockets.push(watcher);
    const started = spawnSync(
      'tmux',
      [
        '-f',
        '/dev/null',
        '-S',
        watcher,
        'new-session',
        '-d',
        '-s',
        'w',
        '-x',
        '120',
        '-y',
        '40',
        '-c',
        project.repo.dir,
        `${process.execPath} ${BESTOF_BIN} attach ${runId} c1; sleep 60`,
      ],
      {
        env: { ...process.env, BESTOF_WORKTREES_DIR: project.worktreesDir },
      },
    );
    expect(started.status, started.stderr.toString()).toBe(0);
    const pane = { socket: watcher, name: 'w' };
    let screen = '';
    for (let i = 0; i < 300 && !screen.includes('watch me'); i++) {
      screen = await capturePane(pane);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(screen).toContain('watch me');
    expect(screen).toMatch(/❯/);
    const record = JSON.parse(readFileSync(join(runsDir(), runId, 'candidates/c1/shannon.json'), 'utf8')) as { socket: string };
    const clients = spawnSync('tmux', ['-S', record.socket, 'list-clients', '-F', '#{client_readonly}']).stdout.toString().trim();
    expect(clients).toBe('1');

    writeFileSync(go, '');
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    const after = await runCli(['attach', runId, 'c1'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(after.code).toBe(2);
    expect(after.stderr).toMatch(/the tmux session of c1 \(run .*\) is gone/);
    // Without tmux on PATH (git still there): what is missing and how to install it.
    const noTmux = join(project.outside, 'no-tmux');
    mkdirSync(noTmux);
    symlinkSync(spawnSync('sh', ['-c', 'command -v git']).stdout.toString().trim(), join(noTmux, 'git'));
    const without = await runCli(['attach', runId, 'c1'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir, env: { PATH: noTmux } });
    expect(without.code).toBe(2);
    expect(without.stderr).toMatch(/attach needs tmux: tmux is not on PATH: install tmux/);
  });

  it('a session left by a killed bestof is gone after `bestof clean`', async () => {
    project = makeProject();
    const spec = shannonSpec({ task: 'SLEEP 120000\nSAY never' });
    const { child, done } = startCli(['run', spec], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
    await waitUntil(() => fakeLog().some((l) => l.event === 'prompt'), 'the turn to start', { ended: () => ended });
    const runId = onlyRunId() as string;
    const fakePid = fakeLog()[0]!.pid;
    seen.add(fakePid);
    child.kill('SIGKILL');
    await done;
    const record = JSON.parse(readFileSync(join(runsDir(), runId, 'candidates/c1/shannon.json'), 'utf8')) as { socket: string; session: string };
    sockets.push(record.socket);
    const session = { socket: record.socket, name: record.session };
    expect(await sessionAlive(session)).toBe(true);
    const key = readFileSync(join(runsDir(), runId, 'run-key'), 'utf8').trim();
    expect(processesWithEnv('BESTOF_RUN_KEY', [key])).toContain(fakePid);

    const clean = await runCli(['clean', runId], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(clean.code, clean.stdout + clean.stderr).toBe(0);
    await waitUntil(() => processIsGone(fakePid), 'the fake agent to be gone');
    expect(await sessionAlive(session)).toBe(false);
    expect(processesWithEnv('BESTOF_RUN_KEY', [key])).toEqual([]);
    // The run's folder under the system temp folder (socket, hook sockets) goes too.
    expect(existsSync(dirname(record.socket)), clean.stdout).toBe(false);
    expect(clean.stdout).toContain(`remove ${dirname(record.socket)}`);
  });
});
