/**
 * The kill -9 campaign (issue 9): a run of three candidates over several iterations, killed with
 * SIGKILL right after each kind of event and at random instants, then resumed. After every trial:
 * the run finishes with the winner an uninterrupted run picks, merged once; every commit that
 * existed after the kill is still reachable; no process of the run is left; and after
 * `bestof clean` no worktree folder is left.
 *
 * Without the sandbox on purpose (`[sandbox] mode = "off"`): that is where agents outlive a killed
 * bestof unless bestof stops them itself.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, startCli } from '../helpers/cli.js';
import { processesWithEnv } from '../helpers/processes.js';
import { waitUntil } from '../helpers/wait.js';
import { makeProject, specToml, type Project } from '../helpers/project.js';
import { CHAOS_CHECKS, IDLE_AGENT, PARTIAL_AGENT, THOROUGH_AGENT } from './agents.js';

let project: Project | undefined;
afterEach(() => project?.cleanup());

interface LoggedEvent {
  readonly type: string;
  readonly [key: string]: unknown;
}

function runDir(p: Project): string | undefined {
  const runs = join(p.repo.dir, '.bestof', 'runs');
  if (!existsSync(runs)) return undefined;
  const [first] = readdirSync(runs);
  return first ? join(runs, first) : undefined;
}

function loggedEvents(p: Project): LoggedEvent[] {
  const dir = runDir(p);
  if (!dir || !existsSync(join(dir, 'events.jsonl'))) return [];
  return readFileSync(join(dir, 'events.jsonl'), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LoggedEvent];
      } catch {
        return []; // the last line of a killed run may be cut
      }
    });
}

function setUp(): { project: Project; spec: string } {
  const p = makeProject();
  const agents = [THOROUGH_AGENT, PARTIAL_AGENT, IDLE_AGENT].map((text, i) => p.writeOutside(`agents/agent-${i + 1}.sh`, text));
  const providers = agents.map((a) => `[[parallel.providers]]\nkind = "command"\ncommand = "bash"\nargs = [${JSON.stringify(a)}]\n`).join('');
  const spec = p.writeOutside(
    'spec.toml',
    specToml(
      p.repo.dir,
      `[sandbox]\nmode = "off"\n${providers}[loop]\nmax_iterations = 3\nscore_threshold = 100\n${CHAOS_CHECKS}\n[select]\nmerge = "squash"\n`,
    ),
  );
  return { project: p, spec };
}

/** Live processes of the run, by the BESTOF_RUN its agents and checks carry. */
function processesOfRun(runId: string): number[] {
  return processesWithEnv('BESTOF_RUN', runId);
}

/**
 * Waits until no process of the killed run is left that carries its key (src/engine/sandbox/leftovers.ts):
 * its git commands go on after bestof is killed (a process group of their own), and `git worktree
 * add` writes a placeholder HEAD (the null id) before the real one, so `git rev-list --all` in the
 * middle of it fails with "bad object worktrees/<name>/HEAD", as it would for anyone.
 */
async function untilRunGitEnds(runDir: string): Promise<void> {
  const keyFile = join(runDir, 'run-key');
  if (!existsSync(keyFile)) return;
  const key = readFileSync(keyFile, 'utf8').trim();
  await waitUntil(() => processesWithEnv('BESTOF_RUN_KEY', key).length === 0, "the killed run's git commands to end", { attempts: 300 });
}

function reachableCommits(p: Project): Set<string> {
  return new Set(p.repo.git('rev-list', '--all').split('\n').filter(Boolean));
}

type Trigger = { readonly kind: 'event'; readonly type: string; readonly nth: number } | { readonly kind: 'instant'; readonly afterMs: number };

