/**
 * A worktree folder replaced by a link to the user's checkout, found by a bestof that did not see
 * it happen: the run was killed (kill -9) after an agent, or the code its checks ran, without the
 * sandbox, had renamed its folder and put the link there. `bestof resume` and `bestof clean` must
 * run nothing through the link: no stale lock cleared, no `.git` link repaired, no leftover work
 * saved (that would be the user's own uncommitted files, committed under the candidate's refs), no
 * removal. The candidate ends `worktree_replaced`; the link and the folder moved aside are left for
 * the user to look at.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { FIXTURE_BIN, makeProject, specToml, type Project } from '../helpers/project.js';
import { waitUntil } from '../helpers/wait.js';

let project: Project | undefined;
afterEach(() => {
  project?.cleanup();
  project = undefined;
});

const git = (cwd: string, ...args: string[]): string => execFileSync('git', args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/**
 * Starts `bestof run` of a spec with `providers` (TOML), sandbox `mode`, merge = "none" and one
 * check worth a point, kills it with SIGKILL once `until` holds, and returns the run's id. The
 * agents it leaves running are stopped by the next `bestof resume` or `bestof clean`.
 */
async function runAndKill(p: Project, providers: string, mode: 'off' | 'auto', until: () => boolean): Promise<string> {
  const spec = p.writeOutside(
    'spec.toml',
    specToml(p.repo.dir, `${providers}[select]\nmerge = "none"\n[sandbox]\nmode = "${mode}"\n[[checks.items]]\nname = "true"\ncommand = "true"\nscore = 1\n`),
  );
  const { child, done } = startCli(['run', spec], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: { TICK_FILE: join(p.outside, 'ticks.txt') } });
  let ended: string | undefined;
  void done.then((r) => (ended = `exit ${r.code}\n${r.stdout}\n${r.stderr}`));
  await waitUntil(until, 'the instant of the kill', { ended: () => ended });
  child.kill('SIGKILL');
  expect((await done).signal).toBe('SIGKILL');
  return readdirSync(join(p.repo.dir, '.bestof', 'runs'))[0] as string;
}

/**
 * A run of one ticking agent killed with SIGKILL, its worktree folder then moved aside and a link to
 * the user's checkout put in its place (what its agent did before the kill), and the user at work in
 * their checkout: an uncommitted edit, an untracked file, a git lock of their own.
 */
async function killedRunWithLink(p: Project): Promise<{ runId: string; worktree: string; tickFile: string; userState: () => Record<string, string> }> {
  const tickFile = join(p.outside, 'ticks.txt');
  const ticks = (): number => (existsSync(tickFile) ? readFileSync(tickFile, 'utf8').split('\n').filter(Boolean).length : 0);
  const runId = await runAndKill(
    p,
    `[parallel]\ncandidates = 1\n[provider]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'ticking-agent'))}\n`,
    'off',
    () => ticks() >= 2,
  );
  // The orphaned agent ticks on: `bestof resume` and `bestof clean` stop it first.
  const worktree = join(p.worktreesDir, runId, 'c1');
  writeFileSync(join(worktree, 'agent-work.txt'), "the agent's\n");
  renameSync(worktree, `${worktree}-aside`);
  symlinkSync(p.repo.dir, worktree);
  writeFileSync(join(p.repo.dir, 'README.md'), '# project, edited\n');
  writeFileSync(join(p.repo.dir, 'mine.txt'), "the user's\n");
  writeFileSync(join(p.repo.dir, '.git', 'index.lock'), '');
  const userState = (): Record<string, string> => ({
    head: readFileSync(join(p.repo.dir, '.git', 'HEAD'), 'utf8'),
    tip: git(p.repo.dir, 'rev-parse', 'HEAD'),
    readme: readFileSync(join(p.repo.dir, 'README.md'), 'utf8'),
    mine: readFileSync(join(p.repo.dir, 'mine.txt'), 'utf8'),
    lock: String(existsSync(join(p.repo.dir, '.git', 'index.lock'))),
  });
  return { runId, worktree, tickFile, userState };
}

