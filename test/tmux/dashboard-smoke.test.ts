/**
 * The real `bestof` binary on a real terminal (tmux): the live dashboard, keys, the detail
 * view, cancelling with q, the compare view at the end of the demo, and `bestof show`.
 * Read with capture-pane, driven with send-keys; every wait polls the screen.
 */
import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BESTOF_BIN, PROJECT_ROOT } from '../helpers/cli.js';
import { makeTempDir, makeTempRepo, type TempRepo } from '../helpers/temp-repo.js';
import { TmuxSession, tmuxAvailable } from './terminal.js';

let repo: TempRepo | undefined;
let tmux: TmuxSession | undefined;
const scratch: string[] = [];
afterEach(() => {
  tmux?.kill();
  repo?.cleanup();
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
  tmux = undefined;
  repo = undefined;
});

/** Ink is interactive only outside CI; the test runner's own CI variables must not reach it. */
const UNSET = ['CI', 'CONTINUOUS_INTEGRATION', 'NO_COLOR', 'FORCE_COLOR'];

function bestof(args: readonly string[], cwd: string, size: { readonly columns: number; readonly rows: number } = { columns: 120, rows: 40 }): TmuxSession {
  const worktrees = makeTempDir();
  scratch.push(worktrees);
  return new TmuxSession([process.execPath, BESTOF_BIN, ...args], {
    cwd,
    env: { BESTOF_WORKTREES_DIR: join(worktrees, 'worktrees'), TERM: 'xterm-256color' },
    unset: UNSET,
    ...size,
  });
}

/** How long the demo may take to reach its compare view before a test gives up (it polls, and goes on as soon as it is there). */
const DEMO_RUN_LIMIT_MS = 150_000;

const LIVE_SPEC = `name = "live"

[prompt]
text = "Write answer.txt."

[parallel]
max_concurrency = 3

[[parallel.providers]]
kind = "script"
script = "slow.toml"
label = "slow"

[[parallel.providers]]
kind = "script"
script = "quick.toml"
label = "quick"

[checks]
[[checks.items]]
name = "answer"
command = "test -f answer.txt"
score = 10

[select]
merge = "branch"
`;

const SLOW_SCRIPT = `
[[steps]]
say = "thinking very slowly"
[[steps]]
write = "draft.txt"
content = "half of the answer\\n"
[[steps]]
sleep = "120s"
`;

const QUICK_SCRIPT = `
[[steps]]
say = "writing the answer"
[[steps]]
write = "answer.txt"
content = "42\\n"
`;

