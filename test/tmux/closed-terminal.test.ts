/**
 * The terminal closed in the middle of a run (its tmux server killed: the pane's terminal hangs
 * up, SIGHUP to the programs in it). The run goes on to its end and exits with its own code, not
 * with Node's native abort in ResetStdio (SIGABRT, "Assertion failed ... node::ResetStdio"), which
 * Node 20 and 22 hit when they put a terminal that is gone back in its first mode
 * (src/cli/terminal-exit.ts). The shell around bestof ignores SIGHUP (Node resets that for its
 * own process) and writes bestof's exit status to a file, since the terminal is gone.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BESTOF_BIN, PROJECT_ROOT } from '../helpers/cli.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { waitUntil } from '../helpers/wait.js';
import { TmuxSession, shellQuote, tmuxAvailable } from './terminal.js';

let repo: TempRepo | undefined;
let tmux: TmuxSession | undefined;
const scratch: string[] = [];
afterEach(() => {
  tmux?.kill();
  repo?.cleanup();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!tmuxAvailable())('a terminal closed during a run', () => {
  it("the run goes on to its end and bestof exits with the run's code, without a native abort", async () => {
    repo = makeTempRepo();
    cpSync(join(PROJECT_ROOT, 'configs'), join(repo.dir, 'configs'), { recursive: true });
    repo.commitAll('add the demo');
    const outside = makeTempDir();
    scratch.push(outside);
    const status = join(outside, 'status');
    const stderr = join(outside, 'stderr');
    const bestof = [process.execPath, BESTOF_BIN, 'run', 'configs/demo.toml'].map(shellQuote).join(' ');
    tmux = new TmuxSession(['sh', '-c', `trap '' HUP; ${bestof} 2> ${shellQuote(stderr)}; echo $? > ${shellQuote(status)}`], {
      cwd: repo.dir,
      env: { BESTOF_WORKTREES_DIR: join(outside, 'worktrees'), TERM: 'xterm-256color' },
      unset: ['CI', 'CONTINUOUS_INTEGRATION', 'NO_COLOR', 'FORCE_COLOR'],
    });
    // The dashboard is up (the terminal in raw mode, which Node restores at exit): the terminal goes.
    await tmux.waitFor((screen) => /c1 thorough/.test(screen), 'the dashboard');
    tmux.kill();
    tmux = undefined;
    await waitUntil(() => existsSync(status) && readFileSync(status, 'utf8').endsWith('\n'), 'bestof to exit', { attempts: 1500 });
    const err = readFileSync(stderr, 'utf8');
    expect(err).not.toContain('ResetStdio');
    // The demo's own code: a winner (0), whatever the terminal did.
    expect(readFileSync(status, 'utf8').trim(), err).toBe('0');
    const runs = join(repo.dir, '.bestof', 'runs');
    const [runId] = existsSync(runs) ? readdirSync(runs) : [];
    expect(readFileSync(join(runs, String(runId), 'events.jsonl'), 'utf8')).toContain('"type":"run.finished"');
  });
});