/**
 * A run of two candidates killed with SIGKILL after c1 (a script agent) had finished and while c2 (a
 * ticking agent) runs.
 */
async function killedAfterC1Finished(p: Project, mode: 'off' | 'auto'): Promise<{ runId: string; runsDir: string; tickFile: string }> {
  const tickFile = join(p.outside, 'ticks.txt');
  const fix = p.writeOutside('fix.toml', '[[steps]]\nwrite = "fixed.txt"\ncontent = "done\\n"\n');
  const providers = `[parallel]\ncandidates = 2\n[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(fix)}\n[[parallel.providers]]\nkind = "command"\ncommand = ${JSON.stringify(join(FIXTURE_BIN, 'ticking-agent'))}\n`;
  const runsDir = join(p.repo.dir, '.bestof', 'runs');
  // The agent's ticks are not seen from here in the sandbox (its TICK_FILE is outside what it may write): the log says when it runs.
  const log = (): string =>
    existsSync(runsDir)
      ? readdirSync(runsDir)
          .map((id) => readFileSync(join(runsDir, id, 'events.jsonl'), 'utf8'))
          .join('')
      : '';
  const runId = await runAndKill(
    p,
    providers,
    mode,
    () => log().includes('"type":"candidate.finished","candidate":"c1"') && log().includes('"type":"candidate.status","candidate":"c2","status":"running"'),
  );
  return { runId, runsDir, tickFile };
}

