/**
 * `bestof bench merge` (src/bench/merge.ts): three shards of the hand-worked bench, written the way
 * a CI matrix would (each its own bench.json, JSON round-tripped), merged back into the unsharded file.
 */
import { describe, expect, it } from 'vitest';
import { renderJUnit } from '../../src/bench/junit.js';
import { renderBenchMarkdown } from '../../src/bench/markdown.js';
import { mergeBenchFiles, type NamedValue } from '../../src/bench/merge.js';
import { cellIndex } from '../../src/bench/matrix.js';
import { shardOfIndex } from '../../src/bench/shard.js';
import { summarizeBench } from '../../src/bench/summary.js';
import type { BenchFile } from '../../src/bench/types.js';
import { handWorkedBench } from './hand-worked-bench.js';

const whole = handWorkedBench();

/** Shard i/n of the whole bench as its own run would write it, with its own start and finish. */
function shardFile(index: number, count: number, from: BenchFile = whole): BenchFile {
  return {
    ...from,
    shard: { index, count },
    // The shards started and finished within the whole run's times; shard 1 first, shard n last.
    startedAt: index === 1 ? from.startedAt : `2025-01-10T02:0${index}:00.000Z`,
    finishedAt: index === count ? from.finishedAt : `2025-01-10T02:1${index}:00.000Z`,
    // Each shard wrote its records in the order its trials ended: here, backwards.
    records: from.records.filter((r) => shardOfIndex(cellIndex(from.matrix, r), count) === index).reverse(),
  };
}

/** As `bestof bench merge` gets them: parsed from the JSON text of each file. */
function asRead(files: readonly BenchFile[], names = files.map((f) => `shard-${f.shard?.index}.json`)): NamedValue[] {
  return files.map((f, i) => ({ name: names[i] as string, value: JSON.parse(JSON.stringify(f)) }));
}

function problems(result: ReturnType<typeof mergeBenchFiles>): string[] {
  if (result.ok) throw new Error('the merge was expected to be refused');
  return result.error;
}

