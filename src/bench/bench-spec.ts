/**
 * The bench spec (`bestof bench <bench.toml>`): a matrix of tasks x agents x trials.
 *
 * A task is a run spec (the same file `bestof run` takes: its repo and base, prompt, checks,
 * loop, setup, sandbox), so that a task can be tried alone with `bestof run` and the run spec's
 * zod schema stays the one source of truth for all of it. Its checks may carry a role,
 * `kind = "fail_to_pass"` or `"pass_to_pass"` (src/spec/schema-parts.ts): a trial is *resolved*
 * when every check with a role passes (SWE-bench's rule), or, in a task without roles, when
 * every check passes. `folder` makes a plain folder the task's repo (a fresh git repo of its
 * files, committed once per bench) instead of the run spec's `repo`.
 *
 * An agent is the run spec's `[provider]` table with an `id`: every trial of a task by an agent
 * is a bestof run whose agents are that table alone (`best_of` candidates of it).
 *
 * Loading follows src/spec/load.ts: TOML, then zod, then the files; every problem says file,
 * line, column and the dotted key, and nothing is created before all of it holds.
 */
import { createHash, type Hash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { parse } from 'smol-toml';
import { z } from 'zod';
import { err, ok, type Result } from '../result.js';
import type { SpecProblem } from '../spec/errors.js';
import { loadSpec, resolveSpecPath, type LoadedSpec } from '../spec/load.js';
import { readExpectedTests } from './oracle-expect.js';
import { humanIssueMessage, schemaProblems, tomlSyntaxProblem } from '../spec/messages.js';
import { count, limit, missingKindKey, nonEmpty, providerOverride, usd } from '../spec/schema-parts.js';
import { oracleChecks, withoutOracleChecks } from '../spec/oracle-checks.js';
import type { Spec } from '../spec/schema.js';
import { SELECTION_POLICIES, type BenchSelection, type SelectionPolicy } from './types.js';
import { jsonSchemaFor } from '../spec/reference.js';
import { closestKey } from '../spec/suggestions.js';
import { SourceLocator } from '../spec/toml-positions.js';

const id = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'expected letters, digits, ".", "_" or "-" (it names the trials and their runs)')
  .max(40, 'expected at most 40 characters');

const task = z.strictObject({
  id: id.meta({ description: "the task's name in the reports" }),
  spec: nonEmpty.meta({
    description: 'the task: a run spec file (repo, base, prompt, checks with optional `kind` roles, loop, setup), relative to the bench spec',
  }),
  folder: nonEmpty.optional().meta({ description: "a plain folder made into a fresh git repo for the task, instead of the run spec's `repo`" }),
  bar: z.number().min(0).max(1).default(0.5).meta({ description: "the resolved rate the task's JUnit test case needs, per agent" }),
  history: z.enum(['shared', 'base']).default('shared').meta({
    description:
      '`"shared"`: the task\'s repo is a clone of the spec\'s `repo` sharing its objects; `"base"`: a repo holding only the objects reachable from `base` (no later commit, such as a mined task\'s fix, in any object store an agent can read), and the trials\' sandbox hides the source repo. Not with `folder`',
  }),
  reference: nonEmpty.optional().meta({
    description:
      "the task's known-good change: a patch that `git apply` takes at `base`, relative to the bench spec; given to an agent with `reference = true`, hidden from the others",
  }),
  resolved_by: z.enum(['checks', 'oracle']).default('checks').meta({
    description:
      '`"checks"`: a trial is resolved by the task\'s checks (their roles); `"oracle"`: when the trial\'s candidate passes every oracle check (`kind = "oracle"`, which the task\'s spec then needs) and did not tamper',
  }),
});

const selection = z.strictObject({
  policy: z.enum(SELECTION_POLICIES).meta({
    description:
      'how the trial\'s run picks its candidate: `"tie_break"` (score, then the spec\'s tie-breaks), `"vote"` (the vote\'s ranking; the task\'s spec needs `[vote] enabled`) or `"distinguish"` (the distinguishing tests\' ranking; the task\'s spec needs `[select.distinguish]`)',
  }),
  name: id.optional().meta({ description: 'its name in the reports', defaultText: 'the policy' }),
});