describe("a worktree replaced by a link to the user's checkout before a kill -9", () => {
  it("`bestof resume` ends the candidate worktree_replaced and `bestof clean` leaves the link; nothing of the user's is saved, moved or cleaned", async () => {
    const p = (project = makeProject());
    const { runId, worktree, tickFile, userState } = await killedRunWithLink(p);
    const before = userState();

    const resumed = await runCli(['resume', runId], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: { TICK_FILE: tickFile, TICKS: '1' } });
    const out = `${resumed.stdout}\n${resumed.stderr}`;
    const report = JSON.parse(readFileSync(join(p.repo.dir, '.bestof', 'runs', runId, 'report.json'), 'utf8')) as {
      candidates: { id: string; reason: string | null }[];
    };
    expect(report.candidates.find((c) => c.id === 'c1')?.reason, out).toBe('worktree_replaced');
    expect(out).toContain(`its worktree folder ${worktree} is not the folder bestof made any more (it is now a symbolic link to ${p.repo.dir})`);
    expect(userState(), out).toEqual(before);
    // Nothing saved from the link: the user's files are under no ref of the run.
    expect(git(p.repo.dir, 'for-each-ref', '--format=%(refname)', `refs/bestof/${runId}/c1/leftover`), out).toBe('');
    expect(lstatSync(worktree).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(`${worktree}-aside`, 'agent-work.txt'), 'utf8')).toBe("the agent's\n");

    const cleaned = await runCli(['clean'], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
    const cleanOut = `${cleaned.stdout}\n${cleaned.stderr}`;
    expect(cleaned.code, cleanOut).toBe(0);
    expect(cleanOut).toContain(`leave ${worktree}`);
    expect(userState(), cleanOut).toEqual(before);
    expect(lstatSync(worktree).isSymbolicLink()).toBe(true);
  });

  it('`bestof clean` without a resume: it leaves the link and saves, unlocks and removes nothing through it', async () => {
    const p = (project = makeProject());
    const { runId, worktree, userState } = await killedRunWithLink(p);
    const before = userState();
    const cleaned = await runCli(['clean'], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
    const out = `${cleaned.stdout}\n${cleaned.stderr}`;
    expect(cleaned.code, out).toBe(0);
    expect(out).toContain(`leave ${worktree}: it is a symbolic link to ${p.repo.dir}, not the worktree folder bestof made for c1`);
    expect(userState(), out).toEqual(before);
    expect(git(p.repo.dir, 'for-each-ref', '--format=%(refname)', `refs/bestof/${runId}/c1/leftover`), out).toBe('');
    expect(lstatSync(worktree).isSymbolicLink()).toBe(true);
  });

  // Without the sandbox a finished candidate's record is scored again on resume (it could be forged),
  // which cannot happen through a link: it ends worktree_replaced. With it, its verified record
  // stands, and the run's end finds the link and leaves it.
  it.each(['off', 'auto'] as const)(
    "[sandbox %s] a candidate that had finished: nothing is run through the link, and the run's end leaves it",
    async (mode) => {
      const p = (project = makeProject());
      const { runId, runsDir, tickFile } = await killedAfterC1Finished(p, mode);

      const worktree = join(p.worktreesDir, runId, 'c1');
      renameSync(worktree, `${worktree}-aside`);
      symlinkSync(p.repo.dir, worktree);
      writeFileSync(join(p.repo.dir, 'README.md'), '# project, edited\n');
      writeFileSync(join(p.repo.dir, 'mine.txt'), "the user's\n");
      const userState = (): Record<string, string> => ({
        head: readFileSync(join(p.repo.dir, '.git', 'HEAD'), 'utf8'),
        tip: git(p.repo.dir, 'rev-parse', 'HEAD'),
        status: git(p.repo.dir, 'status', '--porcelain'),
        readme: readFileSync(join(p.repo.dir, 'README.md'), 'utf8'),
        mine: readFileSync(join(p.repo.dir, 'mine.txt'), 'utf8'),
      });
      const before = userState();

      const resumed = await runCli(['resume', runId], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: { TICK_FILE: tickFile, TICKS: '1' } });
      const out = `${resumed.stdout}\n${resumed.stderr}`;
      const report = JSON.parse(readFileSync(join(runsDir, runId, 'report.json'), 'utf8')) as {
        winner: string | null;
        candidates: { id: string; reason: string | null }[];
      };
      if (mode === 'off') {
        expect(out).toContain(`c1: ${worktree} is left as it is (not the folder bestof made: see above)`);
        expect(report.candidates.find((c) => c.id === 'c1')?.reason, out).toBe('worktree_replaced');
        expect(report.winner, out).toBe('c2');
      } else {
        expect(out).toContain(`c1: ${worktree} is left as it is (a symbolic link to ${p.repo.dir}, not the folder bestof made)`);
      }
      expect(userState(), out).toEqual(before);
      expect(git(p.repo.dir, 'for-each-ref', '--format=%(refname)', `refs/bestof/${runId}/c1/leftover`), out).toBe('');
      expect(lstatSync(worktree).isSymbolicLink()).toBe(true);
    },
  );

  // The same resume without the sandbox, the worktree a folder but its HEAD left on a commit that is
  // not on its branch (an agent can do that before it kills bestof): the record cannot be scored again
  // (reattaching would leave that commit behind), so its score does not stand.
  it('[sandbox off] a finished candidate whose record cannot be scored again counts no point and cannot win', async () => {
    const p = (project = makeProject());
    const { runId, runsDir, tickFile } = await killedAfterC1Finished(p, 'off');
    const worktree = join(p.worktreesDir, runId, 'c1');
    git(worktree, 'checkout', '--quiet', '--detach');
    git(worktree, '-c', 'user.name=a', '-c', 'user.email=a@b', 'commit', '--quiet', '--allow-empty', '-m', 'not on its branch');
    const resumed = await runCli(['resume', runId], { cwd: p.repo.dir, worktreesDir: p.worktreesDir, env: { TICK_FILE: tickFile, TICKS: '1' } });
    const out = `${resumed.stdout}\n${resumed.stderr}`;
    expect(out).toContain('c1: cannot score it again: ');
    expect(out).toContain('the score in its record cannot be verified, so it counts no point and it cannot win');
    const report = JSON.parse(readFileSync(join(runsDir, runId, 'report.json'), 'utf8')) as {
      winner: string | null;
      candidates: { id: string; score: number | null }[];
    };
    expect(report.candidates.find((c) => c.id === 'c1')?.score, out).toBe(0);
    expect(report.winner, out).toBe('c2');
  });
});
