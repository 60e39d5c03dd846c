/**
 * What the tests of `bestof bench mine` on real history (test/runs/mine-*.test.ts) share: a mining
 * with the reference agent, its bench with a no-op agent added, and the checks on both.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runCli } from './cli.js';
import { git } from './corpora.js';
import { makeTempDir } from './temp-repo.js';

export interface Kept {
  sha: string;
  parent: string;
  id: string;
  message: string;
  failToPass: string[];
  passToPass: string[];
  testFiles: string[];
}
export interface Mined {
  kept: Kept[];
  rejected: Array<{ sha: string; reason: string; detail: string }>;
  commitsLookedAt: number;
}
export interface BenchJson {
  records: Array<{ task: string; agent: string; resolved: boolean; infra: boolean }>;
}

const NOOP_AGENT = '\n[[agents]]\nid = "noop"\nkind = "command"\ncommand = "true"\n';

export async function mineAndBench(repo: string, args: string[]) {
  const out = join(makeTempDir('bestof-mined-'), 'bench');
  const mined = await runCli(['bench', 'mine', '--out', out, '--reference', '--jobs', '2', ...args], { cwd: repo });
  expect(mined.code, mined.stderr).toBe(0);
  const summary = JSON.parse(readFileSync(join(out, 'mined.json'), 'utf8')) as Mined;
  writeFileSync(join(out, 'bench.toml'), readFileSync(join(out, 'bench.toml'), 'utf8') + NOOP_AGENT);
  const results = join(out, 'results');
  const bench = await runCli(['bench', join(out, 'bench.toml'), '--out', results, '--no-tui'], { cwd: repo });
  expect(bench.code, bench.stderr + bench.stdout).toBe(0);
  const benchJson = JSON.parse(readFileSync(join(results, 'bench.json'), 'utf8')) as BenchJson;
  return { out, summary, results, benchJson, benchMd: readFileSync(join(results, 'bench.md'), 'utf8') };
}

/** The reference agent resolves every task, the no-op agent none; bench.md gives both with their Wilson intervals. */
export function expectReferenceAllNoopNone(benchJson: BenchJson, benchMd: string, tasks: number): void {
  const of = (agent: string) => benchJson.records.filter((t) => t.agent === agent);
  expect(of('reference')).toHaveLength(tasks);
  expect(of('reference').every((t) => t.resolved && !t.infra)).toBe(true);
  expect(of('noop')).toHaveLength(tasks);
  expect(of('noop').some((t) => t.resolved || t.infra)).toBe(false);
  expect(benchMd).toMatch(new RegExp(`\\| reference \\| command \\| 100\\.0% \\(${tasks}/${tasks}\\) \\| \\[\\d+\\.\\d%, 100\\.0%\\] \\|`));
  expect(benchMd).toMatch(new RegExp(`\\| noop \\| command \\| 0\\.0% \\(0/${tasks}\\) \\| \\[0\\.0%, \\d+\\.\\d%\\] \\|`));
}

/**
 * Not a byte of a task's hidden tests where an agent looks: the lines its test files gained (those
 * found nowhere in the parent's tree) are not in the task's prompt, the blobs of its test files are
 * in no object store of the task's repo, and that repo holds no commit but base's history.
 */
export function expectNoLeak(repo: string, out: string, results: string, task: Kept): void {
  const spec = readFileSync(join(out, 'tasks', `${task.id}.toml`), 'utf8');
  const prompt = spec.slice(spec.indexOf('[prompt]'), spec.indexOf('[checks]'));
  const parentText = git(repo, 'grep', '-h', '-I', '-e', '', task.parent, '--');
  const parentLines = new Set(parentText.split('\n').map((l) => l.trim()));
  const taskRepo = join(results, 'repos', task.id);
  for (const file of task.testFiles) {
    const hidden = git(repo, 'show', `${task.sha}:${file}`);
    expect(readFileSync(join(out, 'hidden', task.id, 'files', file), 'utf8').trim()).toBe(hidden);
    const added = hidden
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l.length >= 20 && !parentLines.has(l));
    expect(added.length, `${task.id}: ${file} gains lines`).toBeGreaterThan(0);
    for (const line of added) expect(prompt, `${task.id}: the prompt holds a line of ${file}`).not.toContain(line);
    const blob = git(repo, 'rev-parse', `${task.sha}:${file}`);
    expect(() => git(taskRepo, 'cat-file', '-e', blob), `${task.id}: the task repo holds the blob of ${file}`).toThrow();
  }
  expect(() => git(taskRepo, 'cat-file', '-e', task.sha)).toThrow();
  // Its commits: base's history, and the trials' own (the reference agent's work, under refs/bestof/),
  // which the source repo does not have; never another commit of the source repo.
  for (const commit of git(taskRepo, 'rev-list', '--all').split('\n')) {
    const inBaseHistory = (() => {
      try {
        git(taskRepo, 'merge-base', '--is-ancestor', commit, task.parent);
        return true;
      } catch {
        return false;
      }
    })();
    if (!inBaseHistory)
      expect(() => git(repo, 'cat-file', '-e', `${commit}^{commit}`), `${task.id}: ${commit} of the source repo is in the task repo`).toThrow();
  }
}
