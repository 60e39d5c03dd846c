/**
 * configs/ci/github-actions-bench.yml, run here: the shell steps of its two jobs, read from the
 * file itself, run with `bash -e` (as GitHub runs a `run:` step) on a small bench of `script`
 * agents (2 tasks x 2 agents x 2 trials), with `bestof` on PATH being this checkout's
 * bin/bestof.js (over dist/: `npm run build` first).
 *
 * How the test reads the workflow: a line-based reader of a file we write ourselves (no YAML
 * parser among the dependencies). It relies on the form the workflow keeps: two-space indents,
 * jobs > steps as `- name:` items, each shell step a `run: |` block (any other `run:` is refused),
 * and no `${{ }}` in the shell but `${{ matrix.shard }}` and `${{ matrix.total }}`, replaced from
 * the job's matrix (anything else left is refused).
 *
 * What stands in for GitHub:
 * - each job runs in a workspace of its own, a copy of the bench folder (what `actions/checkout`
 *   gives), as each job has a runner of its own; a step runs when the steps before it succeeded,
 *   or whatever happened when it says `if: always()` (any other `if:` is refused);
 * - `actions/upload-artifact` and `actions/download-artifact` are simulated with the layout of
 *   their v4+ releases: an upload of one file holds it at the artifact's root (of a folder: the
 *   folder's content); a name already uploaded in the run is a conflict; a path with no file fails
 *   the step under `if-no-files-found: error`; a download by `pattern` (without `merge-multiple`)
 *   puts each artifact in `<path>/<artifact name>/`, so bench-out/shard-2/bench.json;
 * - steps skipped, and said so in the test's output: every other `uses:` step (checkout: the
 *   workspace is the copy; setup-node: the Node running this test; the JUnit publisher: the test
 *   reads its report_paths instead), and the two install steps (npm's bestof, and apt's
 *   bubblewrap with sudo: this machine's bubblewrap is used when it works).
 */
import { spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, delimiter, dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderBenchMarkdown } from '../../src/bench/markdown.js';
import { mergeBenchFiles } from '../../src/bench/merge.js';
import { summarizeBench } from '../../src/bench/summary.js';
import type { BenchFile } from '../../src/bench/types.js';
import { writeBench } from '../helpers/bench-fixture.js';
import { BESTOF_BIN, PROJECT_ROOT } from '../helpers/cli.js';
import { makeTempDir } from '../helpers/temp-repo.js';

const WORKFLOW = join(PROJECT_ROOT, 'configs', 'ci', 'github-actions-bench.yml');
const BENCH_STEP = 'Run the bench shard';
const AGENTS = ['claude-sonnet', 'codex-mini'];
const TASKS = ['t1', 't2'];

/** Shell steps that cannot run here, by name, and why. */
const NOT_RUN_HERE: Record<string, string> = {
  'Install bestof': 'bestof here is this checkout (a wrapper of bin/bestof.js on PATH), not the npm release',
  'Install the sandbox (bubblewrap)': 'needs sudo and apt; bestof uses the bubblewrap of this machine when it works',
};
/** Actions the test does not simulate, by name (before the @), and why. */
const ACTIONS_SKIPPED: Record<string, string> = {
  'actions/checkout': 'the workspace is already a copy of the bench folder',
  'actions/setup-node': 'Node is the one running this test',
  'mikepenz/action-junit-report': 'the test reads the file it would publish (report_paths) instead',
};

// --- Reading the workflow ---------------------------------------------------------------------

interface Step {
  readonly name: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly with: Record<string, string>;
  readonly env: Record<string, string>;
}

interface Job {
  /** The job's own keys (`needs`, `if`, `runs-on`...), as written. */
  readonly keys: Record<string, string>;
  /** `strategy.matrix`, each key's list of values. */
  readonly matrix: Record<string, string[]>;
  readonly steps: Step[];
}

interface Workflow {
  readonly env: Record<string, string>;
  readonly jobs: Map<string, Job>;
}

