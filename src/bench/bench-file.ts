/**
 * Reading a bench.json that someone else wrote (a CI shard's artifact, an old baseline) back
 * into a `BenchFile`, from an already-parsed JSON value: the caller reads and `JSON.parse`s the
 * file, this says whether it is a bench file and what is wrong with it.
 *
 * Checked beyond the shape: the format version, that every record is a cell of the file's own
 * matrix (known task and agent, trial in 1..trials), that no cell is recorded twice, and that
 * every record is a cell of the file's shard. Objects are strict: a key this version does not
 * know is refused, not silently dropped, because a merge writes the records back out and must
 * not lose what a newer bestof put in them.
 */
import { z } from 'zod';
import { err, ok, type Result } from '../result.js';
import { plural } from '../engine/words.js';
import { cellIndex, listCells } from './matrix.js';
import { formatShard, shardOfIndex } from './shard.js';
import { BENCH_FORMAT_VERSION, RUN_STATUSES, SELECTION_POLICIES, type BenchFile, type Cell } from './types.js';

const text = z.string().min(1);
const count = z.number().int().nonnegative();
const amount = z.number().nonnegative();

const trialRecord = z.strictObject({
  task: text,
  agent: text,
  kind: text,
  model: text.nullable(),
  cliVersion: z.string().nullable(),
  trial: z.number().int().positive(),
  outcome: z.strictObject({ status: z.enum(RUN_STATUSES), reason: z.string() }),
  resolved: z.boolean(),
  score: amount,
  maxScore: amount,
  iterations: count,
  costUsd: amount,
  costKnown: z.literal(false).optional(),
  tokens: z.strictObject({ input: count, output: count }),
  durationMs: amount,
  infra: z.boolean(),
  infraReason: z.string().nullable(),
  runId: z.string(),
  tampered: z.array(text).min(1).optional(),
  oracle: z
    .strictObject({
      candidates: z.array(z.strictObject({ candidate: text, passed: z.boolean(), why: z.string() })),
      picks: z.array(
        z.strictObject({ selection: text, policy: z.enum(SELECTION_POLICIES), candidate: text.nullable(), passes: z.boolean(), fellBack: z.boolean() }),
      ),
    })
    .optional(),
});

const benchFileSchema: z.ZodType<BenchFile> = z.strictObject({
  format: z.literal(BENCH_FORMAT_VERSION),
  bench: text,
  specHash: text,
  matrix: z.strictObject({
    tasks: z.array(z.strictObject({ id: text, bar: z.number().min(0).max(1) })).min(1),
    agents: z.array(z.strictObject({ id: text, kind: text, model: text.nullable() })).min(1),
    trials: z.number().int().positive(),
    selections: z.array(z.strictObject({ name: text, policy: z.enum(SELECTION_POLICIES) })).optional(),
  }),
  shard: z.strictObject({ index: z.number().int().positive(), count: z.number().int().positive() }).nullable(),
  startedAt: text,
  finishedAt: text,
  harness: z.strictObject({ bestofVersion: text, gitCommit: text.nullable() }),
  records: z.array(trialRecord),
});

function formatPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((out, key) => (typeof key === 'number' ? `${out}[${key}]` : out === '' ? String(key) : `${out}.${String(key)}`), '');
}

/**
 * `value` as a bench file, or the problems with it, each naming `name` (the file's path) and
 * where in it: `shard-2.json: records[4].costUsd: Invalid input: expected number, received string`, after a
 * first line that says what to do.
 */
export function parseBenchFile(value: unknown, name: string): Result<BenchFile, string[]> {
  const format = typeof value === 'object' && value !== null && 'format' in value ? (value as { format: unknown }).format : undefined;
  if (format !== BENCH_FORMAT_VERSION) {
    return err([
      format === undefined
        ? `${name} is not a bench file (it has no "format"): pass the bench.json that \`bestof bench\` wrote`
        : `${name} is bench format ${JSON.stringify(format)}, this bestof reads format ${BENCH_FORMAT_VERSION}: run the bench again with this bestof, or read the file with the bestof that wrote it`,
    ]);
  }
  const parsed = benchFileSchema.safeParse(value);
  if (!parsed.success) {
    const issues = parsed.error.issues;
    const head = `${name} is not a bench file this bestof can read: pass the bench.json that \`bestof bench\` wrote, unedited`;
    const shown = issues.slice(0, 5).map((i) => `${name}: ${formatPath(i.path) || '(the file)'}: ${i.message}`);
    return err([head, ...shown, ...(issues.length > 5 ? [`${name}: and ${plural(issues.length - 5, 'more problem')}`] : [])]);
  }
  const file = parsed.data;
  const problems = cellProblems(file, name);
  return problems.length === 0 ? ok(file) : err(problems);
}

function cellProblems(file: BenchFile, name: string): string[] {
  const problems: string[] = [];
  if (file.shard !== null && file.shard.index > file.shard.count) {
    problems.push(`${name}: shard ${formatShard(file.shard)} does not exist (shards are numbered 1 to ${file.shard.count})`);
  }
  for (const [what, ids] of [
    ['task', file.matrix.tasks.map((t) => t.id)],
    ['agent', file.matrix.agents.map((a) => a.id)],
  ] as const) {
    const repeated = [...new Set(ids.filter((id, i) => ids.indexOf(id) !== i))];
    if (repeated.length > 0) problems.push(`${name}: the matrix lists ${what} ${repeated.join(', ')} more than once`);
  }
  if (problems.length > 0) return problems;
  const unknown: Cell[] = [];
  const wrongShard: Cell[] = [];
  const twice: Cell[] = [];
  const seen = new Set<number>();
  for (const r of file.records) {
    const index = cellIndex(file.matrix, r);
    if (index < 0) unknown.push(r);
    else if (seen.has(index)) twice.push(r);
    else if (file.shard !== null && shardOfIndex(index, file.shard.count) !== file.shard.index) wrongShard.push(r);
    seen.add(index);
  }
  if (unknown.length > 0)
    problems.push(
      `${name}: records of cells its matrix does not have: ${listCells(unknown)} (a task or agent not in the matrix, or a trial past ${file.matrix.trials})`,
    );
  if (twice.length > 0) problems.push(`${name}: cells recorded more than once: ${listCells(twice)}`);
  if (wrongShard.length > 0 && file.shard !== null) {
    problems.push(
      `${name}: records of cells that are not in its shard ${formatShard(file.shard)}: ${listCells(wrongShard)}; the file was edited or written by another bestof`,
    );
  }
  return problems;
}
