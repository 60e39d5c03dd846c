/**
 * `bestof bench merge a.json b.json ...`: the shards of one bench, joined into the file an
 * unsharded run would have written. Takes already-parsed JSON values (with the names to say in
 * messages); reading the files is the caller's.
 *
 * Refused, with every problem named (so that one CI rerun fixes them all):
 * - a file that is not a valid bench file (bench-file.ts);
 * - files of different benches, spec hashes, matrices or harnesses: their trials measured
 *   different things, or were run by different code (a merge must mean "one run, spread out");
 * - shards of different n (`1/3` next to `2/4`), a whole bench next to shards, a shard given
 *   twice, cells recorded in more than one file (named);
 * - an incomplete set: each missing shard by number with its cells, and each cell a present
 *   shard lacks (it stopped before finishing).
 *
 * The merged file: `shard: null`, the earliest start and the latest finish, records sorted in
 * matrix order. With the same times it is equal to the unsharded run's file, so every report of
 * it is the same too.
 */
import { err, ok, type Result } from '../result.js';
import { plural } from '../engine/words.js';
import { parseBenchFile } from './bench-file.js';
import { allCells, cellIndex, cellLabel, listCells } from './matrix.js';
import { cellsOfShard, formatShard } from './shard.js';
import type { BenchFile, Cell } from './types.js';

export interface NamedValue {
  /** How messages name it: the path the user gave. */
  readonly name: string;
  /** The file's content, JSON-parsed. */
  readonly value: unknown;
}

interface Named {
  readonly name: string;
  readonly file: BenchFile;
}

/** The merged bench file, or every reason it cannot be made. */
export function mergeBenchFiles(inputs: readonly NamedValue[]): Result<BenchFile, string[]> {
  if (inputs.length === 0) return err(['no bench file to merge: pass the bench.json of every shard']);
  const problems: string[] = [];
  const files: Named[] = [];
  for (const input of inputs) {
    const parsed = parseBenchFile(input.value, input.name);
    if (parsed.ok) files.push({ name: input.name, file: parsed.value });
    else problems.push(...parsed.error);
  }
  if (problems.length > 0) return err(problems);
  problems.push(...sameness(files));
  if (problems.length > 0) return err(problems);
  // Shards of different splits overlap and miss cells in ways that only repeat the first problem.
  problems.push(...splitProblems(files));
  if (problems.length > 0) return err(problems);
  problems.push(...shardProblems(files), ...cellProblems(files));
  if (problems.length > 0) return err(problems);
  return ok(merged(files));
}

/** What must be equal in every file, said per field with each value and the files that have it. */
function sameness(files: readonly Named[]): string[] {
  const fields: readonly { what: string; key: (f: BenchFile) => string; show: (f: BenchFile) => string; fix: string }[] = [
    { what: 'bench name', key: (f) => f.bench, show: (f) => JSON.stringify(f.bench), fix: 'they are different benches' },
    { what: 'spec hash', key: (f) => f.specHash, show: (f) => f.specHash, fix: 'the bench spec changed between them; run every shard from the same spec' },
    {
      what: 'matrix',
      key: (f) => JSON.stringify(f.matrix),
      show: (f) => `${f.matrix.tasks.map((t) => t.id).join(' ')} × ${f.matrix.agents.map((a) => a.id).join(' ')} × ${f.matrix.trials}`,
      fix: 'run every shard from the same spec',
    },
    {
      what: 'harness',
      key: (f) => JSON.stringify(f.harness),
      show: (f) => `bestof ${f.harness.bestofVersion}${f.harness.gitCommit === null ? '' : ` at ${f.harness.gitCommit}`}`,
      fix: 'run every shard with the same bestof version and commit',
    },
  ];
  return fields.flatMap(({ what, key, show, fix }) => {
    const groups = new Map<string, Named[]>();
    for (const f of files) groups.set(key(f.file), [...(groups.get(key(f.file)) ?? []), f]);
    if (groups.size < 2) return [];
    const sides = [...groups.values()].map((named) => `${named.map((n) => n.name).join(', ')}: ${show((named[0] as Named).file)}`);
    return [`the files differ in ${what} (${sides.join('; ')}): ${fix}`];
  });
}

