/**
 * Output nobody reads any more: `bestof run | head -2` and `bestof ls | head -1`, through a
 * real shell pipeline. A write error on stdout (EPIPE) must not stop bestof: the run goes on
 * to its end, its record says so, its worktrees are removed, and the exit code is its own.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { BESTOF_BIN, startCli } from '../helpers/cli.js';
import { waitUntil } from '../helpers/wait.js';
import { ADD_CHECKS, FIXTURE_BIN, makeProject, specToml, type Project } from '../helpers/project.js';
import type { EventLine } from '../helpers/run-record.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { finishedRun } from '../ui/scripted-runs.js';

interface ShellResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs a bash script with BESTOF (the command that runs the built binary) in its environment. */
function shell(script: string, cwd: string, env: Record<string, string>): Promise<ShellResult> {
  const child = spawn('bash', ['-c', script], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', BESTOF: `${process.execPath} ${BESTOF_BIN}`, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

/** What a crash on a write error printed: Node's stack trace, or bestof's internal error. */
const CRASH = /EPIPE|internal error|\n\s+at /;

let project: Project | undefined;
afterEach(() => {
  if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
  project = undefined;
});

describe('bestof run | head -2', () => {
  it("goes on to the end of the run when the reader has gone: record finished, no worktree left, the run's exit code", async () => {
    project = makeProject();
    const readerGone = join(project.outside, 'reader-gone');
    // Without the sandbox, so that the agent sees the file the pipeline makes (the sandbox's /tmp is its own).
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'await-reader-gone-agent'))}\n${ADD_CHECKS}\n[select]\nmerge = "none"\n[sandbox]\nmode = "off"\n`,
      ),
    );
    // head takes two lines and exits; then the reading side closes its end of the pipe and only
    // then says so (READER_GONE), so every line bestof writes after that meets a closed pipe.
    const result = await shell(
      '$BESTOF run "$SPEC" --no-tui | { head -2; exec 0<&-; touch "$READER_GONE"; }; echo "bestof exited with ${PIPESTATUS[0]}"',
      project.repo.dir,
      { SPEC: spec, READER_GONE: readerGone, BESTOF_WORKTREES_DIR: project.worktreesDir },
    );
    expect(result.stderr).not.toMatch(CRASH);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^run \S+ \(t\): 1 candidate on /);
    expect(lines[2]).toBe('bestof exited with 0');
    expect(existsSync(readerGone)).toBe(true);

    const runsDir = join(project.repo.dir, '.bestof', 'runs');
    const runDir = join(runsDir, readdirSync(runsDir)[0] as string);
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EventLine);
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', status: 'winner', exitCode: 0 });
    // The agent went on after the reader had gone, and its work was scored.
    expect(events.filter((e) => e.type === 'candidate.activity').map((e) => e.text)).toContain('fixed add(), line 20');
    expect(JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8'))).toMatchObject({ status: 'winner', winner: 'c1' });
    expect(project.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
    const worktree = (events[0]?.candidates as { worktree: string }[] | undefined)?.[0]?.worktree ?? '';
    expect(worktree.startsWith(project.worktreesDir)).toBe(true);
    expect(existsSync(worktree)).toBe(false);
  });
});

describe('bestof ls | head -1', () => {
  const { repo } = tempRepos();

  /** A repo with `count` finished runs whose names are `nameLength` characters or so. */
  function repoWithRuns(count: number, nameLength: number): string {
    const { dir } = repo();
    const [first, ...rest] = finishedRun();
    if (first?.type !== 'run.started') throw new Error('bug: finishedRun() starts with run.started');
    for (let i = 0; i < count; i++) {
      const runId = `20260101-${String(i).padStart(6, '0')}-abcd`;
      const runDir = join(dir, '.bestof', 'runs', runId);
      mkdirSync(runDir, { recursive: true });
      const started = { ...first, runId, name: `run ${i} ${'with a long name '.repeat(Math.ceil(nameLength / 17))}` };
      writeFileSync(join(runDir, 'events.jsonl'), `${JSON.stringify(started)}\n`);
      writeFileSync(join(runDir, 'state.json'), JSON.stringify(foldEvents([started, ...rest])));
    }
    return dir;
  }

  it('exits 0 and quietly with its first line printed, when the listing is longer than the pipe holds', async () => {
    // 200 runs with long names: some 400 KB of listing, far more than a pipe's 64 KB, so the
    // writes after head has gone meet a closed pipe.
    const dir = repoWithRuns(200, 2000);
    const result = await shell('$BESTOF ls | head -1; echo "bestof exited with ${PIPESTATUS[0]}"', dir, {});
    expect(result.stderr).toBe('');
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^20260101-\d{6}-abcd {2}run \d+ with a long name/);
    expect(lines[1]).toBe('bestof exited with 0');
  });

  it('says once on stderr that stdout failed when it is not a closed pipe (a full disk), and exits 0', async () => {
    const dir = repoWithRuns(3, 20);
    const result = await shell('$BESTOF ls > /dev/full; echo "bestof exited with $?"', dir, {});
    expect(result.stderr).toBe(
      'bestof: writing to stdout failed (ENOSPC); the rest of that output is dropped; bestof goes on, and a run keeps its whole record in its run folder\n',
    );
    expect(result.stdout).toBe('bestof exited with 0\n');
  });
});

describe('a closed terminal (SIGHUP)', () => {
  it("does not stop the run: it goes on to its end, records run.finished and exits with the run's code", async () => {
    project = makeProject();
    const readerGone = join(project.outside, 'go-on');
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'await-reader-gone-agent'))}\n${ADD_CHECKS}\n[select]\nmerge = "none"\n[sandbox]\nmode = "off"\n`,
      ),
    );
    const { child, done } = startCli(['run', spec, '--no-tui'], {
      cwd: project.repo.dir,
      worktreesDir: project.worktreesDir,
      env: { READER_GONE: readerGone },
    });
    let ended: string | undefined;
    void done.then((r) => (ended = `exit ${r.code} ${r.signal}\n${r.stdout}\n${r.stderr}`));
    // The agent is running (it waits for the file): the terminal goes away now.
    await waitUntil(
      () =>
        /waiting for the reader/.test(
          readdirSync(join(project!.repo.dir, '.bestof', 'runs'))
            .map((id) => readFileSync(join(project!.repo.dir, '.bestof', 'runs', id, 'events.jsonl'), 'utf8'))
            .join(''),
        ),
      'the agent to run',
      { ended: () => ended },
    );
    child.kill('SIGHUP');
    writeFileSync(readerGone, '');
    const result = await done;
    expect([result.code, result.signal], result.stderr).toEqual([0, null]);
    const runsDir = join(project.repo.dir, '.bestof', 'runs');
    const log = readFileSync(join(runsDir, readdirSync(runsDir)[0] as string, 'events.jsonl'), 'utf8');
    expect(log).toContain('"type":"run.finished"');
  });
});
