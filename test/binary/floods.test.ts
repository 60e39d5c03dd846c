/**
 * Floods of output through the real binary: an agent that prints 50 MB leaves a record of a
 * few KB of events (the raw stream in its capped output.log), bestof's own output stays short,
 * and `ls` / `show` read the run's snapshot, never a log of 100 MB whole.
 */
import { readdirSync, readFileSync, statSync, truncateSync, writeFileSync, mkdirSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/engine/record/events.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { runCli, type CliResult } from '../helpers/cli.js';
import { ADD_CHECKS, FIXTURE_BIN, makeProject, specToml, type Project } from '../helpers/project.js';
import type { EventLine } from '../helpers/run-record.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { candidate, finishedRun, runStarted, stamp } from '../ui/scripted-runs.js';

const MB = 1 << 20;

/** Every file's size under a folder, added up. */
function folderBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
  }
  return total;
}

describe('an agent that prints 50 MB of output', () => {
  let project: Project;
  let result: CliResult;
  let runDir: string;

  beforeAll(async () => {
    project = makeProject();
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'flood-agent'))}\n${ADD_CHECKS}\n[select]\nmerge = "none"\n`,
      ),
    );
    result = await runCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const runsDir = join(project.repo.dir, '.bestof', 'runs');
    runDir = join(runsDir, readdirSync(runsDir)[0] as string);
  });
  afterAll(() => {
    if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
  });

  it('finishes normally, with the winner it would have without the flood', () => {
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as { winner: string; status: string };
    expect(report).toMatchObject({ status: 'winner', winner: 'c1' });
  });

  it('records a few KB of events: the start of the flood, a line that says how much was left out, and the last line', () => {
    expect(statSync(join(runDir, 'events.jsonl')).size).toBeLessThan(2 * MB);
    const events = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EventLine);
    const activity = events.filter((e) => e.type === 'candidate.activity').map((e) => String(e.text));
    expect(activity[0]).toBe('starting the build');
    // The note and the agent's last line end the call (the last line after the note when it was held, as it is unless a window ends just before it).
    const note = /^… [\d,]+ lines of output not recorded here \(see candidates\/c1\/iteration-1\/output\.log in the run folder\)$/;
    expect(activity.slice(-2)).toEqual(expect.arrayContaining([expect.stringMatching(note), 'done: add() fixed']));
    expect(activity.filter((text) => text.includes('not recorded here'))).toHaveLength(1);
  });

  it("keeps bestof's own output short", () => {
    expect(result.stdout.length).toBeLessThan(MB);
    expect(result.stdout).toContain('lines of output not recorded here');
  });

  it('shows and lists the run', async () => {
    const shown = await runCli(['show', '--json'], { cwd: project.repo.dir });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'winner', winner: 'c1' });
    const listed = await runCli(['ls'], { cwd: project.repo.dir });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/ winner .*winner c1 \(flood-agent\)/);
  });

  // Needs src/process/run-process.ts to write `logFile` through openCappedLog
  // (src/process/capped-log.ts): until then output.log holds all 50 MB.
  it('leaves a run folder of a few MB: the raw output is kept head and tail', () => {
    expect(folderBytes(runDir)).toBeLessThan(5 * MB);
    const log = readFileSync(join(runDir, 'candidates', 'c1', 'iteration-1', 'output.log'), 'utf8');
    expect(log.startsWith('starting the build\n')).toBe(true);
    expect(log).toMatch(/\n\[bestof: [\d,]+ bytes of output cut here; this log keeps the first 1 MB and the last 1 MB\]\n/);
    expect(log.endsWith('fixing add()\ndone: add() fixed\n')).toBe(true);
  });
});

describe('an agent that prints a burst, then goes quiet', () => {
  let project: Project | undefined;
  afterEach(() => {
    if (!process.env.KEEP_TEST_DIRS) project?.cleanup();
    project = undefined;
  });

  it('has its newest line recorded when the window ends, while it still runs (the dashboard shows it)', async () => {
    project = makeProject();
    const runsDir = join(project.repo.dir, '.bestof', 'runs');
    // Without the sandbox, so that the agent can read the run's event log.
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'held-line-agent'))}\nenv = { RUNS_DIR = ${JSON.stringify(runsDir)} }\n${ADD_CHECKS}\n[select]\nmerge = "none"\n[sandbox]\nmode = "off"\n`,
      ),
    );
    const result = await runCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const runDir = join(runsDir, readdirSync(runsDir)[0] as string);
    const activity = readFileSync(join(runDir, 'events.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as EventLine)
      .filter((e) => e.type === 'candidate.activity')
      .map((e) => e.text);
    // The burst, then the newest line of the window, recorded while the agent waited for it.
    expect(activity.slice(0, 50)).toEqual(Array.from({ length: 50 }, (_, i) => `quick line ${i + 1}`));
    expect(activity[50]).toBe('quick line 100');
    // Then the agent's answer and the note of the lines left out (the answer comes last if it was held, as it is when it follows within the window).
    expect(activity.slice(51).sort()).toEqual(
      ['saw my last line in the record', '… 49 lines of output not recorded here (see candidates/c1/iteration-1/output.log in the run folder)'].sort(),
    );
  });
});

