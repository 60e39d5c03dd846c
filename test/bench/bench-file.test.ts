/** Reading a bench.json back (src/bench/bench-file.ts): what is refused, and how the message names it. */
import { describe, expect, it } from 'vitest';
import { parseBenchFile } from '../../src/bench/bench-file.js';
import type { BenchFile } from '../../src/bench/types.js';
import { handWorkedBench, trialRecord } from './hand-worked-bench.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function problems(value: unknown): string[] {
  const parsed = parseBenchFile(roundTrip(value), 'b.json');
  if (parsed.ok) throw new Error('expected the file to be refused');
  return parsed.error;
}

describe('parseBenchFile', () => {
  it('reads back what it wrote', () => {
    const file = handWorkedBench();
    expect(parseBenchFile(roundTrip(file), 'b.json')).toEqual({ ok: true, value: file });
  });

  it('refuses another format, naming the file and what to do', () => {
    expect(problems({ ...handWorkedBench(), format: 2 })).toEqual([
      'b.json is bench format 2, this bestof reads format 1: run the bench again with this bestof, or read the file with the bestof that wrote it',
    ]);
    expect(problems([1, 2])).toEqual(['b.json is not a bench file (it has no "format"): pass the bench.json that `bestof bench` wrote']);
  });

  it('names the key of a bad value, and refuses keys it does not know rather than dropping them', () => {
    const file = handWorkedBench();
    const records = file.records.map((r, i) => (i === 4 ? { ...r, costUsd: 'a lot' } : r));
    const head = 'b.json is not a bench file this bestof can read: pass the bench.json that `bestof bench` wrote, unedited';
    expect(problems({ ...file, records })).toEqual([head, expect.stringMatching(/^b\.json: records\[4\]\.costUsd: .*expected number/)]);
    expect(problems({ ...file, extra: true })).toEqual([head, expect.stringMatching(/^b\.json: \(the file\): .*"extra"/)]);
    const badStatus = file.records.map((r, i) => (i === 0 ? { ...r, outcome: { status: 'won', reason: '' } } : r));
    expect(problems({ ...file, records: badStatus })).toEqual([head, expect.stringMatching(/^b\.json: records\[0\]\.outcome\.status: /)]);
  });

  it('refuses records of cells the matrix does not have, cells recorded twice, and cells of another shard', () => {
    const file = handWorkedBench();
    const odd: BenchFile = {
      ...file,
      records: [
        ...file.records,
        trialRecord('t9', 'claude-sonnet', 1, 'R', 0, 1),
        trialRecord('t1', 'claude-sonnet', 4, 'R', 0, 1),
        trialRecord('t1', 'codex-mini', 2, 'U', 0, 1),
      ],
    };
    expect(problems(odd)).toEqual([
      'b.json: records of cells its matrix does not have: t9/claude-sonnet#1, t1/claude-sonnet#4 (a task or agent not in the matrix, or a trial past 3)',
      'b.json: cells recorded more than once: t1/codex-mini#2',
    ]);
    // Shard 1/3 holds trial 1 of every task x agent; trial 2 belongs to shard 2/3.
    const shard: BenchFile = { ...file, shard: { index: 1, count: 3 }, records: file.records.filter((r) => r.trial <= 2) };
    expect(problems(shard)).toEqual([
      'b.json: records of cells that are not in its shard 1/3: t1/claude-sonnet#2, t1/codex-mini#2, t1/gemini-flash#2, t2/claude-sonnet#2, t2/codex-mini#2, t2/gemini-flash#2; the file was edited or written by another bestof',
    ]);
  });

  it('refuses a shard past its count and a matrix that lists an id twice', () => {
    const file = handWorkedBench();
    expect(problems({ ...file, shard: { index: 4, count: 3 }, records: [] })).toEqual(['b.json: shard 4/3 does not exist (shards are numbered 1 to 3)']);
    const agents = [...file.matrix.agents, file.matrix.agents[0]];
    expect(problems({ ...file, matrix: { ...file.matrix, agents } })).toEqual(['b.json: the matrix lists agent claude-sonnet more than once']);
  });
});