const agent = providerOverride.extend({
  id: id.meta({ description: "the agent's name in the reports (`claude-sonnet`)" }),
  kind: providerOverride.shape.kind.unwrap(),
  reference: z.boolean().default(false).meta({
    description:
      "`true`: the bench's reference agent, whose trials get `BESTOF_BENCH_REFERENCE`, the absolute path of the task's `reference` patch (every task then needs one), and run without the sandbox (the patch is often under HOME or /tmp, which the sandbox hides); the other agents' sandbox hides the patches' folders",
  }),
});

export const benchSpecSchema = z
  .strictObject({
    name: id.default('bench').meta({ description: "the bench name: in bench.json, the reports and the trials' run names" }),
    trials: count(1).max(100).default(1).meta({ description: 'trials of every task by every agent' }),
    best_of: count(1).max(8).default(1).meta({ description: 'candidates of the agent per trial; the trial is the best of them' }),
    max_concurrency: count(1).default(2).meta({ description: 'trials that run at the same time' }),
    time_limit: limit('start no trial at all', 'no limit').optional().meta({ description: 'no trial starts after this; trials not run are listed as such' }),
    max_total_cost_usd: usd.optional().meta({ description: 'no trial starts once the bench has spent this' }),
    tolerance: z
      .strictObject({
        resolved_rate: z
          .number()
          .min(0)
          .max(1)
          .default(0.05)
          .meta({ description: '`--baseline`: a drop of the resolved rate past this (and outside the intervals) is a regression' }),
        cost: z.number().nonnegative().default(0.25).meta({ description: '`--baseline`: a rise of mean cost past this fraction is a regression' }),
      })
      .prefault({})
      .meta({ description: 'What `--baseline` lets pass before it calls a change a regression (exit 1).' }),
    tasks: z
      .array(task)
      .min(1, 'a bench needs at least one [[tasks]] entry')
      .meta({ description: 'the tasks, one `[[tasks]]` entry each: a run spec, an optional plain folder for its repo, a bar' }),
    selections: z.array(selection).min(1, 'list at least one [[selections]] entry, or leave the key out for the tie-break alone').optional().meta({
      description:
        'the selection policies every trial is scored by against the tasks\' oracle checks (`kind = "oracle"`), all from the same run\'s candidates (paired, no extra agent run); one `[[selections]]` entry each',
      defaultText: 'one entry: `policy = "tie_break"`',
    }),
    agents: z.array(agent).min(1, 'a bench needs at least one [[agents]] entry').meta({
      description:
        "the agents, one `[[agents]]` entry each: an `id` and the keys of a run spec's `[provider]` (kind, model, command, env, ...), paths relative to the bench spec",
    }),
  })
  .superRefine((spec, ctx) => {
    for (const [list, name] of [
      [spec.tasks, 'tasks'],
      [spec.agents, 'agents'],
    ] as const) {
      const seen = new Set<string>();
      list.forEach((entry, index) => {
        if (seen.has(entry.id)) ctx.addIssue({ code: 'custom', path: [name, index, 'id'], message: `duplicate id "${entry.id}": ids must be unique` });
        seen.add(entry.id);
      });
    }
    const names = new Set<string>();
    (spec.selections ?? []).forEach((entry, index) => {
      const name = entry.name ?? entry.policy;
      if (names.has(name))
        ctx.addIssue({ code: 'custom', path: ['selections', index], message: `duplicate selection "${name}": give each entry its own \`name\`` });
      names.add(name);
    });
  });

export type BenchSpec = z.output<typeof benchSpecSchema>;
export type BenchTaskSpec = BenchSpec['tasks'][number];
export type BenchAgentSpec = BenchSpec['agents'][number];

