/**
 * The bench spec (src/bench/bench-spec.ts): the example loads, its JSON Schema is current and
 * says what the loader says, and a wrong spec gets file:line:column, the dotted key and the fix.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { BENCH_JSON_SCHEMA_PATH, benchJsonSchemaText, loadBenchSpec } from '../../src/bench/bench-spec.js';
import { loadSpec } from '../../src/spec/load.js';
import { PROJECT_ROOT } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';
import { validateJsonSchema } from '../spec/json-schema-subset.js';

const EXAMPLE = join(PROJECT_ROOT, 'configs', 'bench', 'bench.toml');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A bench folder with one valid task spec (tasks/t.toml) and a script; `bench` is the bench spec's text. */
function benchDir(bench: string): string {
  const dir = makeTempDir('bestof-bench-spec-');
  dirs.push(dir);
  mkdirSync(join(dir, 'tasks', 'folder'), { recursive: true });
  writeFileSync(join(dir, 'tasks', 't.toml'), '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\nkind = "fail_to_pass"\n');
  writeFileSync(join(dir, 'steps.toml'), '[[steps]]\nsay = "hi"\n');
  writeFileSync(join(dir, 'bench.toml'), bench);
  return join(dir, 'bench.toml');
}

const TASK_WITH_ORACLE =
  '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n[[checks.items]]\nname = "o"\ncommand = "true"\nkind = "oracle"\n';

describe('the bench spec', () => {
  it('[[selections]] of a task with an oracle: named by their policy unless named', async () => {
    const path = benchDir(
      '[[selections]]\npolicy = "tie_break"\n[[selections]]\npolicy = "tie_break"\nname = "again"\n[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
    );
    writeFileSync(join(path, '..', 'tasks', 'o.toml'), TASK_WITH_ORACLE);
    const loaded = await loadBenchSpec(path);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect(loaded.value.selections).toEqual([
      { name: 'tie_break', policy: 'tie_break' },
      { name: 'again', policy: 'tie_break' },
    ]);
  });

  it('the example loads; its tasks are run specs and its agents are [provider] tables', async () => {
    const loaded = await loadBenchSpec(EXAMPLE);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect(loaded.value.spec.agents.map((a) => a.id)).toEqual(['thorough', 'hasty', 'gamer']);
    expect(loaded.value.tasks.get('slugify')?.spec.checks.items.length).toBeGreaterThan(0);
    // The agent's script path is made absolute: the trial's own spec is written elsewhere.
    expect(loaded.value.agentTables.get('hasty')).toEqual({ kind: 'script', script: join(PROJECT_ROOT, 'configs', 'demo', 'candidates', 'hasty.toml') });
  });

  it(`${BENCH_JSON_SCHEMA_PATH} is current, and the example fits it`, () => {
    const committed = readFileSync(join(PROJECT_ROOT, BENCH_JSON_SCHEMA_PATH), 'utf8');
    expect(committed, `${BENCH_JSON_SCHEMA_PATH} is out of date: run \`npm run gen:spec\``).toBe(benchJsonSchemaText());
    const schema = JSON.parse(committed) as Parameters<typeof validateJsonSchema>[0];
    expect(validateJsonSchema(schema, parse(readFileSync(EXAMPLE, 'utf8')))).toEqual([]);
    expect(validateJsonSchema(schema, { tasks: [], agents: [], trails: 3 })).not.toEqual([]);
  });

  it('the hash changes with a task spec, so that shards of different tasks are never merged', async () => {
    const path = benchDir('[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n');
    const before = await loadBenchSpec(path);
    writeFileSync(join(path, '..', 'tasks', 't.toml'), '[prompt]\ntext = "y"\n[[checks.items]]\nname = "c"\ncommand = "true"\n');
    const after = await loadBenchSpec(path);
    expect(before.ok && after.ok && before.value.hash !== after.value.hash).toBe(true);
  });

  it.each([
    [
      'a typo of a key, with the key it meant',
      '[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscirpt = "steps.toml"\n',
      /bench\.toml:7:1 .*unknown key "scirpt" in \[\[agents\]\] — did you mean "script"\?/s,
    ],
    [
      'a duplicate id',
      '[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /agents\[1\]\.id.*duplicate id "a"/s,
    ],
    [
      'a task spec that does not exist',
      '[[tasks]]\nid = "t"\nspec = "tasks/none.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /tasks\[0\]\.spec.*is not valid.*file not found: .*none\.toml/s,
    ],
    [
      'a folder that does not exist',
      '[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\nfolder = "nope"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /tasks\[0\]\.folder.*folder not found/s,
    ],
    [
      'a command agent without its command',
      '[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n[[agents]]\nid = "a"\nkind = "command"\n',
      /agents\[0\]\.command.*kind = "command" needs `command/s,
    ],
    ['no agents', '[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n', /agents.*a bench needs at least one \[\[agents\]\] entry|agents.*required/s],
    [
      'a task without checks',
      '[[tasks]]\nid = "t"\nspec = "tasks/nochecks.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /tasks\[0\]\.spec.*no checks/s,
    ],
    [
      'a task with only an oracle check',
      '[[tasks]]\nid = "t"\nspec = "tasks/onlyoracle.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /tasks\[0\]\.spec.*no checks/s,
    ],
    [
      'selections without a task that has an oracle',
      '[[selections]]\npolicy = "tie_break"\n[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /bench\.toml:2:1 selections\[0\]\.policy no task has an oracle check/,
    ],
    [
      'a vote selection for a task whose spec has no vote',
      '[[selections]]\npolicy = "tie_break"\n[[selections]]\npolicy = "vote"\n[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /bench\.toml:4:10 selections\[1\]\.policy policy "vote" needs \[vote\] enabled = true in every task's spec that has an oracle, and o \(.*o\.toml\) has none/,
    ],
    [
      'a distinguish selection for a task whose spec has no [select.distinguish]',
      '[[selections]]\npolicy = "distinguish"\n[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /bench\.toml:2:10 selections\[0\]\.policy policy "distinguish" needs \[select\.distinguish\]/,
    ],
    [
      'two selections of one name',
      '[[selections]]\npolicy = "tie_break"\n[[selections]]\npolicy = "tie_break"\n[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\n[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n',
      /selections\[1\].*duplicate selection "tie_break": give each entry its own `name`/s,
    ],
  ])('%s: file:line:column or the dotted key, and the fix', async (_name, text, expected) => {
    const path = benchDir(text);
    writeFileSync(join(path, '..', 'tasks', 'nochecks.toml'), '[prompt]\ntext = "x"\n');
    writeFileSync(join(path, '..', 'tasks', 'onlyoracle.toml'), '[prompt]\ntext = "x"\n[[checks.items]]\nname = "o"\ncommand = "true"\nkind = "oracle"\n');
    writeFileSync(join(path, '..', 'tasks', 'o.toml'), `${TASK_WITH_ORACLE}`);
    const loaded = await loadBenchSpec(path);
    expect(loaded.ok).toBe(false);
    if (loaded.ok) return;
    const text2 = loaded.error.map((p) => `${p.file}:${p.line ?? '-'}:${p.column ?? '-'} ${p.key ?? ''} ${p.message}`).join('\n');
    expect(text2).toMatch(expected);
  });

  it('a run spec with the [bench] table of early versions is told where a bench lives now', async () => {
    const path = benchDir('');
    writeFileSync(path, '[prompt]\ntext = "x"\n[bench]\nrepeat = 3\n');
    const loaded = await loadSpec(path);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok) expect(loaded.error[0]?.message).toMatch(/unknown key "bench" at the top level: a bench has a spec file of its own/);
  });
});
