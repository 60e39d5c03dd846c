/**
 * Counts in words: a run of one candidate with one check worth one point says so, in the
 * singular, wherever a count is printed (the plain lines, the report, the agent's prompt, the
 * stop messages, the bench lines), through the one helper src/engine/words.ts.
 */
import { describe, expect, it } from 'vitest';
import { createBenchPlainReporter } from '../../src/ui/bench-lines.js';
import type { BenchMatrix } from '../../src/bench/types.js';
import type { RunEvent } from '../../src/engine/record/events.js';
import { buildIterationPrompt } from '../../src/engine/loop/prompts.js';
import { foldEvents } from '../../src/engine/record/run-state.js';
import { breakerMessage } from '../../src/engine/loop/stop-rules.js';
import { plural } from '../../src/engine/words.js';
import { renderMarkdownReport } from '../../src/report/report.js';
import { formatEvent } from '../../src/ui/plain-reporter.js';

const T = '2026-12-02T00:00:00.000Z';

const started: RunEvent = {
  t: T,
  type: 'run.started',
  runId: 'r1',
  name: 'one',
  repo: '/repo',
  base: 'main',
  baseCommit: '0123456789abcdef',
  runDir: '/repo/.bestof/runs/r1',
  specPath: '/repo/bestof.toml',
  candidates: [
    { id: 'c1', index: 1, label: 'claude', provider: 'claude', model: undefined, branch: 'bestof/r1/c1', ref: 'refs/bestof/r1/c1/kept', worktree: '/w/c1' },
  ],
  checks: [{ name: 'test', score: 1 }],
  maxScore: 1,
  scoreThreshold: 1,
  maxIterations: 1,
  mergeMode: 'merge',
};

describe('counts in words', () => {
  it('plural: the singular for exactly one', () => {
    expect([0, 1, 2].map((n) => plural(n, 'file'))).toEqual(['0 files', '1 file', '2 files']);
    expect(plural(1, 'more task')).toBe('1 more task');
    expect(plural(3, 'entry', 'entries')).toBe('3 entries');
  });

  it('the run line: one candidate, one check, one point', () => {
    expect(formatEvent(started)).toBe('run r1 (one): 1 candidate on main (0123456789), 1 check worth 1 point; run folder /repo/.bestof/runs/r1');
  });

  it("the report's ranking: one file", () => {
    const finished: RunEvent = {
      t: T,
      type: 'candidate.finished',
      candidate: 'c1',
      status: 'done',
      reason: 'threshold_reached',
      iterations: 1,
      score: 1,
      commit: 'abc',
      diff: { files: 1, insertions: 2, deletions: 0 },
      durationMs: 1000,
      costUsd: 0,
    };
    const report = renderMarkdownReport(foldEvents([started, finished]));
    expect(report).toContain('+2 -0 (1 file)');
    expect(report).not.toContain('1 files');
  });

  it("the breaker's messages: one iteration", () => {
    const limits = { sameFailureIterations: 1, errorIterations: 1, noDiffIterations: 1 };
    expect(breakerMessage('breaker_same_failure', limits)).toBe('the same checks failed 1 iteration in a row');
    expect(breakerMessage('breaker_errors', limits)).toBe('the agent failed 1 iteration in a row');
    expect(breakerMessage('breaker_no_diff', limits)).toBe('1 iteration in a row changed nothing');
  });

  it("the agent's prompt: one point, and one is needed", () => {
    const prompt = buildIterationPrompt({
      task: 'Fix it',
      iteration: 2,
      maxIterations: 2,
      messages: [],
      feedback: { score: 0, maxScore: 1, threshold: 1, failedChecks: [], outcome: 'success', tampered: [] },
    });
    expect(prompt).toContain('Your previous attempt scored 0 of 1 point; 1 is needed to finish.');
  });

  it('the bench lines: one task, one agent, one trial', () => {
    const lines: string[] = [];
    const report = createBenchPlainReporter((line) => lines.push(line));
    // The lines read only the matrix's sizes.
    const matrix = { tasks: [{ id: 't' }], agents: [{ id: 'a' }], trials: 1 } as unknown as BenchMatrix;
    report({
      type: 'bench.started',
      bench: 'b',
      matrix,
      shard: null,
      cells: [{ task: 't', agent: 'a', trial: 1 }],
      done: [],
      concurrency: 1,
      outDir: '/out',
      at: 0,
    });
    report({ type: 'bench.finished', cancelled: true, at: 0 });
    expect(lines).toEqual([
      'bench b: 1 task x 1 agent x 1 trial, 1 at a time; results in /out\n',
      'bench cancelled after 0 of 1 trial: the rest are recorded "not run"; go on with --resume\n',
    ]);
  });
});