export interface LoadedBench {
  readonly spec: BenchSpec;
  readonly specPath: string;
  readonly specDir: string;
  readonly source: string;
  /** sha256 of the bench spec, every task's spec, its reference patch and its oracle's expected tests: shards of other specs are never merged. */
  readonly hash: string;
  /** Each task's run spec, loaded and checked, by task id. */
  readonly tasks: ReadonlyMap<string, LoadedSpec>;
  /** The raw TOML of each agent's table (what the trials' run specs hold), by agent id. */
  readonly agentTables: ReadonlyMap<string, Record<string, unknown>>;
  /** `[[selections]]` with their names, or the tie-break alone. */
  readonly selections: readonly BenchSelection[];
}

const KNOWN_KEYS: Record<string, readonly string[]> = {
  '': Object.keys(benchSpecSchema.shape),
  tasks: Object.keys(task.shape),
  agents: Object.keys(agent.shape),
  tolerance: ['resolved_rate', 'cost'],
  selections: Object.keys(selection.shape),
};

export async function loadBenchSpec(specPath: string): Promise<Result<LoadedBench, SpecProblem[]>> {
  const absolute = resolve(specPath);
  const specDir = dirname(absolute);
  let source: string;
  try {
    source = (await readFile(absolute, 'utf8')).replace(/^\uFEFF/, '');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return err([{ file: specPath, message: code === 'ENOENT' ? `file not found: ${absolute}` : `cannot read ${absolute}: ${(error as Error).message}` }]);
  }
  let data: unknown;
  try {
    data = parse(source);
  } catch (error) {
    return err([tomlSyntaxProblem(specPath, source, error)]);
  }
  const locator = new SourceLocator(specPath, source);
  const parsed = benchSpecSchema.safeParse(data, { error: humanIssueMessage });
  if (!parsed.success) {
    return err(
      parsed.error.issues.flatMap((issue) => {
        if (issue.code !== 'unrecognized_keys') return schemaProblems(issue, data, locator);
        const table = issue.path.find((p): p is string => typeof p === 'string') ?? '';
        return issue.keys.map((key) => {
          const guess = closestKey(key, KNOWN_KEYS[table] ?? []);
          const where = table === '' ? 'at the top level' : `in [[${table}]]`;
          return locator.problem(
            [...issue.path.filter((p): p is string | number => typeof p !== 'symbol'), key],
            `unknown key "${key}" ${where}${guess ? ` — did you mean "${guess}"?` : ` (known keys: ${(KNOWN_KEYS[table] ?? []).join(', ')})`}`,
            'key',
          );
        });
      }),
    );
  }
  const spec = parsed.data;
  const problems: SpecProblem[] = [];
  const tasks = new Map<string, LoadedSpec>();
  const hash = createHash('sha256').update(source);
  for (const [index, t] of spec.tasks.entries()) {
    const taskPath = resolve(specDir, t.spec);
    const loaded = await loadSpec(taskPath);
    if (!loaded.ok) {
      problems.push(locator.problem(['tasks', index, 'spec'], `the task's run spec ${taskPath} is not valid (its problems follow)`, 'value'), ...loaded.error);
      continue;
    }
    if (withoutOracleChecks(loaded.value.spec).checks.items.length === 0) {
      problems.push(
        locator.problem(
          ['tasks', index, 'spec'],
          `the task's run spec ${taskPath} has no checks: a trial is resolved by its checks ([[checks.items]], with \`kind = "fail_to_pass"\` for those the task must make pass)`,
          'value',
        ),
      );
      continue;
    }
    tasks.set(t.id, loaded.value);
    hash.update(`\0${t.id}\0${loaded.value.source}`);
    if (t.folder !== undefined) {
      const folder = resolve(specDir, t.folder);
      const kind = await stat(folder).then(
        (s) => (s.isDirectory() ? 'dir' : 'file'),
        () => 'missing',
      );
      if (kind !== 'dir')
        problems.push(
          locator.problem(
            ['tasks', index, 'folder'],
            `${kind === 'missing' ? 'folder not found' : 'not a folder'}: ${folder} (paths in a bench spec are relative to its folder)`,
            'value',
          ),
        );
    }
  }
  problems.push(...(await minedTaskProblems(spec, data, tasks, specDir, locator, hash)));
  for (const [index, a] of spec.agents.entries()) {
    const missing = a.kind === undefined ? undefined : missingKindKey(a.kind, (key) => a[key] !== undefined);
    if (missing) problems.push(locator.problem(['agents', index, missing.key], missing.message, 'key'));
    if (a.script !== undefined) {
      const script = resolve(specDir, a.script);
      if (
        !(await stat(script).then(
          (s) => s.isFile(),
          () => false,
        ))
      )
        problems.push(locator.problem(['agents', index, 'script'], `file not found: ${script} (paths in a bench spec are relative to its folder)`, 'value'));
    }
  }
  const selections = (spec.selections ?? [{ policy: 'tie_break' as const }]).map((s) => ({ name: s.name ?? s.policy, policy: s.policy }));
  if (spec.selections !== undefined) problems.push(...selectionProblems(spec, selections, tasks, locator));
  if (problems.length > 0) return err(problems);
  const rawAgents = ((data as { agents?: unknown[] }).agents ?? []) as Record<string, unknown>[];
  const agentTables = new Map(spec.agents.map((a, i) => [a.id, agentTable(rawAgents[i] ?? {}, specDir)]));
  return ok({ spec, specPath: absolute, specDir, source, hash: hash.digest('hex').slice(0, 16), tasks, agentTables, selections });
}

