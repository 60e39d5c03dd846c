/**
 * What setup is doing, as it does it: each step reported as it starts, and a slow setup command
 * reported again while it runs, as the plain reporter prints it and the dashboard's row shows it.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { prepareWorkspace } from '../../src/engine/workspace/workspace.js';
import { formatEvent } from '../../src/ui/plain-reporter.js';
import { tempRepos } from '../helpers/temp-repo.js';
import { candidate, runStarted, stamp } from '../ui/scripted-runs.js';

const { repo, tempDir } = tempRepos();

describe('setup progress', () => {
  it('the plain reporter says what setup is doing: the copy and its size, the link, each command, and a slow one again while it runs', async () => {
    const r = repo({ 'README.md': '# app\n', '.gitignore': 'node_modules\n.env\n' });
    r.write('.env', 'A=1\n');
    r.write('node_modules/dep/index.js', 'x'.repeat(2048));
    const outside = tempDir();
    const runDir = join(outside, 'run');
    mkdirSync(runDir, { recursive: true });
    const go = join(outside, 'go');
    const lines: string[] = [];
    const made = await prepareWorkspace({
      mode: 'new',
      repoRoot: r.dir,
      worktree: join(outside, 'worktrees', 'r1', 'c1'),
      branch: 'bestof/r1/c1',
      baseCommit: r.git('rev-parse', 'HEAD'),
      keptRef: 'refs/bestof/r1/c1/kept',
      copy: ['.env'],
      link: ['node_modules'],
      // The slow command ends only once the test has seen it reported as still running.
      commands: ['echo first', `while [ ! -f ${go} ]; do sleep 0.05; done`],
      commandTimeoutMs: 60_000,
      env: process.env,
      logFile: join(runDir, 'setup.log'),
      setupPathsFile: join(runDir, 'setup-paths.json'),
      progressEveryMs: 100,
      onProgress: (progress) => {
        lines.push(formatEvent({ t: '2026-01-01T00:00:00.000Z', type: 'candidate.setup_progress', candidate: 'c1', ...progress }));
        if (progress.text.startsWith('command 2/2') && /running for \d+s$/.test(progress.text) && !existsSync(go)) writeFileSync(go, '');
      },
      signal: new AbortController().signal,
    });
    expect(made.ok).toBe(true);
    // How often the quick first command is reported again depends on the machine's load: not looked at.
    const shown = lines.filter((line) => !/command 1\/2 .* running for/.test(line));
    const heartbeat = shown.findIndex((line) => / running for \d+s$/.test(line));
    expect(shown.slice(0, heartbeat + 1)).toEqual([
      'c1 setup: copying .env (4 B)',
      'c1 setup: linking node_modules',
      'c1 setup: command 1/2 `echo first` running',
      expect.stringMatching(/^c1 setup: command 2\/2 `while \[ ! -f .+go \]; do sleep 0\.05; done` running$/),
      expect.stringMatching(/^c1 setup: command 2\/2 `while .+` running for \d+s$/),
    ]);
    // Once the command has ended, nothing more is said about it.
    const count = lines.length;
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(lines.length).toBe(count);
  });

  it("the dashboard's row shows the latest step as the candidate's activity", () => {
    const state = foldEvents(
      stamp([
        runStarted([candidate(1, 'claude', 'claude')]),
        { type: 'candidate.setup_progress', candidate: 'c1', step: 'command', text: 'command 1/1 `npm ci` running for 20s' },
      ]),
    );
    expect(state.candidates.c1?.lastActivity).toBe('setup: command 1/1 `npm ci` running for 20s');
  });
});
