/** `--shard i/n` (src/bench/shard.ts) and the matrix order (src/bench/matrix.ts). */
import { describe, expect, it } from 'vitest';
import { allCells, cellIndex, cellLabel } from '../../src/bench/matrix.js';
import { cellsOfShard, parseShard } from '../../src/bench/shard.js';
import type { BenchMatrix } from '../../src/bench/types.js';

const MATRIX: BenchMatrix = {
  tasks: [
    { id: 't1', bar: 1 },
    { id: 't2', bar: 1 },
  ],
  agents: [
    { id: 'a', kind: 'script', model: null },
    { id: 'b', kind: 'script', model: null },
    { id: 'c', kind: 'script', model: null },
  ],
  trials: 3,
};

describe('parseShard', () => {
  it('reads i/n, spaces allowed', () => {
    expect(parseShard('2/3')).toEqual({ ok: true, value: { index: 2, count: 3 } });
    expect(parseShard(' 1 / 1 ')).toEqual({ ok: true, value: { index: 1, count: 1 } });
  });

  it.each([
    ['0/3', '--shard 0/3: the shard number must be between 1 and 3; shards are numbered from 1, e.g. --shard 1/3 to --shard 3/3'],
    ['4/3', '--shard 4/3: the shard number must be between 1 and 3; shards are numbered from 1, e.g. --shard 1/3 to --shard 3/3'],
    ['1/0', '--shard 1/0: the number of shards must be at least 1; write i/n with n >= 1, e.g. --shard 1/1 for the whole bench'],
    ['two/3', '--shard "two/3" is not a shard: write it as i/n, e.g. --shard 2/3 for the second of three shards'],
    ['2', '--shard "2" is not a shard: write it as i/n, e.g. --shard 2/3 for the second of three shards'],
    ['-1/3', '--shard "-1/3" is not a shard: write it as i/n, e.g. --shard 2/3 for the second of three shards'],
    ['1.5/3', '--shard "1.5/3" is not a shard: write it as i/n, e.g. --shard 2/3 for the second of three shards'],
    ['', '--shard "" is not a shard: write it as i/n, e.g. --shard 2/3 for the second of three shards'],
  ])('refuses %j with a message that says the fix', (text, message) => {
    expect(parseShard(text)).toEqual({ ok: false, error: message });
  });
});

describe('the matrix order', () => {
  it('is tasks, then agents, then trials; cellIndex is the position in it', () => {
    const cells = allCells(MATRIX);
    expect(cells.slice(0, 4).map(cellLabel)).toEqual(['t1/a#1', 't1/a#2', 't1/a#3', 't1/b#1']);
    expect(cells.map((c) => cellIndex(MATRIX, c))).toEqual(cells.map((_, i) => i));
    expect(cellIndex(MATRIX, { task: 't3', agent: 'a', trial: 1 })).toBe(-1);
    expect(cellIndex(MATRIX, { task: 't1', agent: 'a', trial: 4 })).toBe(-1);
    expect(cellIndex(MATRIX, { task: 't1', agent: 'a', trial: 0 })).toBe(-1);
  });
});

describe('cellsOfShard', () => {
  it('deals cells round-robin: shard 1/3 of 18 cells holds indices 0, 3, 6, 9, 12, 15', () => {
    expect(cellsOfShard(MATRIX, { index: 1, count: 3 }).map(cellLabel)).toEqual(['t1/a#1', 't1/b#1', 't1/c#1', 't2/a#1', 't2/b#1', 't2/c#1']);
    // Shard 2/4: indices 1, 5, 9, 13, 17 (9 cells per task, 3 per agent).
    expect(cellsOfShard(MATRIX, { index: 2, count: 4 }).map(cellLabel)).toEqual(['t1/a#2', 't1/b#3', 't2/a#1', 't2/b#2', 't2/c#3']);
  });

  const matrices: [string, BenchMatrix][] = [
    ['2 x 3 x 3', MATRIX],
    ['1 x 1 x 1', { tasks: [{ id: 'only', bar: 1 }], agents: [{ id: 'x', kind: 'script', model: null }], trials: 1 }],
    ['3 x 2 x 5', { tasks: ['p', 'q', 'r'].map((id) => ({ id, bar: 0.5 })), agents: MATRIX.agents.slice(0, 2), trials: 5 }],
  ];
  for (const [name, matrix] of matrices) {
    it(`${name}: for n = 1..20 the n shards are disjoint, cover the matrix, differ in size by at most one, and are the same when computed again`, () => {
      const all = allCells(matrix).map(cellLabel);
      for (let n = 1; n <= 20; n++) {
        const shards = Array.from({ length: n }, (_, i) => cellsOfShard(matrix, { index: i + 1, count: n }).map(cellLabel));
        const union = shards.flat();
        expect(new Set(union).size, `n = ${n}: no overlap`).toBe(union.length);
        expect([...union].sort(), `n = ${n}: the whole matrix`).toEqual([...all].sort());
        const sizes = shards.map((s) => s.length);
        expect(Math.max(...sizes) - Math.min(...sizes), `n = ${n}: balanced`).toBeLessThanOrEqual(1);
        expect(Array.from({ length: n }, (_, i) => cellsOfShard(matrix, { index: i + 1, count: n }).map(cellLabel))).toEqual(shards);
      }
    });
  }

  it('more shards than cells: the extra shards are empty', () => {
    const one = matrices[1]?.[1] as BenchMatrix;
    expect(cellsOfShard(one, { index: 1, count: 3 })).toHaveLength(1);
    expect(cellsOfShard(one, { index: 3, count: 3 })).toEqual([]);
  });
});