/** A selection needs an oracle to be scored against, and a policy that the tasks' specs turn on. */
function selectionProblems(
  spec: BenchSpec,
  selections: readonly BenchSelection[],
  tasks: ReadonlyMap<string, LoadedSpec>,
  locator: SourceLocator,
): SpecProblem[] {
  // Tasks whose spec did not load are already a problem of their own.
  const judged = spec.tasks.flatMap((t) => {
    const loaded = tasks.get(t.id);
    return loaded && oracleChecks(loaded.spec).length > 0 ? [{ id: t.id, loaded }] : [];
  });
  if (judged.length === 0 && spec.tasks.some((t) => !tasks.has(t.id))) return [];
  if (judged.length === 0) {
    return [
      locator.problem(
        ['selections', 0, 'policy'],
        'no task has an oracle check (`kind = "oracle"` in its [[checks.items]]): a selection is scored by how often its pick passes the oracle; add one, or leave [[selections]] out',
        'key',
      ),
    ];
  }
  const needs: Record<Exclude<SelectionPolicy, 'tie_break'>, { key: string; on: (s: Spec) => boolean }> = {
    vote: { key: '[vote] enabled = true', on: (s) => s.vote.enabled },
    distinguish: { key: '[select.distinguish]', on: (s) => s.select.distinguish !== undefined },
  };
  return selections.flatMap((selection, index) => {
    if (selection.policy === 'tie_break') return [];
    const need = needs[selection.policy];
    const off = judged.filter((t) => !need.on(t.loaded.spec));
    if (off.length === 0) return [];
    const which = off.map((t) => `${t.id} (${t.loaded.specPath})`).join(', ');
    return [
      locator.problem(
        ['selections', index, 'policy'],
        `policy "${selection.policy}" needs ${need.key} in every task's spec that has an oracle, and ${which} has none: its runs would never pick by it; add it there, or drop this selection`,
        'value',
      ),
    ];
  });
}

/**
 * The keys a mined task leans on (`history`, `reference`, `resolved_by`), checked against the rest:
 * each would otherwise be silently meaningless (a history for a folder, an oracle rule with no oracle)
 * or fail every trial of the reference agent at run time.
 */
