/**
 * What `bestof bench mine` writes into its folder, from the verdicts (./mine.ts):
 *
 *   bench.toml            the tasks; agents left for the user (a commented example), or the
 *                         reference agent with --reference
 *   tasks/<id>.toml       a run spec per task: the repo at the parent, the commit's message as the
 *                         prompt, the repo's report check as the visible check, and the hidden oracle
 *   hidden/<id>/files/    the commit's version of its test files, at their paths in the repo
 *   hidden/<id>/expected.json   the fail-to-pass and pass-to-pass tests by name: the oracle's `expect`
 *   reference/<id>.patch  the commit's change outside the tests (what the reference agent applies)
 *
 * The hidden folders are outside the repo, hidden from every agent and check of a trial by the
 * bench (the oracle's folders and, with `history = "base"`, the repo itself), and the task repo of
 * a trial holds only the parent's history: no agent can read the fix or its tests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { stringify } from 'smol-toml';
import { layFilesOf } from './trees.js';
import type { MineProfile } from './profile.js';
import type { KeptTask } from './types.js';

/** Where the hidden tests appear in the oracle's tree while it runs (its command copies them over the candidate's). */
export const HIDDEN_INTO = '.bestof-mined';
export const ORACLE_CHECK = 'fix-tests';

export interface BenchFolderInput {
  readonly out: string;
  readonly root: string;
  readonly name: string;
  readonly profile: MineProfile;
  readonly tasks: readonly KeptTask[];
  /** The fix of each task, as a patch (its id -> text). */
  readonly patches: ReadonlyMap<string, string>;
  readonly reference: boolean;
  readonly header: string;
}

/** Writes a task's files (spec, hidden tests, expected names, reference patch). */
export async function writeTaskFiles(input: BenchFolderInput, task: KeptTask): Promise<void> {
  const { out, root } = input;
  const hidden = join(out, 'hidden', task.id);
  mkdirSync(join(hidden, 'files'), { recursive: true });
  const laid = await layFilesOf(root, task.sha, task.testFiles, join(hidden, 'files'));
  if (laid !== undefined) throw new Error(`cannot write the hidden tests of ${task.id}: ${laid}`);
  writeFileSync(
    join(hidden, 'expected.json'),
    `${JSON.stringify({ commit: task.sha, tests: [...task.failToPass, ...task.passToPass], failToPass: task.failToPass }, null, 2)}\n`,
  );
  mkdirSync(join(out, 'reference'), { recursive: true });
  writeFileSync(join(out, 'reference', `${task.id}.patch`), input.patches.get(task.id) ?? '');
  mkdirSync(join(out, 'tasks'), { recursive: true });
  writeFileSync(join(out, 'tasks', `${task.id}.toml`), taskSpec(input, task));
}

function taskSpec(input: BenchFolderInput, task: KeptTask): string {
  const { profile } = input;
  const tasksDir = join(input.out, 'tasks');
  const visible = { ...input.profile.check };
  const oracle = {
    name: ORACLE_CHECK,
    kind: 'oracle',
    // The laid files are read-only and go away after the check: copied over the candidate's tree first.
    command: `cp -R ${HIDDEN_INTO}/files/. . && ${profile.suite.command}`,
    report: profile.suite.report,
    timeout: visible.timeout ?? '10m',
    hidden: relative(tasksDir, join(input.out, 'hidden', task.id)),
    into: HIDDEN_INTO,
    expect: relative(tasksDir, join(input.out, 'hidden', task.id, 'expected.json')),
  };
  const checks: Record<string, unknown> = {};
  if (profile.frozen.length > 0) checks.frozen = profile.frozen;
  if (profile.protected.length > 0) checks.protected = profile.protected;
  if (profile.editable.length > 0) checks.editable = profile.editable;
  checks.items = [visible, oracle];
  const spec: Record<string, unknown> = {
    name: task.id,
    repo: relative(tasksDir, input.root) || '.',
    base: task.parent,
    prompt: { text: task.message },
    checks,
  };
  if (profile.setup !== undefined) spec.setup = profile.setup;
  if (profile.sandbox !== undefined) spec.sandbox = profile.sandbox;
  const head = [
    `# A task mined by \`bestof bench mine\` from commit ${task.sha}`,
    `# (${task.date.slice(0, 10)}: ${oneLine(task.subject)}). Base: its parent; prompt: its message;`,
    `# the oracle: its own tests (${task.failToPass.length} fail before the fix, ${task.passToPass.length} keep passing), hidden from the agents.`,
    '',
  ];
  return `${head.join('\n')}${stringify(spec)}\n`;
}

/** bench.toml. */
export function benchToml(input: BenchFolderInput): string {
  const tasks = input.tasks.map((task) => ({
    id: task.id,
    spec: `tasks/${task.id}.toml`,
    history: 'base',
    reference: `reference/${task.id}.patch`,
    resolved_by: 'oracle',
  }));
  const body: Record<string, unknown> = { name: input.name, trials: 1, best_of: 1, max_concurrency: 2, tasks };
  if (input.reference) {
    body.agents = [
      {
        id: 'reference',
        kind: 'command',
        command: 'sh',
        args: ['-c', 'git apply --whitespace=nowarn "$BESTOF_BENCH_REFERENCE"'],
        reference: true,
      },
    ];
  }
  const example = [
    '',
    "# The agents to measure: add one [[agents]] entry each (the keys of a run spec's [provider]), e.g.",
    '# [[agents]]',
    '# id = "claude-sonnet"',
    '# kind = "claude"',
    '# model = "sonnet"',
    '#',
    "# best_of above 1 also reports how often the run's pick passes the hidden tests (docs/bench.md).",
    '',
  ];
  return `${input.header}\n${stringify(body)}\n${example.join('\n')}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 100);
}
