/**
 * `bestof bench` on a real terminal (tmux, 80x24): the matrix filling in, q cancelling, and
 * --no-tui staying plain. In the tmux tier (test/tiers.ts): it drives a real terminal.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TrialRecord } from '../../src/bench/types.js';
import { BESTOF_BIN } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { TmuxSession, tmuxAvailable } from './terminal.js';

/** A bench of one task: `quick` writes the answer, `slow` talks and sleeps (until it is cancelled). */
function makeBench(agents: readonly ('quick' | 'slow')[]): string {
  const dir = makeTempDir('bestof-bench-view-');
  made.push(dir);
  mkdirSync(join(dir, 'tasks', 't1'), { recursive: true });
  writeFileSync(join(dir, 'tasks', 't1', 'README.md'), '# t1\n');
  writeFileSync(
    join(dir, 'tasks', 't1.toml'),
    '[prompt]\ntext = "Write answer.txt."\n\n[[checks.items]]\nname = "answer"\ncommand = "test -f answer.txt"\nkind = "fail_to_pass"\nscore = 1\n',
  );
  mkdirSync(join(dir, 'agents'));
  writeFileSync(join(dir, 'agents', 'quick.toml'), '[[steps]]\nwrite = "answer.txt"\ncontent = "42\\n"\n');
  writeFileSync(join(dir, 'agents', 'slow.toml'), '[[steps]]\nsay = "thinking very slowly"\n[[steps]]\nsleep = "120s"\n');
  writeFileSync(
    join(dir, 'bench.toml'),
    [
      'name = "tui"',
      'trials = 2',
      'max_concurrency = 2',
      '[[tasks]]\nid = "t1"\nspec = "tasks/t1.toml"\nfolder = "tasks/t1"\nbar = 0.5\n',
      ...agents.map((a) => `[[agents]]\nid = "${a}"\nkind = "script"\nscript = "agents/${a}.toml"\n`),
    ].join('\n'),
  );
  return dir;
}

const made: string[] = [];

/** Waits until `count` trial runs of the bench in `dir` have an event log. */
async function waitForRuns(dir: string, count: number): Promise<void> {
  const runs = join(dir, '.bestof', 'bench', 'tui', 'repos', 't1', '.bestof', 'runs');
  const logged = (): number => (existsSync(runs) ? readdirSync(runs).filter((id) => existsSync(join(runs, id, 'events.jsonl'))).length : 0);
  const deadline = Date.now() + 60_000;
  while (logged() < count) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${count} trial runs in ${runs}; ${logged()} have an event log`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
let tmux: TmuxSession | undefined;
afterEach(() => {
  tmux?.kill();
  tmux = undefined;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function bench(args: readonly string[], cwd: string): TmuxSession {
  return new TmuxSession([process.execPath, BESTOF_BIN, 'bench', 'bench.toml', ...args], {
    cwd,
    env: { BESTOF_WORKTREES_DIR: join(cwd, 'worktrees'), TERM: 'xterm-256color' },
    // Ink is interactive only outside CI; the test runner's own CI variables must not reach it.
    unset: ['CI', 'CONTINUOUS_INTEGRATION', 'NO_COLOR', 'FORCE_COLOR'],
    columns: 80,
    rows: 24,
  });
}

describe.skipIf(!tmuxAvailable())('`bestof bench` on a real terminal', () => {
  it('fills the matrix in as trials finish; q cancels the running trials, the last frame stays, exit 130', async () => {
    const dir = makeBench(['quick', 'slow']);
    tmux = bench([], dir);
    let screen = await tmux.waitFor((s) => /^t1\s+✓✓\s+◐◐/m.test(s), 'quick resolved twice and slow running twice');
    // Both slow trials' runs have begun (their event logs exist), so that q cancels real runs.
    await waitForRuns(dir, 4);
    expect(screen).toMatch(/^bestof bench tui · /m);
    expect(screen).toContain('2/4 done · 2 running · 0 waiting · ETA ');
    expect(screen).toMatch(/^resolved\s+2\/2 100%\s+–/m);
    expect(screen).toMatch(/^✓ t1\/quick#\d: resolved \(score 1\/1/m);
    expect(screen).toContain('q or Ctrl-C: cancel the bench');

    tmux.press('q');
    screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof bench to exit', 90_000);
    expect(screen).toContain('EXIT=130');
    expect(screen).toMatch(/^bestof bench tui · cancelled · /m);
    expect(screen).toContain('4/4 done · 0 running · 0 waiting');
    // The cancelled runs are not resolved, as the reports count them. (Once, in CI at 38e3ff9, one
    // slow trial ended "infrastructure_failed: lost during setup" instead of cancelled, which did not
    // come back in 8 runs of this file and 2 of the tier; the records' reasons say why, if it does.)
    const recorded = (): string => readFileSync(join(dir, '.bestof', 'bench', 'tui', 'bench.json'), 'utf8');
    expect(screen, `the trials as recorded: ${recorded()}`).toMatch(/^t1\s+✓✓\s+✗✗/m);
    expect(screen).toContain('cancelled: 0 trials recorded "not run"; go on with --resume');
    // The last frame stays above the lines that follow it (this one wraps at 80: the temp path is long).
    expect(screen.replace(/\n/g, '')).toMatch(/written: .*bench\.json, bench\.md, junit\.xml/);
    const file = JSON.parse(readFileSync(join(dir, '.bestof', 'bench', 'tui', 'bench.json'), 'utf8')) as { records: TrialRecord[] };
    expect(file.records.map((r) => `${r.agent}#${r.trial} ${r.outcome.status}`)).toEqual([
      'quick#1 winner',
      'quick#2 winner',
      'slow#1 cancelled',
      'slow#2 cancelled',
    ]);
  }, 120_000);

  it('stays plain with --no-tui on the same terminal', async () => {
    const dir = makeBench(['quick']);
    tmux = bench(['--no-tui'], dir);
    const screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof bench to exit', 90_000);
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/^\[1\/2\] t1\/quick#\d: resolved/m);
    expect(screen).not.toContain('q or Ctrl-C');
  }, 120_000);
});