describe.skipIf(!tmuxAvailable())('the dashboard on a real terminal', () => {
  it("shows the live run, opens a candidate's details, comes back, and q + y cancels", async () => {
    repo = makeTempRepo({ 'README.md': '# live\n', 'live.toml': LIVE_SPEC, 'slow.toml': SLOW_SCRIPT, 'quick.toml': QUICK_SCRIPT });
    tmux = bestof(['run', 'live.toml'], repo.dir);

    let screen = await tmux.waitFor((s) => /c1 slow .* running/.test(s) && /c2 quick .*✓ done/.test(s), 'c1 running and c2 done');
    expect(screen).toMatch(/^bestof live · /m);
    expect(screen).toContain('1 running · 0 waiting · 1 done');
    expect(screen).toMatch(/› c1 slow/);
    expect(screen).toMatch(/c1 slow .* write draft.txt/);

    tmux.press('Down');
    await tmux.waitFor((s) => /› c2 quick/.test(s), 'the selection to move to c2');
    tmux.press('Enter');
    screen = await tmux.waitFor((s) => s.includes('c2 quick · script') && s.includes('Activity'), 'the details of c2');
    expect(screen).toMatch(/#1\s+success\s+10\/10 ✓answer/);
    expect(screen).toContain('writing the answer');

    tmux.press('Escape');
    screen = await tmux.waitFor((s) => s.includes('↑↓ select') && /› c2 quick/.test(s), 'the dashboard again');

    tmux.press('q');
    await tmux.waitFor((s) => s.includes('Cancel the run?'), 'the cancel question');
    tmux.press('y');
    screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof to exit');
    expect(screen).toContain('EXIT=130');
    expect(screen).toMatch(/run cancelled in .* \(exit 130\)/);
    // The slow candidate's work so far is kept, as after Ctrl-C on the plain path.
    expect(repo.git('for-each-ref', '--format=%(refname)', 'refs/bestof/')).toMatch(/refs\/bestof\/.*\/c1/);
  }, 120_000);

  it("ends the demo in the compare view; q quits with the run's exit code, and `bestof show` opens it again", async () => {
    repo = makeTempRepo();
    cpSync(join(PROJECT_ROOT, 'configs'), join(repo.dir, 'configs'), { recursive: true });
    repo.commitAll('add the demo');
    tmux = bestof(['run', 'configs/demo.toml'], repo.dir);

    // The demo's whole run: on a loaded machine it takes more than a minute.
    let screen = await tmux.waitFor(
      (s) => s.includes('winner c1 thorough') && s.includes("+    .normalize('NFKD')"),
      "the compare view with the winner's diff",
      DEMO_RUN_LIMIT_MS,
    );
    expect(screen).toMatch(/› 1\.\s+c1 thorough\s+100\/100 .*✓\s+✓\s+✓\s+winner/);
    expect(screen).toMatch(/3\.\s+c3 gamer\s+0\/100 .*TAMPERED/);
    expect(screen).toContain('Diff of c1 thorough against base');

    tmux.press('Down');
    screen = await tmux.waitFor((s) => s.includes('Diff of c2 hasty') && s.includes('+  return title.toLowerCase()'), 'the diff of c2');
    expect(screen).toMatch(/› 2\.\s+c2 hasty/);

    // Choosing the one that tampered: the question says what the checks found before anything is done.
    tmux.press('Down');
    tmux.press('w');
    screen = await tmux.waitFor((s) => s.includes('Make c3 gamer the winner'), 'the confirmation for c3');
    expect(screen.replace(/\s+/g, ' ')).toMatch(/It scored 0\/100 and TAMPERED: it changed 3 frozen paths/);
    tmux.press('n');
    screen = await tmux.waitFor((s) => !s.includes('Make c3 gamer the winner'), 'the confirmation to close');

    tmux.press('q');
    screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof to exit');
    expect(screen).toContain('EXIT=0');
    expect(screen).toContain('c1 (thorough) won');
    tmux.kill();

    tmux = bestof(['show'], repo.dir);
    screen = await tmux.waitFor((s) => s.includes('winner c1 thorough') && s.includes('q quit'), 'the compare view of `bestof show`');
    tmux.press('q');
    screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof show to exit');
    expect(screen).toContain('EXIT=0');
  }, 300_000);

  it.each([60, 80])(
    'on a %i-column terminal: the footer keeps `q quit` and `? keys`, and the merge command is whole on screen and after the exit',
    async (columns) => {
      repo = makeTempRepo();
      cpSync(join(PROJECT_ROOT, 'configs'), join(repo.dir, 'configs'), { recursive: true });
      repo.commitAll('add the demo');
      tmux = bestof(['run', 'configs/demo.toml'], repo.dir, { columns, rows: 24 });

      // The demo keeps the winner's work on a branch (merge = "branch"): the command names it.
      const command = /`git merge bestof\/[\w-]+\/c1`/;
      let screen = await tmux.waitFor((s) => s.includes('winner c1 thorough') && s.includes('Diff of c1 thorough'), 'the compare view', DEMO_RUN_LIMIT_MS);
      const lines = screen.split('\n').map((line) => line.trimEnd());
      for (const line of lines) expect([...line].length).toBeLessThanOrEqual(columns);
      expect(lines.filter((line) => line !== '').at(-1)).toMatch(/q quit {2}\? keys$/);
      expect(lines.some((line) => command.test(line))).toBe(true);

      tmux.press('q');
      screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof to exit');
      expect(screen).toContain('EXIT=0');
      // The closing lines, after the UI: wrapped between words, the command on one line.
      // (The terminal's own wrapping would split a word at the last column: joined with spaces, the
      // lines would read "merge it w ith".)
      const closing = screen
        .slice(screen.lastIndexOf('run winner in'), screen.lastIndexOf('report:'))
        .trimEnd()
        .split('\n')
        .map((line) => line.trimEnd());
      expect(closing.join(' ')).toMatch(
        /^run winner in \S+ \(exit 0\): c1 \(thorough\) won; the winner's work is on branch bestof\/[\w-]+\/c1 \(merge it with `git merge bestof\/[\w-]+\/c1`\)$/,
      );
      expect(closing.some((line) => command.test(line))).toBe(true);
      // Then where report.html is and how to see it again (its path may be wider than the terminal).
      const way = screen.slice(screen.lastIndexOf('report:'), screen.indexOf('EXIT=')).replace(/\s+/g, '');
      expect(way).toMatch(/^report:\/\S+\/report\.html\(`bestofshow[\w-]+`showsitagain,`bestofshow[\w-]+--html`writesitagain\)$/);
    },
    240_000,
  );

  it('stays plain with --no-tui on the same terminal', async () => {
    repo = makeTempRepo();
    cpSync(join(PROJECT_ROOT, 'configs'), join(repo.dir, 'configs'), { recursive: true });
    repo.commitAll('add the demo');
    tmux = bestof(['run', 'configs/demo.toml', '--no-tui'], repo.dir);
    const screen = await tmux.waitFor((s) => s.includes('EXIT='), 'bestof to exit');
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/^c1 check basic: pass/m);
    expect(screen).not.toContain('↑↓');
  }, 120_000);
});