/** A whole bench among shards, or shards of different n. */
function splitProblems(files: readonly Named[]): string[] {
  const whole = files.filter((f) => f.file.shard === null);
  if (whole.length > 0 && files.length > 1) {
    return [
      `${whole.map((f) => f.name).join(', ')} ${whole.length === 1 ? 'holds' : 'hold'} the whole bench (no --shard) and cannot be merged with other files: ` +
        'merge only the files of `bestof bench --shard i/n`, or use the whole bench file alone',
    ];
  }
  const counts = new Set(files.map((f) => f.file.shard?.count));
  if (counts.size < 2) return [];
  return [
    `the shards come from different splits: ${files.map((f) => `${f.name} is ${f.file.shard === null ? 'whole' : formatShard(f.file.shard)}`).join(', ')}; ` +
      'every shard of one bench must use the same n in --shard i/n',
  ];
}

/** Each shard 1..n given once (the split is known to be one). */
function shardProblems(files: readonly Named[]): string[] {
  const sharded = files.flatMap((f) => (f.file.shard === null ? [] : [{ name: f.name, shard: f.file.shard, matrix: f.file.matrix }]));
  const first = sharded[0];
  if (first === undefined) return [];
  const n = first.shard.count;
  const problems: string[] = [];
  for (let index = 1; index <= n; index++) {
    const holders = sharded.filter((f) => f.shard.index === index);
    if (holders.length > 1)
      problems.push(`shard ${index}/${n} is given ${holders.length} times: ${holders.map((f) => f.name).join(', ')}; pass each shard once`);
    if (holders.length === 0) {
      const cells = cellsOfShard(first.matrix, { index, count: n });
      const what =
        cells.length === 0 ? 'it has no cells, but its file is still needed to show it ran' : `its ${plural(cells.length, 'cell')}: ${listCells(cells)}`;
      problems.push(
        `the set is incomplete: shard ${index}/${n} is missing (${what}); add its bench.json, or run it with \`bestof bench --shard ${index}/${n}\``,
      );
    }
  }
  return problems;
}

function cellProblems(files: readonly Named[]): string[] {
  const problems: string[] = [];
  const holders = new Map<number, string[]>();
  for (const { name, file } of files) {
    for (const r of file.records) {
      const index = cellIndex(file.matrix, r);
      holders.set(index, [...(holders.get(index) ?? []), name]);
    }
  }
  const matrix = (files[0] as Named).file.matrix;
  const cells = allCells(matrix);
  const overlapping = [...holders].filter(([, names]) => names.length > 1).sort(([a], [b]) => a - b);
  if (overlapping.length > 0) {
    const shown = overlapping.slice(0, 10).map(([index, names]) => `${cellLabel(cells[index] as Cell)} (${names.join(', ')})`);
    const more = overlapping.length > 10 ? ` and ${overlapping.length - 10} more` : '';
    problems.push(`the files overlap: cells recorded in more than one file: ${shown.join(', ')}${more}; each cell must come from one shard`);
  }
  for (const { name, file } of files) {
    const own = file.shard === null ? cells : cellsOfShard(matrix, file.shard);
    const lacking = own.filter((c) => !holders.has(cellIndex(matrix, c)));
    if (lacking.length === 0) continue;
    const which = file.shard === null ? `${name}` : `shard ${formatShard(file.shard)} (${name})`;
    const resume = file.shard === null ? '`bestof bench --resume`' : `\`bestof bench --shard ${formatShard(file.shard)} --resume\``;
    problems.push(
      `the set is incomplete: ${which} lacks ${lacking.length} of its ${plural(own.length, 'cell')}: ${listCells(lacking)}; it did not finish, run it again with ${resume}`,
    );
  }
  return problems;
}

/** The first or last of ISO times (compared as instants, or as text when one does not parse). */
function extremeTime(times: readonly string[], which: 'first' | 'last'): string {
  const before = (a: string, b: string): boolean => {
    const [x, y] = [Date.parse(a), Date.parse(b)];
    return Number.isNaN(x) || Number.isNaN(y) ? a < b : x < y;
  };
  return times.reduce((best, t) => ((which === 'first' ? before(t, best) : before(best, t)) ? t : best));
}

function merged(files: readonly Named[]): BenchFile {
  const first = (files[0] as Named).file;
  const records = files.flatMap((f) => f.file.records).sort((x, y) => cellIndex(first.matrix, x) - cellIndex(first.matrix, y));
  return {
    format: first.format,
    bench: first.bench,
    specHash: first.specHash,
    matrix: first.matrix,
    shard: null,
    startedAt: extremeTime(
      files.map((f) => f.file.startedAt),
      'first',
    ),
    finishedAt: extremeTime(
      files.map((f) => f.file.finishedAt),
      'last',
    ),
    harness: first.harness,
    records,
  };
}