/** A PRNG with a fixed seed: the same instants on every machine, so a failure can be replayed. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const EVENT_TRIGGERS: Trigger[] = [
  { kind: 'event', type: 'run.started', nth: 1 },
  { kind: 'event', type: 'candidate.setup', nth: 1 },
  { kind: 'event', type: 'candidate.setup', nth: 3 },
  { kind: 'event', type: 'candidate.activity', nth: 2 },
  { kind: 'event', type: 'provider.finished', nth: 1 },
  { kind: 'event', type: 'check.finished', nth: 2 },
  { kind: 'event', type: 'candidate.committed', nth: 2 },
  { kind: 'event', type: 'candidate.scored', nth: 3 },
  { kind: 'event', type: 'candidate.finished', nth: 1 },
  { kind: 'event', type: 'selection.finished', nth: 1 },
  { kind: 'event', type: 'merge.started', nth: 1 },
  { kind: 'event', type: 'merge.finished', nth: 1 },
];

describe('kill -9 at any instant, then resume', () => {
  let baselineMs = 10_000;

  it('an uninterrupted run: c1 (thorough) wins and is squash-merged once', async () => {
    const { project: p, spec } = setUp();
    project = p;
    const base = p.repo.git('rev-parse', 'HEAD');
    const started = Date.now();
    const result = await runCli(['run', spec], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
    baselineMs = Date.now() - started;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(p.repo.git('rev-list', '--format=%s', '--no-commit-header', `${base}..HEAD`)).toMatch(/^bestof: c1 \(.*\) wins run /);
  });

  const random = seeded(9);
  const instants: Trigger[] = Array.from({ length: 6 }, () => ({ kind: 'instant' as const, afterMs: -1 - random() }));
  for (const trigger of [...EVENT_TRIGGERS, ...instants]) {
    const name = trigger.kind === 'event' ? `after ${trigger.type} #${trigger.nth}` : `at ${Math.round(-(trigger.afterMs + 1) * 100)}% of a run`;
    it(`killed ${name}`, async () => {
      const { project: p, spec } = setUp();
      project = p;
      const base = p.repo.git('rev-parse', 'HEAD');
      const { child, done } = startCli(['run', spec], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
      let exited = false;
      void done.then(() => (exited = true));
      const killAt = trigger.kind === 'instant' ? Date.now() + -(trigger.afterMs + 1) * baselineMs : undefined;
      for (;;) {
        if (exited) break;
        const due =
          trigger.kind === 'instant' ? Date.now() >= (killAt as number) : loggedEvents(p).filter((e) => e.type === trigger.type).length >= trigger.nth;
        if (due) {
          child.kill('SIGKILL');
          break;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      const first = await done;
      const dir = runDir(p);
      if (!dir) {
        // Killed before the run folder existed: nothing was created that a resume could need.
        expect(p.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
        return;
      }
      const runId = dir.split('/').pop() as string;
      await untilRunGitEnds(dir);
      const beforeResume = reachableCommits(p);
      // Resumed as a user would, also when the log already says run.finished: killed in the instant
      // after that line, before the reports were written, resume writes them (once at 98% of a run).
      const resumed = await runCli(['resume', runId], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
      expect(resumed.code, `first: ${first.signal}\n${resumed.stdout}\n${resumed.stderr}`).toBe(0);
      const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')) as { winner: string | null; status: string };
      expect([report.status, report.winner]).toEqual(['winner', 'c1']);
      // Merged exactly once.
      expect(p.repo.git('rev-list', '--format=%s', '--no-commit-header', `${base}..HEAD`).split('\n').filter(Boolean)).toHaveLength(1);
      expect(p.repo.git('status', '--porcelain')).toBe('');
      const after = reachableCommits(p);
      const lost = [...beforeResume].filter((c) => !after.has(c));
      expect(lost).toEqual([]);
      expect(processesOfRun(runId)).toEqual([]);
      const cleaned = await runCli(['clean', runId], { cwd: p.repo.dir, worktreesDir: p.worktreesDir });
      expect(cleaned.code, cleaned.stdout + cleaned.stderr).toBe(0);
      expect(p.repo.git('worktree', 'list', '--porcelain').match(/^worktree /gm)).toHaveLength(1);
      const leftFolders = existsSync(p.worktreesDir)
        ? readdirSync(p.worktreesDir, { recursive: true })
            .map(String)
            .filter((path) => /(^|\/)c\d$/.test(path))
        : [];
      expect(leftFolders).toEqual([]);
    });
  }
});