describe('mergeBenchFiles', () => {
  const three = [shardFile(1, 3), shardFile(2, 3), shardFile(3, 3)];

  it('three shards merge into the file the unsharded run wrote, so its summary, Markdown and JUnit are the same', () => {
    expect(three.map((f) => f.records.length)).toEqual([6, 6, 6]);
    const merged = mergeBenchFiles(asRead([three[2], three[0], three[1]] as BenchFile[]));
    if (!merged.ok) throw new Error(merged.error.join('\n'));
    expect(merged.value).toEqual(whole);
    expect(summarizeBench(merged.value)).toEqual(summarizeBench(whole));
    expect(renderBenchMarkdown(summarizeBench(merged.value))).toBe(renderBenchMarkdown(summarizeBench(whole)));
    expect(renderJUnit(summarizeBench(merged.value))).toBe(renderJUnit(summarizeBench(whole)));
  });

  it('a missing shard is refused, naming it and its cells', () => {
    expect(problems(mergeBenchFiles(asRead([three[0], three[2]] as BenchFile[])))).toEqual([
      'the set is incomplete: shard 2/3 is missing (its 6 cells: t1/claude-sonnet#2, t1/codex-mini#2, t1/gemini-flash#2, t2/claude-sonnet#2, t2/codex-mini#2, t2/gemini-flash#2); ' +
        'add its bench.json, or run it with `bestof bench --shard 2/3`',
    ]);
  });

  it('a shard that stopped before its last trials is refused, naming the cells it lacks', () => {
    const cut = { ...shardFile(3, 3), records: shardFile(3, 3).records.filter((r) => r.task !== 't2') };
    expect(problems(mergeBenchFiles(asRead([three[0], three[1], cut] as BenchFile[])))).toEqual([
      'the set is incomplete: shard 3/3 (shard-3.json) lacks 3 of its 6 cells: t2/claude-sonnet#3, t2/codex-mini#3, t2/gemini-flash#3; it did not finish, run it again with `bestof bench --shard 3/3 --resume`',
    ]);
  });

  it('a shard given twice is refused, and the overlapping cells are named', () => {
    const again = asRead([three[0], three[1], three[2], three[1]] as BenchFile[], ['a.json', 'b.json', 'c.json', 'b-copy.json']);
    expect(problems(mergeBenchFiles(again))).toEqual([
      'shard 2/3 is given 2 times: b.json, b-copy.json; pass each shard once',
      'the files overlap: cells recorded in more than one file: t1/claude-sonnet#2 (b.json, b-copy.json), t1/codex-mini#2 (b.json, b-copy.json), ' +
        't1/gemini-flash#2 (b.json, b-copy.json), t2/claude-sonnet#2 (b.json, b-copy.json), t2/codex-mini#2 (b.json, b-copy.json), ' +
        't2/gemini-flash#2 (b.json, b-copy.json); each cell must come from one shard',
    ]);
  });

  it('shards of another split, a whole bench among shards: refused, saying which file is which', () => {
    expect(problems(mergeBenchFiles(asRead([three[0], three[1], shardFile(3, 4)] as BenchFile[], ['a.json', 'b.json', 'c.json'])))).toEqual([
      'the shards come from different splits: a.json is 1/3, b.json is 2/3, c.json is 3/4; every shard of one bench must use the same n in --shard i/n',
    ]);
    expect(problems(mergeBenchFiles(asRead([three[0], whole] as BenchFile[], ['a.json', 'whole.json'])))).toEqual([
      'whole.json holds the whole bench (no --shard) and cannot be merged with other files: merge only the files of `bestof bench --shard i/n`, or use the whole bench file alone',
    ]);
  });

  it('different spec hashes or bench names are refused, with the files on each side', () => {
    const other = { ...three[2], specHash: 'sha256:ffff', bench: 'weekly' } as BenchFile;
    expect(problems(mergeBenchFiles(asRead([three[0], three[1], other] as BenchFile[], ['a.json', 'b.json', 'c.json'])))).toEqual([
      'the files differ in bench name (a.json, b.json: "nightly"; c.json: "weekly"): they are different benches',
      'the files differ in spec hash (a.json, b.json: sha256:0123abcd; c.json: sha256:ffff): the bench spec changed between them; run every shard from the same spec',
    ]);
    const newer = { ...three[2], harness: { bestofVersion: '0.2.0', gitCommit: null } } as BenchFile;
    expect(problems(mergeBenchFiles(asRead([three[0], three[1], newer] as BenchFile[], ['a.json', 'b.json', 'c.json'])))).toEqual([
      'the files differ in harness (a.json, b.json: bestof 0.1.0 at 8b1b4470c0ffee00112233445566778899aabbcc; c.json: bestof 0.2.0): run every shard with the same bestof version and commit',
    ]);
  });

  it('a file that is not a bench file is refused by name; no file at all too', () => {
    expect(problems(mergeBenchFiles([{ name: 'notes.json', value: { hello: 1 } }]))).toEqual([
      'notes.json is not a bench file (it has no "format"): pass the bench.json that `bestof bench` wrote',
    ]);
    expect(problems(mergeBenchFiles([]))).toEqual(['no bench file to merge: pass the bench.json of every shard']);
  });

  it('one shard of one (1/1) is the whole bench', () => {
    const merged = mergeBenchFiles(asRead([shardFile(1, 1)]));
    expect(merged.ok && merged.value).toEqual(whole);
  });

  it('twenty shards of 18 cells: the two empty shards must be given too', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => shardFile(i + 1, 20));
    expect(twenty.filter((f) => f.records.length === 0).map((f) => f.shard?.index)).toEqual([19, 20]);
    const all = mergeBenchFiles(asRead(twenty));
    expect(all.ok && summarizeBench(all.value)).toEqual(summarizeBench(whole));
    expect(problems(mergeBenchFiles(asRead(twenty.slice(0, 19))))).toEqual([
      'the set is incomplete: shard 20/20 is missing (it has no cells, but its file is still needed to show it ran); add its bench.json, or run it with `bestof bench --shard 20/20`',
    ]);
  });
});
