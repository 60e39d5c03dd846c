/**
 * `bestof send` and `bestof stop` to a run that is over: refused with exit 2, saying which
 * state the run ended in, and nothing written to any candidate's channel. To an interrupted run
 * (its bestof process is gone), the message waits for `bestof resume`, and the output says so.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { onlyRunDir } from '../helpers/loop.js';
import { ADD_CHECKS, FIX_SCRIPT, makeProject, specToml, type Project } from '../helpers/project.js';
import { candidate, runStarted, stamp } from '../ui/scripted-runs.js';

let project: Project;
afterEach(() => project?.cleanup());

const cli = (args: string[]) => runCli(args, { cwd: project.repo.dir, worktreesDir: project.worktreesDir });

/** Every channel file of the run folder (there is none until something is sent). */
function channels(runDir: string): string[] {
  const dir = join(runDir, 'candidates');
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((id) => existsSync(join(dir, id, 'channel.jsonl')));
}

describe('send and stop', () => {
  it('to a finished run: exit 2, the run is over and how it ended, and nothing written', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    const spec = project.writeOutside(
      'spec.toml',
      specToml(
        project.repo.dir,
        `[parallel]\ncandidates = 1\n[provider]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n${ADD_CHECKS}\n[select]\nmerge = "branch"\n`,
      ),
    );
    expect((await cli(['run', spec])).code).toBe(0);
    const runDir = onlyRunDir(project.repo.dir);
    const runId = runDir.split('/').pop() as string;
    const log = readFileSync(join(runDir, 'events.jsonl'), 'utf8');

    for (const args of [
      ['send', runId, 'c1', 'Use tabs.'],
      ['send', runId, 'Use tabs.'],
      ['stop', runId, 'c1'],
      ['stop', runId],
    ]) {
      const result = await cli(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(
          `^bestof: run ${runId} is over \\(winner c1, finished \\d{4}-[^)]+\\); nothing was (sent|stopped): .*\\(start a new run with \`bestof run\`\\)\\n$`,
        ),
      );
    }
    expect(channels(runDir)).toEqual([]);
    expect(readFileSync(join(runDir, 'events.jsonl'), 'utf8')).toBe(log);
  });

  it('to an interrupted run: the message waits in the channel for `bestof resume`, and the output says so', async () => {
    project = makeProject();
    // The record of a run whose bestof was killed during c1's first iteration: no run.finished, no run.pid.
    const runDir = join(project.repo.dir, '.bestof', 'runs', 'r-int');
    mkdirSync(runDir, { recursive: true });
    const events = stamp([
      runStarted([candidate(1, 'fix')], { runId: 'r-int', repo: project.repo.dir, runDir }),
      { type: 'candidate.status', candidate: 'c1', status: 'running', iteration: 1 },
    ]);
    writeFileSync(join(runDir, 'events.jsonl'), events.map((e) => `${JSON.stringify(e)}\n`).join(''));

    const sent = await cli(['send', 'r-int', 'c1', 'Use tabs.']);
    expect(sent.code).toBe(0);
    expect(sent.stdout).toBe(
      'sent to c1; it goes into the next prompt of each; run r-int is interrupted (no bestof process runs it): it is read when you resume it with `bestof resume r-int`\n',
    );
    expect(channels(runDir)).toEqual(['c1']);
  });
});