/** `key: value`, the value without a trailing comment or its quotes. */
function keyValue(text: string): [string, string] {
  const m = /^([\w.-]+):\s*(.*)$/.exec(text);
  if (!m) throw new Error(`the workflow reader expected "key: value", got: ${text}`);
  const value = (m[2] ?? '').replace(/\s+#.*$/, '').trim();
  return [m[1] as string, /^(['"]).*\1$/.test(value) ? value.slice(1, -1) : value];
}

function readWorkflow(text: string): Workflow {
  const lines = text.split('\n');
  const env: Record<string, string> = {};
  const jobs = new Map<string, Job>();
  let section = '';
  let job: Job | undefined;
  let inSteps = false;
  let step: { -readonly [K in keyof Step]: Step[K] } | undefined;
  let nested: Record<string, string> | undefined;
  let matrix: Record<string, string[]> | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\s*(#.*)?$/.test(line)) continue;
    const indent = line.length - line.trimStart().length;
    const content = line.trim();
    if (indent === 0) {
      section = content.replace(/:.*$/, '');
      continue;
    }
    if (section === 'env' && indent === 2) {
      const [k, v] = keyValue(content);
      env[k] = v;
    }
    if (section !== 'jobs') continue;
    if (indent === 2) {
      job = { keys: {}, matrix: {}, steps: [] };
      jobs.set(content.replace(/:$/, ''), job);
      inSteps = false;
      matrix = undefined;
      continue;
    }
    if (job === undefined) continue;
    if (indent === 4) {
      inSteps = content === 'steps:';
      const [k, v] = keyValue(content);
      job.keys[k] = v;
      continue;
    }
    if (!inSteps) {
      if (content === 'matrix:') matrix = job.matrix;
      else if (indent === 8 && matrix !== undefined) {
        const [k, v] = keyValue(content);
        matrix[k] = v
          .replace(/^\[|\]$/g, '')
          .split(',')
          .map((s) => s.trim());
      } else if (indent <= 6) matrix = undefined;
      continue;
    }
    if (indent === 6 && content.startsWith('- ')) {
      step = { name: '', with: {}, env: {} };
      job.steps.push(step);
      nested = undefined;
    }
    if (step === undefined) throw new Error(`the workflow reader: a line outside any step: ${line}`);
    if (indent === 10 && nested !== undefined) {
      const [k, v] = keyValue(content);
      nested[k] = v;
      continue;
    }
    if (indent !== 6 && indent !== 8) throw new Error(`the workflow reader: unexpected indent of ${indent} in step "${step.name}": ${line}`);
    const [key, value] = keyValue(content.replace(/^- /, ''));
    nested = undefined;
    if (key === 'name') step.name = value;
    else if (key === 'uses') step.uses = value;
    else if (key === 'if') step.if = value;
    else if (key === 'with' || key === 'env') nested = step[key];
    else if (key === 'run') {
      if (value !== '|') throw new Error(`step "${step.name}": the test reads only \`run: |\` blocks, not \`run: ${value}\``);
      const block: string[] = [];
      while (i + 1 < lines.length) {
        const next = lines[i + 1] as string;
        if (next.trim() !== '' && next.length - next.trimStart().length <= indent) break;
        block.push(next);
        i++;
      }
      const first = block.find((l) => l.trim() !== '') ?? '';
      const margin = first.length - first.trimStart().length;
      step.run = `${block
        .map((l) => l.slice(margin))
        .join('\n')
        .trimEnd()}\n`;
    }
  }
  return { env, jobs };
}

/** `${{ matrix.x }}` replaced; any other expression left is an error (the test would not run GitHub's syntax). */
function expand(text: string, matrix: Record<string, string>, where: string): string {
  const out = text.replace(/\$\{\{\s*matrix\.(\w+)\s*\}\}/g, (whole, key: string) => {
    const value = matrix[key];
    if (value === undefined) throw new Error(`${where}: ${whole} is not in the job's matrix`);
    return value;
  });
  if (out.includes('${{')) throw new Error(`${where}: an expression the test cannot run: ${out}`);
  return out;
}

// --- Running a job ----------------------------------------------------------------------------

/** What the artifact store of one workflow run holds: name -> (path inside the artifact -> file). */
type Artifacts = Map<string, Map<string, string>>;

interface StepOutcome {
  readonly name: string;
  readonly how: 'ran' | 'simulated' | 'skipped' | 'not run';
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** Why it was skipped or not run. */
  readonly why?: string;
}

interface JobOptions {
  readonly workspace: string;
  readonly matrix?: Record<string, string>;
  /** Uploads go here; downloads read it. */
  readonly artifacts: Artifacts;
  readonly summaryFile: string;
  /** Steps this case skips, by name. */
  readonly skip?: readonly string[];
}

let root = '';
let source = '';
let binDir = '';
let workflow: Workflow;

function job(name: string): Job {
  const found = workflow.jobs.get(name);
  if (!found) throw new Error(`the workflow has no job "${name}"`);
  return found;
}

/** A workspace: a fresh copy of the bench folder, as a job's checkout. */
function workspace(name: string): string {
  const dir = join(root, name);
  cpSync(source, dir, { recursive: true });
  return dir;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((p) => statSync(join(dir, p)).isFile());
}

function runShell(script: string, cwd: string, env: Record<string, string>, file: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  writeFileSync(file, script);
  const child = spawn('bash', ['-e', file], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

function upload(step: Step, options: JobOptions, matrix: Record<string, string>): StepOutcome {
  const name = expand(step.with.name ?? 'artifact', matrix, step.name);
  const path = expand(step.with.path ?? '', matrix, step.name);
  const full = join(options.workspace, path);
  const done = (code: number, stderr = ''): StepOutcome => ({ name: step.name, how: 'simulated', code, stdout: '', stderr });
  if (!existsSync(full)) {
    const message = `No files were found with the provided path: ${path}. No artifacts will be uploaded.`;
    return (step.with['if-no-files-found'] ?? 'warn') === 'error' ? done(1, message) : done(0, message);
  }
  if (options.artifacts.has(name)) return done(1, `Failed to CreateArtifact: an artifact with this name already exists on the workflow run: ${name}`);
  const files = statSync(full).isFile() ? [[basename(full), full] as const] : filesUnder(full).map((p) => [p, join(full, p)] as const);
  // A copy: the workspace may change after the upload.
  const kept = join(root, 'artifacts', name);
  options.artifacts.set(
    name,
    new Map(
      files.map(([inside, file]) => {
        cpSync(file, join(kept, inside));
        return [inside, join(kept, inside)];
      }),
    ),
  );
  return done(0);
}

function download(step: Step, options: JobOptions): StepOutcome {
  const dest = join(options.workspace, step.with.path ?? '.');
  const single = step.with.name;
  const pattern = step.with.pattern;
  const matcher =
    pattern === undefined
      ? /^/
      : new RegExp(
          `^${pattern
            .split('*')
            .map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
            .join('.*')}$`,
        );
  const names = single !== undefined ? [single] : [...options.artifacts.keys()].filter((n) => matcher.test(n)).sort();
  for (const name of names) {
    const files = options.artifacts.get(name);
    if (files === undefined) return { name: step.name, how: 'simulated', code: 1, stdout: '', stderr: `Artifact '${name}' not found` };
    const into = single !== undefined || step.with['merge-multiple'] === 'true' ? dest : join(dest, name);
    for (const [inside, file] of files) cpSync(file, join(into, inside));
  }
  return { name: step.name, how: 'simulated', code: 0, stdout: `downloaded: ${names.join(', ')}`, stderr: '' };
}

/** Runs a job's steps the way GitHub would, here. */
async function runJob(jobName: string, options: JobOptions): Promise<StepOutcome[]> {
  const matrix = options.matrix ?? {};
  const outcomes: StepOutcome[] = [];
  const skipped = (step: Step, how: 'skipped' | 'not run', why: string): void => {
    outcomes.push({ name: step.name, how, code: null, stdout: '', stderr: '', why });
  };
  let failed = false;
  for (const [n, step] of job(jobName).steps.entries()) {
    if (step.if !== undefined && step.if !== 'always()') throw new Error(`step "${step.name}": the test knows no \`if: ${step.if}\``);
    if (failed && step.if !== 'always()') {
      skipped(step, 'not run', 'a step before it failed');
      continue;
    }
    let outcome: StepOutcome | undefined;
    if (options.skip?.includes(step.name)) skipped(step, 'skipped', 'this case skips it');
    else if (step.uses !== undefined) {
      const action = step.uses.replace(/@.*$/, '');
      if (action === 'actions/upload-artifact') outcome = upload(step, options, matrix);
      else if (action === 'actions/download-artifact') outcome = download(step, options);
      else if (ACTIONS_SKIPPED[action] !== undefined) skipped(step, 'skipped', `uses ${step.uses}: ${ACTIONS_SKIPPED[action]}`);
      else throw new Error(`step "${step.name}" uses ${step.uses}, which the test neither simulates nor knows to skip`);
    } else if (step.run === undefined) throw new Error(`step "${step.name}" has neither run nor uses`);
    else if (NOT_RUN_HERE[step.name] !== undefined) skipped(step, 'skipped', NOT_RUN_HERE[step.name] as string);
    else {
      const env: Record<string, string> = {
        ...workflow.env,
        ...Object.fromEntries(Object.entries(step.env).map(([k, v]) => [k, expand(v, matrix, `${step.name}, env ${k}`)])),
        PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
        GITHUB_STEP_SUMMARY: options.summaryFile,
        GITHUB_WORKSPACE: options.workspace,
        GITHUB_ACTIONS: 'true',
        CI: 'true',
        NO_COLOR: '1',
        BESTOF_WORKTREES_DIR: join(root, 'worktrees'),
      };
      const script = expand(step.run, matrix, step.name);
      const result = await runShell(script, options.workspace, env, join(root, 'scripts', `${basename(options.workspace)}-${n}.sh`));
      outcome = { name: step.name, how: 'ran', ...result };
    }
    if (outcome !== undefined) {
      outcomes.push(outcome);
      if (outcome.code !== 0) failed = true;
    }
  }
  const skippedNames = outcomes.filter((o) => o.how === 'skipped').map((o) => `"${o.name}"`);
  console.info(
    `${jobName} job (${basename(options.workspace)}): steps skipped: ${skippedNames.join(', ')} (why: NOT_RUN_HERE and ACTIONS_SKIPPED in this test)`,
  );
  return outcomes;
}

function outcome(outcomes: readonly StepOutcome[], name: string): StepOutcome {
  const found = outcomes.find((o) => o.name === name);
  if (!found) throw new Error(`no step "${name}" in ${outcomes.map((o) => o.name).join(', ')}`);
  return found;
}

/** Each step with how it went: `name: ran 0`, `name: skipped`. */
function how(outcomes: readonly StepOutcome[]): string[] {
  return outcomes.map((o) => `${o.name}: ${o.how}${o.code === null ? '' : ` ${o.code}`}`);
}

// --- The cases --------------------------------------------------------------------------------

/** The matrix of the shard job: [shard, total] pairs. */
let shardMatrix: { shard: string; total: string }[] = [];
/** Shard i's outcomes and uploads, as the shard jobs of one workflow run left them. */
const shards = new Map<string, { outcomes: StepOutcome[]; artifacts: Artifacts }>();

/** The report job over the uploads of some shards, in a fresh workspace. */
async function report(name: string, uploads: readonly Artifacts[], prepare?: (workspace: string) => void) {
  const artifacts: Artifacts = new Map();
  for (const u of uploads) {
    for (const [k, v] of u) {
      // Artifacts are immutable in actions/upload-artifact v4+: a second job uploading the same name fails.
      if (artifacts.has(k)) throw new Error(`two shard jobs uploaded an artifact named ${k}: the second upload would fail with a conflict`);
      artifacts.set(k, v);
    }
  }
  const dir = workspace(name);
  prepare?.(dir);
  const summaryFile = join(root, `${name}-summary.md`);
  writeFileSync(summaryFile, '');
  const outcomes = await runJob('report', { workspace: dir, artifacts, summaryFile });
  const junitStep = job('report').steps.find((s) => s.uses?.startsWith('mikepenz/action-junit-report@'));
  const junit = join(dir, junitStep?.with.report_paths ?? 'no report_paths');
  return { dir, outcomes, summary: readFileSync(summaryFile, 'utf8'), junit, merged: join(dirname(junit), 'bench.json') };
}

beforeAll(async () => {
  root = realpathSync(makeTempDir('bestof-bench-workflow-'));
  source = join(root, 'repo');
  mkdirSync(source);
  writeBench(source, { tasks: TASKS, agents: AGENTS, trials: 2 });
  binDir = join(root, 'bin');
  mkdirSync(binDir);
  mkdirSync(join(root, 'scripts'));
  writeFileSync(join(binDir, 'bestof'), `#!/bin/sh\nexec '${process.execPath}' '${BESTOF_BIN}' "$@"\n`);
  chmodSync(join(binDir, 'bestof'), 0o755);
  workflow = readWorkflow(readFileSync(WORKFLOW, 'utf8'));
  const { shard = [], total = [] } = job('shard').matrix;
  shardMatrix = shard.map((s) => ({ shard: s, total: total[0] ?? '' }));
  // Every shard job at once, as GitHub runs the matrix.
  await Promise.all(
    shardMatrix.map(async (m) => {
      const artifacts: Artifacts = new Map();
      const outcomes = await runJob('shard', {
        workspace: workspace(`shard-${m.shard}`),
        matrix: m,
        artifacts,
        summaryFile: join(root, `shard-${m.shard}-summary.md`),
      });
      shards.set(m.shard, { outcomes, artifacts });
    }),
  );
  // Eight real bestof runs, three shards at once: about 30 s on a 2-core machine that others use too.
}, 120_000);

afterAll(() => {
  if (root !== '' && !process.env.KEEP_TEST_DIRS) rmSync(root, { recursive: true, force: true });
});

describe('the GitHub Actions workflow of bestof bench (configs/ci/github-actions-bench.yml)', () => {
  it('has a matrix of shards 1..total and a report job that needs them and runs always', () => {
    expect(shardMatrix.map((m) => m.shard)).toEqual(['1', '2', '3']);
    expect(new Set(shardMatrix.map((m) => m.total))).toEqual(new Set(['3']));
    expect(job('shard').keys['runs-on']).toBe('ubuntu-latest');
    expect(job('report').keys).toMatchObject({ needs: 'shard', if: 'always()' });
    // A bench step that failed or was cancelled may still have written bench.json (its trials
    // that ended, the rest "not run"): the upload runs all the same (the cases below skip the
    // bench step, which does not show it).
    expect(job('shard').steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'))?.if).toBe('always()');
    // Every action is pinned by a tag.
    const uses = [...workflow.jobs.values()].flatMap((j) => j.steps.flatMap((s) => (s.uses === undefined ? [] : [s.uses])));
    expect(uses.filter((u) => !/@v\d+(\.\d+)*$/.test(u))).toEqual([]);
  });

  it('the shard steps run the bench, the report steps merge the downloaded shards: bench.md is the job summary, junit.xml has a case per task x agent', async () => {
    expect([...shards.keys()].sort()).toEqual(['1', '2', '3']);
    for (const [shard, { outcomes }] of shards) {
      for (const o of outcomes.filter((x) => x.how === 'ran' || x.how === 'simulated')) expect(o.code, `shard ${shard}, step "${o.name}": ${o.stderr}`).toBe(0);
      expect(how(outcomes), `shard ${shard}`).toEqual([
        'Check out: skipped',
        'Set up Node 24: skipped',
        'Install bestof: skipped',
        'Install the sandbox (bubblewrap): skipped',
        `${BENCH_STEP}: ran 0`,
        "Upload the shard's bench.json: simulated 0",
      ]);
      // The bench ran this shard's slice: one line per finished trial.
      expect(outcome(outcomes, BENCH_STEP).stdout).toMatch(/t[12]\/(claude-sonnet|codex-mini)#[12]/);
    }

    const run = await report(
      'report',
      [...shards.values()].map((s) => s.artifacts),
    );
    for (const o of run.outcomes.filter((x) => x.how === 'ran' || x.how === 'simulated')) expect(o.code, `step "${o.name}": ${o.stderr}`).toBe(0);
    expect(how(run.outcomes)).toEqual([
      'Check out: skipped',
      'Set up Node 24: skipped',
      'Install bestof: skipped',
      "Download the shards' bench.json: simulated 0",
      'Merge the shards: ran 0',
      'Publish bench.md as the job summary: ran 0',
      'Publish junit.xml as a test report: skipped',
      'Upload the merged report: simulated 0',
    ]);
    expect(outcome(run.outcomes, "Download the shards' bench.json").stdout).toBe('downloaded: shard-1, shard-2, shard-3');

    // The merge joined the whole matrix: 2 tasks x 2 agents x 2 trials.
    const merged = JSON.parse(readFileSync(run.merged, 'utf8')) as BenchFile;
    expect(merged.shard).toBeNull();
    expect(merged.records.map((r) => `${r.task}/${r.agent}#${r.trial}`)).toEqual(
      TASKS.flatMap((t) => AGENTS.flatMap((a) => [1, 2].map((i) => `${t}/${a}#${i}`))),
    );
    // The job summary is exactly the merged bench.md, with the per-agent table: claude-sonnet
    // resolves t1 twice and t2 once (3/4), codex-mini t1 once (1/4).
    expect(run.summary).toBe(renderBenchMarkdown(summarizeBench(merged)));
    expect(run.summary).toBe(readFileSync(join(dirname(run.merged), 'bench.md'), 'utf8'));
    expect(run.summary).toContain('## Agents');
    expect(run.summary).toMatch(/^\| claude-sonnet \| script \| 75\.0% \(3\/4\) \|/m);
    expect(run.summary).toMatch(/^\| codex-mini \| script \| 25\.0% \(1\/4\) \|/m);
    // junit.xml where the JUnit step reads it, one test case per task x agent.
    const junit = readFileSync(run.junit, 'utf8');
    const cases = [...junit.matchAll(/<testcase classname="([^"]+)" name="([^"]+)"/g)].map((m) => `${m[1]}/${m[2]}`);
    expect(cases).toEqual(TASKS.flatMap((t) => AGENTS.map((a) => `${t}/${a}`)));
  });

  it('a shard whose bench step was skipped: its upload fails, the merge step fails and names the missing shard, the summary says so', async () => {
    const artifacts: Artifacts = new Map();
    const lost = await runJob('shard', {
      workspace: workspace('shard-2-skipped'),
      matrix: { shard: '2', total: '3' },
      artifacts,
      summaryFile: join(root, 'lost-summary.md'),
      skip: [BENCH_STEP],
    });
    expect(how(lost).slice(-2)).toEqual([`${BENCH_STEP}: skipped`, "Upload the shard's bench.json: simulated 1"]);
    expect(outcome(lost, "Upload the shard's bench.json").stderr).toContain('bench-out/shard-2/bench.json');
    expect(artifacts.size).toBe(0);

    const run = await report('report-incomplete', [shards.get('1')?.artifacts ?? new Map(), artifacts, shards.get('3')?.artifacts ?? new Map()]);
    expect(outcome(run.outcomes, "Download the shards' bench.json").stdout).toBe('downloaded: shard-1, shard-3');
    const merge = outcome(run.outcomes, 'Merge the shards');
    expect(merge.code).toBe(2);
    expect(merge.stderr).toMatch(/the set is incomplete: shard 2\/3 is missing/);
    expect(merge.stderr).toContain('bestof bench --shard 2/3');
    // The summary step runs all the same, and shows why there is no report.
    expect(outcome(run.outcomes, 'Publish bench.md as the job summary')).toMatchObject({ how: 'ran', code: 0 });
    expect(run.summary).toContain('no report');
    expect(run.summary).toMatch(/shard 2\/3 is missing/);
    expect(existsSync(run.junit)).toBe(false);
  });

  it('with a baseline/bench.json in the repository, the merge compares with it: a regression fails the step, and the summary says what regressed', async () => {
    const uploads = [...shards.values()].map((s) => s.artifacts);
    const files = uploads.flatMap((u) => [...u.values()].map((files) => files.get('bench.json') ?? 'no bench.json uploaded'));
    const joined = mergeBenchFiles(files.map((f) => ({ name: f, value: JSON.parse(readFileSync(f, 'utf8')) as unknown })));
    if (!joined.ok) throw new Error(joined.error.join('\n'));
    const merged = joined.value;
    // The night before, codex-mini resolved every trial.
    const baseline: BenchFile = { ...merged, records: merged.records.map((r) => (r.agent === 'codex-mini' ? { ...r, resolved: true } : r)) };
    const run = await report('report-baseline', uploads, (dir) => {
      mkdirSync(join(dir, 'baseline'));
      writeFileSync(join(dir, 'baseline', 'bench.json'), JSON.stringify(baseline));
    });
    const merge = outcome(run.outcomes, 'Merge the shards');
    expect(merge.code, merge.stderr).toBe(1);
    expect(merge.stdout).toMatch(/regression: .*codex-mini/);
    expect(outcome(run.outcomes, 'Publish bench.md as the job summary')).toMatchObject({ how: 'ran', code: 0 });
    expect(run.summary).toBe(readFileSync(join(dirname(run.merged), 'bench.md'), 'utf8'));
    expect(run.summary).toMatch(/codex-mini/);
    expect(run.summary).not.toBe(renderBenchMarkdown(summarizeBench(merged)));
  });
});