describe('ls and show on a run with a huge event log', () => {
  const { repo } = tempRepos();

  /** A run folder in a real repo with this event log (as text) and, if given, this state.json. */
  function runFolder(runId: string, log: string, state?: unknown): { repoDir: string; runDir: string } {
    const { dir } = repo();
    const runDir = join(dir, '.bestof', 'runs', runId);
    mkdirSync(runDir, { recursive: true });
    writeFileSync(join(runDir, 'events.jsonl'), log);
    if (state !== undefined) writeFileSync(join(runDir, 'state.json'), JSON.stringify(state, null, 2));
    return { repoDir: dir, runDir };
  }

  it('reads the snapshot (state.json), not the log: a log that breaks off after its first line into 100 MB of garbage still shows the finished run', async () => {
    const events = finishedRun();
    // What a fold of this log would say: only run.started parses, so "interrupted".
    const { repoDir, runDir } = runFolder('20260101-000000-flood', `${JSON.stringify(events[0])}\n`, foldEvents(events));
    truncateSync(join(runDir, 'events.jsonl'), 100 * MB);
    const listed = await runCli(['ls'], { cwd: repoDir });
    expect(listed.stderr).toBe('');
    expect(listed.stdout).toMatch(/^20260101-000000-flood {2}demo +winner +3 candidates .* winner c1 \(thorough\)\n$/);
    const shown = await runCli(['show', '--json'], { cwd: repoDir });
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ status: 'winner', winner: 'c1' });
    const markdown = await runCli(['show', '--no-tui'], { cwd: repoDir });
    expect(markdown.stdout).toContain('c1 (thorough) won');
  });

  it('folds the log when the snapshot is missing or broken, streaming it: 100 MB of events under a 64 MB heap', async () => {
    const c1 = candidate(1, 'chatty');
    const head = stamp([runStarted([c1]), { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 }]);
    const { repoDir, runDir } = runFolder('20260101-000000-old', head.map((e) => `${JSON.stringify(e)}\n`).join(''), { not: 'a run state' });
    // A log of an older bestof, one event per line of agent output.
    const fd = openSync(join(runDir, 'events.jsonl'), 'a');
    const t = head[1]?.t ?? '';
    const line = (i: number): string =>
      `${JSON.stringify({ t, type: 'candidate.activity', candidate: 'c1', iteration: 1, text: `line ${i} ${'x'.repeat(100)}` } satisfies RunEvent)}\n`;
    let written = 0;
    for (let i = 0; written < 100 * MB; ) {
      const block = Array.from({ length: 1000 }, () => line(i++)).join('');
      writeSync(fd, block);
      written += block.length;
    }
    // The last event: the fold went all the way through.
    writeSync(fd, `${JSON.stringify({ t, type: 'run.warning', message: 'the end of the log' } satisfies RunEvent)}\n`);
    closeSync(fd);
    const shown = await runCli(['show', '--json'], { cwd: repoDir, env: { NODE_OPTIONS: '--max-old-space-size=64' } });
    expect(shown.stderr).toBe('');
    expect(shown.code).toBe(0);
    const report = JSON.parse(shown.stdout) as { status: string; warnings: string[]; candidates: { id: string; status: string }[] };
    expect(report.status).toBe('running');
    expect(report.warnings).toEqual(['the end of the log']);
    expect(report.candidates.map((c) => [c.id, c.status])).toEqual([['c1', 'running']]);
    const listed = await runCli(['ls'], { cwd: repoDir, env: { NODE_OPTIONS: '--max-old-space-size=64' } });
    expect(listed.stdout).toMatch(/^20260101-000000-old {2}demo +interrupted +1 candidate /);
  });
});
