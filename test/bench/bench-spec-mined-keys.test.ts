/**
 * The keys a mined task leans on, as the specs load them: a check's `expect` (only an oracle with
 * a report reads it), a task's `history`, `reference` and `resolved_by`, an agent's `reference`;
 * each misuse is a spec problem with its place and the fix, and the trial's spec carries what they
 * mean (the reference's path to the reference agent only, its folder hidden from the others, the
 * source repo hidden when the task's repo holds base's history alone).
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'smol-toml';
import { afterEach, describe, expect, it } from 'vitest';
import { loadBenchSpec } from '../../src/bench/bench-spec.js';
import { trialSpecToml } from '../../src/bench/run-trial.js';
import { loadSpec } from '../../src/spec/load.js';
import { runCli } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const ORACLE_TASK =
  '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n[[checks.items]]\nname = "o"\ncommand = "true"\nkind = "oracle"\nreport = "tap"\nexpect = "expect.json"\n';

/** A bench folder: tasks/t.toml (no oracle), tasks/o.toml (an oracle with `expect`), a patch, a script. */
function benchDir(bench: string): string {
  const dir = makeTempDir('bestof-bench-mined-');
  dirs.push(dir);
  mkdirSync(join(dir, 'tasks', 'folder'), { recursive: true });
  writeFileSync(join(dir, 'tasks', 't.toml'), '[prompt]\ntext = "x"\n[[checks.items]]\nname = "c"\ncommand = "true"\n');
  writeFileSync(join(dir, 'tasks', 'o.toml'), ORACLE_TASK);
  writeFileSync(join(dir, 'tasks', 'expect.json'), '{"tests": ["a"]}\n');
  mkdirSync(join(dir, 'refs'));
  writeFileSync(join(dir, 'refs', 'o.patch'), '');
  writeFileSync(join(dir, 'steps.toml'), '[[steps]]\nsay = "hi"\n');
  writeFileSync(join(dir, 'bench.toml'), bench);
  return join(dir, 'bench.toml');
}

const AGENT = '[[agents]]\nid = "a"\nkind = "script"\nscript = "steps.toml"\n';
const REFERENCE_AGENT = '[[agents]]\nid = "ref"\nkind = "command"\ncommand = "sh"\nreference = true\n';

async function problemsOf(path: string): Promise<string> {
  const loaded = await loadBenchSpec(path);
  if (loaded.ok) return '';
  return loaded.error.map((p) => `${p.file}:${p.line ?? '-'}:${p.column ?? '-'} ${p.key ?? ''} ${p.message}`).join('\n');
}

describe("a check's expect", () => {
  it.each([
    ['a check that is not an oracle', 'name = "o"\ncommand = "true"\nreport = "tap"\nexpect = "expect.json"\n'],
    ['an oracle without a report', 'name = "o"\ncommand = "true"\nkind = "oracle"\nexpect = "expect.json"\n'],
  ])('on %s: a spec problem naming the key', async (_name, item) => {
    const path = benchDir('');
    const spec = join(path, '..', 'tasks', 'bad.toml');
    writeFileSync(spec, `[prompt]\ntext = "x"\n[[checks.items]]\n${item}`);
    const loaded = await loadSpec(spec);
    expect(loaded.ok).toBe(false);
    if (!loaded.ok)
      expect(loaded.error.map((p) => `${p.key} ${p.message}`).join('\n')).toMatch(/checks\.items\[0\]\.expect expect .*needs kind = "oracle" and report/);
  });

  it('an oracle with a report and an expect file that exists loads; one that does not exist is refused', async () => {
    const path = benchDir('');
    const loaded = await loadSpec(join(path, '..', 'tasks', 'o.toml'));
    expect(loaded.ok && loaded.value.spec.checks.items[1]?.expect).toBe('expect.json');
    rmSync(join(path, '..', 'tasks', 'expect.json'));
    const missing = await loadSpec(join(path, '..', 'tasks', 'o.toml'));
    expect(missing.ok).toBe(false);
  });
});

