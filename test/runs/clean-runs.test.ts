/**
 * `bestof clean --runs --older-than <age>`: old run folders and their refs/bestof/<run>/ refs go
 * only when nothing in them is unmerged; an unmerged winner is never touched; the per-run
 * folders left empty under the worktrees root go with every clean. Real repos, real runs; a run
 * is made old by moving its recorded start (run.started) back, as the folder's mtime is not used.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseAge } from '../../src/cli/older-than-option.js';
import { runStartedMs } from '../../src/engine/cleanup/old-runs.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { runCli } from '../helpers/cli.js';
import { ADD_CHECKS, FIX_SCRIPT, IDLE_SCRIPT, makeProject, type Project } from '../helpers/project.js';
import { waitUntil } from '../helpers/wait.js';

let project: Project;
afterEach(() => project?.cleanup());

function cli(args: string[]) {
  return runCli(args, { cwd: project.repo.dir, worktreesDir: project.worktreesDir });
}

const DAY = 86_400_000;

/** A run from `base` with two script agents; returns its id. */
async function run(base: string, agents: readonly string[], merge: string): Promise<string> {
  const providers = agents.map((script) => `[[parallel.providers]]\nkind = "script"\nscript = ${JSON.stringify(script)}\n`).join('');
  const spec = project.writeOutside(
    `spec-${Math.random().toString(16).slice(2)}.toml`,
    `name = "t"\nrepo = ${JSON.stringify(project.repo.dir)}\nbase = ${JSON.stringify(base)}\n\n[prompt]\ntext = "Make the tests pass."\n\n${providers}${ADD_CHECKS}\n[select]\nmerge = "${merge}"\n`,
  );
  const result = await cli(['run', spec, '--json']);
  expect([0, 1], result.stderr).toContain(result.code);
  return (JSON.parse(result.stdout) as { runId: string }).runId;
}

/** Moves the run's recorded start `days` back, in its log and its snapshot. */
function age(runId: string, days: number): void {
  const dir = join(project.repo.dir, '.bestof', 'runs', runId);
  const t = new Date(Date.now() - days * DAY).toISOString();
  const log = join(dir, 'events.jsonl');
  const lines = readFileSync(log, 'utf8')
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      const event = JSON.parse(line) as { type: string; t: string };
      return event.type === 'run.started' ? JSON.stringify({ ...event, t }) : line;
    });
  writeFileSync(log, lines.join('\n'));
  const state = join(dir, 'state.json');
  if (existsSync(state)) writeFileSync(state, JSON.stringify({ ...(JSON.parse(readFileSync(state, 'utf8')) as object), startedAt: t }));
}

const runFolder = (runId: string) => join(project.repo.dir, '.bestof', 'runs', runId);
const refsOf = (runId: string) => project.repo.git('for-each-ref', '--format=%(refname)', `refs/bestof/${runId}/`);

describe('clean labels', () => {
  it('says a candidate that made no change had no commit of its own, not that it was merged', async () => {
    project = makeProject();
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    // An agent that only says something: no file written, so its branch stays at the base.
    const silent = project.writeOutside('silent.toml', '[[steps]]\nsay = "nothing to do"\n');
    const runId = await run('HEAD', [fix, silent], 'none');
    const cleaned = await cli(['clean']);
    expect(cleaned.code, cleaned.stderr).toBe(0);
    expect(cleaned.stdout).toContain(`delete branch bestof/${runId}/c2 (no commit of its own)`);
    expect(cleaned.stdout).not.toContain('(merged)');
  });
});