async function minedTaskProblems(
  spec: BenchSpec,
  data: unknown,
  tasks: ReadonlyMap<string, LoadedSpec>,
  specDir: string,
  locator: SourceLocator,
  hash: Hash,
): Promise<SpecProblem[]> {
  const problems: SpecProblem[] = [];
  const rawTasks = ((data as { tasks?: unknown[] }).tasks ?? []) as Record<string, unknown>[];
  const referenceAgent = spec.agents.find((a) => a.reference);
  for (const [index, t] of spec.tasks.entries()) {
    if (t.folder !== undefined && rawTasks[index]?.history !== undefined)
      problems.push(
        locator.problem(
          ['tasks', index, 'history'],
          "history is for a task whose repo is cloned from its spec's `repo`; a `folder` task's repo is a fresh one of its files, with no history: remove history or folder",
          'key',
        ),
      );
    if (t.reference !== undefined) {
      const file = resolve(specDir, t.reference);
      const isFile = await stat(file).then(
        (s) => s.isFile(),
        () => false,
      );
      if (!isFile)
        problems.push(locator.problem(['tasks', index, 'reference'], `file not found: ${file} (paths in a bench spec are relative to its folder)`, 'value'));
      // What the reference agent applies is part of the bench: shards of another patch are never merged.
      else hash.update(`\0reference\0${t.id}\0${await readFile(file, 'utf8')}`);
    } else if (referenceAgent !== undefined)
      problems.push(
        locator.problem(
          ['tasks', index, 'id'],
          `task "${t.id}" has no \`reference\` (its known-good patch), which agent "${referenceAgent.id}" (reference = true) applies: add one, or leave that agent out`,
          'value',
        ),
      );
    const loaded = tasks.get(t.id);
    // An `expect` file that lists no names would fail every candidate's oracle: said now, before any trial runs.
    for (const check of loaded ? oracleChecks(loaded.spec) : []) {
      if (check.expect === undefined || loaded === undefined) continue;
      const read = await readExpectedTests(resolveSpecPath(loaded.specDir, check.expect));
      if (!read.ok) problems.push(locator.problem(['tasks', index, 'spec'], `the oracle check ${check.name} of ${loaded.specPath}: ${read.why}`, 'value'));
      // The tests the oracle asks for decide the pick's figures: shards of another list are never merged.
      else hash.update(`\0expect\0${t.id}\0${check.name}\0${JSON.stringify(read.tests)}`);
    }
    if (t.resolved_by === 'oracle' && loaded !== undefined && oracleChecks(loaded.spec).length === 0)
      problems.push(
        locator.problem(
          ['tasks', index, 'resolved_by'],
          `resolved_by = "oracle" needs an oracle check in the task's spec ${loaded.specPath} (a [[checks.items]] entry with kind = "oracle"): add one, or use "checks"`,
          'value',
        ),
      );
  }
  return problems;
}

/** An agent's table as a run spec's `[provider]`: without `id`, its paths made absolute (the trial's spec lives elsewhere). */
function agentTable(raw: Record<string, unknown>, specDir: string): Record<string, unknown> {
  const { id: _id, reference: _reference, ...table } = raw;
  if (typeof table.script === 'string') table.script = resolve(specDir, table.script);
  // A command with a slash is a path relative to the bench spec; a bare name is looked up on PATH.
  if (typeof table.command === 'string' && table.command.includes('/')) table.command = resolve(specDir, table.command);
  return table;
}

/** Where the bench spec's JSON Schema is committed (scripts/gen-spec-docs.mjs writes it; a test keeps it current). */
export const BENCH_JSON_SCHEMA_PATH = 'configs/bench.schema.json';

/** The bench spec's JSON Schema, for editors (`#:schema` first line), as the run spec has one. */
export function benchJsonSchemaText(): string {
  const schema = jsonSchemaFor(benchSpecSchema, {
    title: 'bestof bench spec',
    description: 'A matrix of tasks (run specs) x agents ([provider] tables with an id) x trials for `bestof bench`. See docs/bench.md.',
  });
  return `${JSON.stringify(schema, null, 2)}\n`;
}
