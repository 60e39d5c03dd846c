/**
 * A small bench of `script` agents in a temp folder, for the tests that run the real
 * `bestof bench`: 1-2 tasks (t1: make f add, t2: make f multiply), each a folder with a run
 * spec whose checks have fail-to-pass and pass-to-pass roles, and agents that resolve or fail
 * each trial as PLAN says (the hand-worked bench of test/bench/hand-worked-bench.ts). One trial
 * of t1, gemini-flash#2, is lost to its setup: an infra failure.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { makeTempDir } from './temp-repo.js';

/** Which trials each agent resolves (R), fails (U), or loses to its setup (I): the hand-worked plan. */
const PLAN: Record<string, Record<string, string>> = {
  'claude-sonnet': { t1: 'RRR', t2: 'RUR' },
  'codex-mini': { t1: 'URU', t2: 'UUR' },
  'gemini-flash': { t1: 'RIU', t2: 'UUU' },
};
/** What each task's function must do: t1 adds, t2 multiplies. */
const RIGHT: Record<string, string> = { t1: 'a + b', t2: 'a * b' };

export interface BenchOptions {
  readonly trials?: number;
  readonly agents?: readonly string[];
  readonly tasks?: readonly string[];
}

/** A run spec of one task: the f2p test of its function, and a p2p check that must still pass. */
function taskSpec(task: string, infra: string | undefined): string {
  const expected = task === 't1' ? 5 : 6;
  return [
    `[prompt]\ntext = "Make f in src/f.js do what test/f.test.js asks."`,
    infra ? `[setup]\ncommands = ['[ "$BESTOF_BENCH_AGENT#$BESTOF_BENCH_TRIAL" != "${infra}" ]']` : '',
    '[checks]\nfrozen = ["test/**"]',
    `[[checks.items]]\nname = "f"\ncommand = "node test/f.test.js"\nkind = "fail_to_pass"\nscore = 8\n`,
    `[[checks.items]]\nname = "readme"\ncommand = "test -f README.md"\nkind = "pass_to_pass"\nscore = 2\n`,
    `[[checks.items]]\nname = "style"\ncommand = "true"\nscore = 1\n`,
    `# f(2, 3) must be ${expected}`,
  ].join('\n');
}

/** A script agent: it writes the right f for the trials its plan resolves, a wrong one otherwise. */
function agentScript(agent: string): string {
  const cases = Object.entries(PLAN[agent] ?? {}).flatMap(([task, marks]) =>
    [...marks].map((mark, i) => `${task}/${i + 1}) body='${mark === 'R' ? RIGHT[task] : 'a - b'}' ;;`),
  );
  return `[[steps]]\nrun = '''\ncase "$BESTOF_BENCH_TASK/$BESTOF_BENCH_TRIAL" in\n${cases.join('\n')}\n*) exit 9 ;;\nesac\nprintf 'module.exports = (a, b) => %s;\\n' "$body" > src/f.js\n'''\n`;
}

/** Writes the bench into `dir`: bench.toml, the tasks' specs and folders, the agents' scripts. */
export function writeBench(dir: string, options: BenchOptions = {}): void {
  const tasks = options.tasks ?? ['t1', 't2'];
  const agents = options.agents ?? Object.keys(PLAN);
  for (const task of tasks) {
    const folder = join(dir, 'tasks', task);
    mkdirSync(join(folder, 'src'), { recursive: true });
    mkdirSync(join(folder, 'test'), { recursive: true });
    writeFileSync(join(folder, 'README.md'), `# ${task}\n`);
    writeFileSync(join(folder, 'src', 'f.js'), 'module.exports = () => 0;\n');
    writeFileSync(
      join(folder, 'test', 'f.test.js'),
      `const f = require('../src/f.js');\nif (f(2, 3) !== ${task === 't1' ? 5 : 6}) { console.error('f(2, 3) is ' + f(2, 3)); process.exit(1); }\n`,
    );
    writeFileSync(join(dir, 'tasks', `${task}.toml`), taskSpec(task, task === 't1' ? 'gemini-flash#2' : undefined));
  }
  mkdirSync(join(dir, 'agents'), { recursive: true });
  for (const agent of agents) writeFileSync(join(dir, 'agents', `${agent}.toml`), agentScript(agent));
  const bars: Record<string, number> = { t1: 0.5, t2: 0.6 };
  writeFileSync(
    join(dir, 'bench.toml'),
    [
      'name = "nightly"',
      `trials = ${options.trials ?? 3}`,
      'max_concurrency = 2',
      ...tasks.map((t) => `[[tasks]]\nid = "${t}"\nspec = "tasks/${t}.toml"\nfolder = "tasks/${t}"\nbar = ${bars[t]}\n`),
      ...agents.map((a) => `[[agents]]\nid = "${a}"\nkind = "script"\nscript = "agents/${a}.toml"\n`),
    ].join('\n'),
  );
}

/**
 * Bench folders for one test file, removed after each test (kept with KEEP_TEST_DIRS=1). Call at
 * the top level of the file: `const { makeBench } = benchFolders();`.
 */
export function benchFolders(): { makeBench(options?: BenchOptions): string } {
  const made: string[] = [];
  afterEach(() => {
    if (!process.env.KEEP_TEST_DIRS) for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  return {
    makeBench: (options = {}) => {
      const dir = makeTempDir('bestof-bench-');
      made.push(dir);
      writeBench(dir, options);
      return dir;
    },
  };
}