describe('clean --runs --older-than', () => {
  it('removes an old run whose winner was merged (folder and refs); keeps an unmerged winner even with --all, and a run without a winner unless --all', {
    timeout: 180_000,
  }, async () => {
    project = makeProject();
    const base = project.repo.git('rev-parse', 'HEAD');
    const fix = project.writeOutside('fix.toml', FIX_SCRIPT);
    // Another fix for the unmerged run: the same fix from the same base, committed within the same
    // second as the merged run's, is the very same commit (same tree, parent, message, identity and
    // time), which is then rightly merged.
    const otherFix = project.writeOutside('other-fix.toml', FIX_SCRIPT.replace('a + b', 'b + a'));
    const idle = project.writeOutside('idle.toml', IDLE_SCRIPT);
    const merged = await run(base, [fix, idle], 'merge');
    const unmerged = await run(base, [otherFix, idle], 'branch');
    const noWinner = await run(base, [idle, idle], 'branch');
    age(merged, 60);
    age(unmerged, 60);
    age(noWinner, 10);
    // The runs leave nothing under the worktrees root once their worktrees' files are deleted (by
    // processes of their own, after each run): not even their per-run folders.
    await waitUntil(() => readdirSync(project.worktreesDir).length === 0, 'the runs to leave nothing under the worktrees root');
    const allRefs = project.repo.git('for-each-ref', '--format=%(refname) %(objectname)');

    const dry = await cli(['clean', '--runs', '--older-than', '30d', '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toMatch(
      new RegExp(
        `would remove run ${merged} \\(started \\d{4}-\\d{2}-\\d{2}, 60 days ago\\): its folder \\.bestof/runs/${merged} and \\d+ refs under refs/bestof/${merged}/`,
      ),
    );
    expect(dry.stdout).toMatch(new RegExp(`keep run ${unmerged} .*: its winner c1 is not merged`));
    expect(dry.stdout).not.toMatch(new RegExp(`(keep|remove) run ${noWinner}`)); // 10 days old
    expect(project.repo.git('for-each-ref', '--format=%(refname) %(objectname)')).toBe(allRefs);
    for (const id of [merged, unmerged, noWinner]) expect(existsSync(runFolder(id))).toBe(true);

    const clean = await cli(['clean', '--runs', '--older-than', '30d']);
    expect(clean.code, clean.stderr).toBe(0);
    expect(existsSync(runFolder(merged))).toBe(false);
    expect(refsOf(merged)).toBe('');
    // The merged work is in main's history, untouched.
    expect(project.repo.git('show', 'main:src/add.mjs')).toContain('a + b');
    for (const id of [unmerged, noWinner]) {
      expect(existsSync(runFolder(id))).toBe(true);
      expect(refsOf(id)).not.toBe('');
    }
    expect(readdirSync(project.worktreesDir)).toEqual([]);

    const week = await cli(['clean', '--runs', '--older-than', '1w']);
    expect(week.stdout).toMatch(new RegExp(`keep run ${noWinner} .*: it has no winner and \\d+ refs? whose commit is on no branch .*; --all removes them too`));
    expect(existsSync(runFolder(noWinner))).toBe(true);

    const all = await cli(['clean', '--runs', '--older-than', '1w', '--all']);
    expect(all.code, all.stderr).toBe(0);
    expect(existsSync(runFolder(noWinner))).toBe(false);
    expect(refsOf(noWinner)).toBe('');
    expect(existsSync(runFolder(unmerged))).toBe(true);
    expect(project.repo.git('show', `refs/bestof/${unmerged}/c1/kept:src/add.mjs`)).toContain('b + a');
    expect(all.stdout).toMatch(new RegExp(`keep run ${unmerged} .*: its winner c1 is not merged`));
  });

  it('refuses --older-than without --runs, --runs without an age, and an age without a unit (exit 2)', async () => {
    project = makeProject();
    const [alone, noAge, bare] = await Promise.all([
      cli(['clean', '--older-than', '30d']),
      cli(['clean', '--runs']),
      cli(['clean', '--runs', '--older-than', '30']),
    ]);
    expect(alone.code).toBe(2);
    expect(alone.stderr).toContain('--older-than goes with --runs');
    expect(noAge.code).toBe(2);
    expect(noAge.stderr).toContain('--runs needs --older-than');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toContain('is not an age');
  });
});

describe('ages and start times', () => {
  it('reads 30d, 12h, 2w and 1d12h; refuses a bare number, zero and words', () => {
    expect(parseAge('30d')).toBe(30 * DAY);
    expect(parseAge('12h')).toBe(DAY / 2);
    expect(parseAge('2w')).toBe(14 * DAY);
    expect(parseAge('1d12h')).toBe(1.5 * DAY);
    for (const bad of ['30', '0d', 'month', '']) expect(() => parseAge(bad), bad).toThrow(UsageError);
  });

  it("takes the run's recorded start, else the time in its id, never the folder's mtime first", () => {
    const listing = { runId: '20261001-093000-ab12', runDir: '/x', modifiedMs: Date.now() };
    expect(runStartedMs(listing, { startedAt: '2026-09-01T00:00:00.000Z' })).toBe(Date.parse('2026-09-01T00:00:00.000Z'));
    expect(runStartedMs(listing, { startedAt: '' })).toBe(new Date(2026, 9, 1, 9, 30, 0).getTime());
    expect(runStartedMs({ ...listing, runId: 'odd' }, { startedAt: '' })).toBe(listing.modifiedMs);
  });
});