describe('the mined task keys of a bench spec', () => {
  it.each([
    [
      'history with a folder',
      `[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\nfolder = "tasks/folder"\nhistory = "base"\n${AGENT}`,
      /bench\.toml:5:1 tasks\[0\]\.history history is for a task whose repo is cloned .*remove history or folder/,
    ],
    [
      'a reference file that does not exist',
      `[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\nreference = "refs/none.patch"\n${AGENT}`,
      /bench\.toml:4:13 tasks\[0\]\.reference file not found: .*none\.patch/,
    ],
    [
      'a reference agent and a task without a reference',
      `[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\nreference = "refs/o.patch"\n[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n${REFERENCE_AGENT}`,
      /bench\.toml:6:6 tasks\[1\]\.id task "t" has no `reference` .*agent "ref" \(reference = true\)/,
    ],
    [
      'resolved_by = "oracle" for a task without an oracle',
      `[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\nresolved_by = "oracle"\n${AGENT}`,
      /bench\.toml:4:15 tasks\[0\]\.resolved_by resolved_by = "oracle" needs an oracle check in the task's spec/,
    ],
    [
      "an oracle's expect file that lists no test",
      `[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\n${AGENT}`,
      /bench\.toml:3:8 tasks\[0\]\.spec the oracle check o of .*o\.toml: its expected tests \(.*expect\.json\) are not \{"tests": \["name", \.\.\.\]\} with at least one name/,
      '{"tests": []}',
    ],
  ])('%s: file:line:column, the key and the fix', async (_name, text, expected, expectFile?: string) => {
    const path = benchDir(text);
    if (expectFile !== undefined) writeFileSync(join(path, '..', 'tasks', 'expect.json'), expectFile);
    expect(await problemsOf(path)).toMatch(expected);
  });

  it('bestof bench refuses a reference agent with a task that has no reference: exit 2, the place, nothing created', async () => {
    const path = benchDir(`[[tasks]]\nid = "t"\nspec = "tasks/t.toml"\n${REFERENCE_AGENT}`);
    const dir = join(path, '..');
    const result = await runCli(['bench', 'bench.toml', '--out', 'out', '--no-tui'], { cwd: dir, worktreesDir: join(dir, 'worktrees') });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/bench\.toml:2:6: tasks\[0\]\.id: task "t" has no `reference`/);
    expect(existsSync(join(dir, 'out'))).toBe(false);
  });

  it('a task of every key, and a reference agent, load', async () => {
    const path = benchDir(
      `[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\nreference = "refs/o.patch"\nhistory = "base"\nresolved_by = "oracle"\n${AGENT}${REFERENCE_AGENT}`,
    );
    const loaded = await loadBenchSpec(path);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    expect(loaded.value.spec.tasks[0]).toMatchObject({ history: 'base', resolved_by: 'oracle', reference: 'refs/o.patch' });
    expect(loaded.value.spec.agents.map((a) => a.reference)).toEqual([false, true]);
    // `reference` is the bench's key, not a provider's: the trial's [provider] does not get it.
    expect(loaded.value.agentTables.get('ref')).toEqual({ kind: 'command', command: 'sh' });
  });

  it("the hash changes with the reference patch and the oracle's expected tests, so that shards of other ones are never merged", async () => {
    const path = benchDir(`[[tasks]]\nid = "o"\nspec = "tasks/o.toml"\nreference = "refs/o.patch"\n${AGENT}`);
    const hashOf = async () => {
      const loaded = await loadBenchSpec(path);
      if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
      return loaded.value.hash;
    };
    const first = await hashOf();
    writeFileSync(join(path, '..', 'refs', 'o.patch'), 'another patch\n');
    const second = await hashOf();
    writeFileSync(join(path, '..', 'tasks', 'expect.json'), '{"tests": ["a", "b"]}\n');
    const third = await hashOf();
    expect(new Set([first, second, third]).size).toBe(3);
  });
});

describe("the trial's spec", () => {
  it('gives the reference agent the patch, unsandboxed; hides its folder and the source repo from the others', async () => {
    const path = benchDir('');
    const dir = join(path, '..');
    const loaded = await loadSpec(join(dir, 'tasks', 'o.toml'));
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.error));
    const file = join(dir, 'refs', 'o.patch');
    const taskRepo = { repo: join(dir, 'repo'), base: 'abc', hide: [join(dir, 'source')] };
    const trial = (agentTable: Record<string, unknown>, toAgent: boolean) =>
      parse(trialSpecToml({ loaded: loaded.value, agentTable, taskRepo, name: 'n', bestOf: 1, reference: { file, toAgent } })) as {
        provider: { env?: Record<string, string> };
        sandbox?: { hide?: string[]; mode?: string };
      };
    const ref = trial({ kind: 'command', command: 'sh', env: { KEEP: '1' } }, true);
    expect(ref.provider.env).toEqual({ KEEP: '1', BESTOF_BENCH_REFERENCE: file });
    expect(ref.sandbox?.mode).toBe('off');
    expect(ref.sandbox?.hide).toEqual([join(dir, 'source')]);
    const other = trial({ kind: 'script', script: 'x' }, false);
    expect(other.provider.env).toBeUndefined();
    expect(other.sandbox?.mode).toBeUndefined();
    expect(other.sandbox?.hide).toEqual([join(dir, 'source'), join(dir, 'refs')]);
  });
});
