/**
 * A run's record says its format (run.started's recordFormat, src/engine/record/events.ts
 * RECORD_FORMAT): a bestof refuses to act on a run a newer bestof recorded, and still reads a
 * run an older bestof recorded before the number existed. Through the real binary, on a run
 * killed with SIGKILL in its first iteration.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { channelFile } from '../../src/engine/loop/channel.js';
import { RECORD_FORMAT } from '../../src/engine/record/events.js';
import { runCli, startCli } from '../helpers/cli.js';
import { onlyRunDir } from '../helpers/loop.js';
import { makeProject, type Project } from '../helpers/project.js';
import { readEventLines } from '../helpers/run-record.js';
import { waitUntil } from '../helpers/wait.js';

let project: Project;
afterEach(() => project?.cleanup());

/** run.started (the log's first line) and state.json with `recordFormat` set to `format`, or without it (undefined). */
function recordAs(runDir: string, format: number | undefined): void {
  const log = join(runDir, 'events.jsonl');
  const [first = '', ...rest] = readFileSync(log, 'utf8').split('\n');
  const started = JSON.parse(first) as Record<string, unknown>;
  expect(started.type).toBe('run.started');
  if (format === undefined) delete started.recordFormat;
  else started.recordFormat = format;
  writeFileSync(log, [JSON.stringify(started), ...rest].join('\n'));
  const snapshot = join(runDir, 'state.json');
  if (existsSync(snapshot)) {
    const state = JSON.parse(readFileSync(snapshot, 'utf8')) as Record<string, unknown>;
    if (format === undefined) delete state.recordFormat;
    else state.recordFormat = format;
    writeFileSync(snapshot, JSON.stringify(state));
  }
}

describe("a run's record format", () => {
  it('refuses to resume, show, clean, send to, stop or attach to a run a newer bestof recorded (ls names it); resumes one recorded before the format was said', async () => {
    project = makeProject();
    const agent = project.writeOutside('agent.toml', '[[steps]]\nwrite = "done.txt"\ncontent = "done\\n"\n[[steps]]\nsleep = "2s"\n');
    const spec = project.writeOutside(
      'spec.toml',
      `name = "fmt"\nrepo = ${JSON.stringify(project.repo.dir)}\n[prompt]\ntext = "Write done.txt."\n[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(agent)}\n[[checks.items]]\nname = "done"\ncommand = "test -f done.txt"\n[select]\nmerge = "branch"\n`,
    );
    const { child, done } = startCli(['run', spec, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    const events = () => (existsSync(join(project.repo.dir, '.bestof', 'runs')) ? readEventLines(join(onlyRunDir(project.repo.dir), 'events.jsonl')) : []);
    await waitUntil(() => events().some((e) => e.type === 'candidate.status' && e.status === 'running'), 'the agent to start');
    child.kill('SIGKILL');
    await done;
    const runDir = onlyRunDir(project.repo.dir);
    const runId = runDir.split('/').pop() as string;
    const started = JSON.parse(readFileSync(join(runDir, 'events.jsonl'), 'utf8').split('\n')[0] ?? '') as {
      recordFormat?: number;
      candidates: { worktree: string }[];
    };
    // What this bestof writes: the format it knows.
    expect(started.recordFormat).toBe(RECORD_FORMAT);
    const worktree = started.candidates[0]?.worktree ?? '';
    expect(existsSync(worktree)).toBe(true);

    recordAs(runDir, RECORD_FORMAT + 1);
    const logBefore = readFileSync(join(runDir, 'events.jsonl'), 'utf8');
    const channel = channelFile(runDir, 'c1');
    const channelBefore = existsSync(channel) ? readFileSync(channel, 'utf8') : undefined;
    const newer = `run ${runId} was recorded by a newer bestof (record format ${RECORD_FORMAT + 1}`;
    // send, stop and attach too: a message or a stop written to a channel the newer bestof reads
    // in its own way, or a session looked up in a record this one may misread.
    for (const command of [
      ['resume', runId],
      ['show', runId],
      ['clean', runId],
      ['send', runId, 'c1', 'hello'],
      ['stop', runId],
      ['attach', runId],
    ]) {
      const refused = await runCli(command, { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
      expect(refused.stderr, command.join(' ')).toContain(newer);
      expect(refused.code, command.join(' ')).toBe(2);
    }
    const listed = await runCli(['ls'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect([listed.code, listed.stdout]).toEqual([0, `${runId}  recorded by a newer bestof (record format ${RECORD_FORMAT + 1})\n`]);
    const cleaned = await runCli(['clean'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(cleaned.code).toBe(0);
    expect(cleaned.stdout).toContain(`skip ${runId}: recorded by a newer bestof (record format ${RECORD_FORMAT + 1}); clean it with that bestof`);
    // Nothing of the run was touched: its log, its channel, its worktree, its branch.
    expect(readFileSync(join(runDir, 'events.jsonl'), 'utf8')).toBe(logBefore);
    expect(existsSync(channel) ? readFileSync(channel, 'utf8') : undefined).toBe(channelBefore);
    expect(existsSync(worktree)).toBe(true);
    expect(project.repo.git('branch', '--list', `bestof/${runId}/c1`)).not.toBe('');

    // A run an older bestof recorded says no format: format 1, resumed as any other.
    recordAs(runDir, undefined);
    const resumed = await runCli(['resume', runId, '--no-tui'], { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
    expect(resumed.stdout + resumed.stderr).toContain('resuming c1');
    expect(resumed.code).toBe(0);
    const report = JSON.parse(readFileSync(join(runDir, 'report.json'), 'utf8')) as { status: string; winner: string | null };
    expect([report.status, report.winner]).toEqual(['winner', 'c1']);
  });
});
