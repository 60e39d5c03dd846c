/**
 * The tester's call: an agent of any kind, in a fresh export of base at a neutral place, asked for
 * test files that tell the finalists apart. What it must never learn is who wrote which diff, so
 * nothing it receives names a provider, a model, a branch, the run or a path of the run:
 *
 *   prompt   the task and each finalist's diff against base, normalised by the vote's anonymiser
 *            (src/vote/anonymise.ts) and shown under a seeded, shuffled label; scanned before it is
 *            sent, and a prompt that still names something is never sent
 *   folder   `<tmp>/tester-XXXXXX/work`, an export of base (no git dir: it can move no ref of
 *            the user's), with a HOME of its own beside it (`home`); removed after the call
 *   env      the checks' environment (a PATH no worktree shadows) without the run's and the
 *            candidates' names, the tester's own `env`, and BESTOF_TESTS_DIR
 *   sandbox  the reviewer's (read-only everywhere but its folder, the run folder and worktrees
 *            hidden), when the run has one
 *
 * The files it writes under the tests folder are copied into the run folder
 * (`distinguish/tests/`), each checked: a regular file (never a link), at most MAX_TEST_BYTES, at
 * most as many as were asked for, in name order. Nothing else it writes goes anywhere.
 */
import { createHash } from 'node:crypto';
import { copyFile, cp, lstat, mkdir, mkdtemp, readdir, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, relative, sep } from 'node:path';
import { createProvider } from '../../providers/definitions.js';
import type { GeneratedTest, TesterCall } from '../../distinguish/types.js';
import { testerPrompt } from '../../distinguish/prompt.js';
import { diffText } from '../../git/history/diff.js';
import { describePromptLeaks, normaliseMaterial, scanForLeaks } from '../../vote/anonymise.js';
import { removeTree } from '../../owned-tree.js';
import { DISTINGUISH_PAYER } from '../loop/budget.js';
import { checkEnv } from '../plan/candidate-env.js';
import { worktreesRoot, type RunPlan } from '../plan/plan.js';
import type { DistinguishPlan } from '../plan/distinguish-plan.js';
import { agentSandbox } from '../sandbox/agent-sandbox.js';
import { RUN_KEY_VAR } from '../sandbox/leftovers.js';
import { exportCommit } from '../select/review-export.js';
import { anonymiseContext } from '../vote/materials.js';
import type { VoteContext } from '../vote/voters.js';
import { distinguishDir, TESTS_SUBDIR } from './paths.js';

/** A generated test file larger than this is left out: a test that tells two programs apart is short. */
export const MAX_TEST_BYTES = 256 * 1024;
/** A diff longer than this is cut (the same for every finalist), and the cut is said. */
const MAX_DIFF_CHARS = 60_000;

/** The environment variables that name the run or a candidate: never the tester's. */
const IDENTIFYING_VARS = ['BESTOF_RUN', 'BESTOF_CANDIDATE', 'BESTOF_INDEX', 'PORT'] as const;
const KEPT_BESTOF_VARS: readonly string[] = [RUN_KEY_VAR, 'BESTOF_PROCESS_TAG'];

export interface TesterInput {
  readonly plan: RunPlan;
  readonly distinguish: DistinguishPlan;
  /** In the order shown: each finalist's label and its scored commit. */
  readonly shown: readonly { readonly label: string; readonly commit: string }[];
  /** The folder the tests go into, relative to the repo root. */
  readonly folder: string;
}

/** Calls the tester and keeps its files in the run folder; a failed call is a value (`error`), never an exception. */
export async function callTester(ctx: VoteContext, input: TesterInput): Promise<TesterCall> {
  const { plan, distinguish, folder } = input;
  const anonymise = { ...anonymiseContext(plan), providerKinds: [...anonymiseContext(plan).providerKinds, distinguish.settings.kind] };
  const solutions = [];
  for (const s of input.shown) {
    const raw = await diffText(plan.repoRoot, plan.baseCommit, s.commit, { signal: ctx.signal });
    const cut = raw.length > MAX_DIFF_CHARS ? `${raw.slice(0, MAX_DIFF_CHARS)}\n[... cut at ${MAX_DIFF_CHARS} characters, the same for every solution]` : raw;
    solutions.push({ label: s.label, diff: normaliseMaterial(cut, anonymise).text });
  }
  const prompt = testerPrompt({ task: plan.prompt, solutions, folder, tests: distinguish.spec.tests, command: distinguish.command });
  const leaks = scanForLeaks(prompt, anonymise, { trusted: [plan.prompt, distinguish.command] });
  if (leaks.length > 0) {
    // Nothing sent: the step is skipped with this, and selection uses the tie-break.
    return {
      tests: [],
      costUsd: 0,
      error: `${describePromptLeaks(leaks, "the tester's")}: a finalist's diff names it in a form the anonymiser does not replace (report it as a bug of the anonymiser)`,
    };
  }

  const place = await mkdtemp(join(tmpdir(), 'tester-'));
  const work = join(place, 'work');
  const home = join(place, 'home');
  const provider = createProvider(distinguish.settings, distinguish.agent, plan.spec.providers[distinguish.settings.kind]);
  try {
    const exported = await exportCommit(plan.repoRoot, plan.baseCommit, work);
    if (!exported.ok) return { tests: [], costUsd: 0, error: `base could not be exported for the tester: ${exported.error}` };
    await linkSetupFolders(plan, work);
    const testsDir = join(work, folder);
    // Base's own files there would pass as the tester's (and the laying-in of the tests needs the place free).
    if (await exists(testsDir))
      return { tests: [], costUsd: 0, error: `base already has ${folder}/, where the generated tests go: the step cannot run in this repo` };
    await mkdir(testsDir, { recursive: true });
    const anchor = plan.candidates[0];
    if (!anchor) return { tests: [], costUsd: 0, error: 'the run has no candidate' };
    const env = testerEnv(plan, { ...checkEnv(plan, anchor), ...distinguish.settings.env }, testsDir);
    const sandbox = agentSandbox(plan, { id: 'tester', worktree: anchor.worktree }, env, 'reviewer');
    await mkdir(home, { recursive: true });
    // The call's artifacts (its prompt file, which a command tester is given by path) at the neutral
    // place first, then in the run folder: a folder per call, those of an interrupted run's calls
    // kept (a resumed step that reuses the record makes none).
    const artifactsDir = join(place, 'call');
    await mkdir(artifactsDir, { recursive: true });
    const calls = (await readdir(distinguishDir(plan.runDir)).catch(() => [] as string[])).filter((name) => name.startsWith('tester-')).length;
    const recordDir = join(distinguishDir(plan.runDir), `tester-${calls + 1}`);
    const result = await provider.run({
      prompt,
      cwd: work,
      model: distinguish.settings.model,
      iteration: 0,
      candidateId: 'tester',
      env,
      timeoutMs: distinguish.spec.timeout,
      artifactsDir,
      signal: ctx.signal,
      onActivity: () => undefined,
      redact: ctx.secrets.redact,
      logRedactor: () => ctx.secrets.createStreamRedactor(),
      sandbox: sandbox ? { ...sandbox, workdir: work, home } : undefined,
    });
    await mkdir(dirname(recordDir), { recursive: true });
    await cp(artifactsDir, recordDir, { recursive: true, verbatimSymlinks: true }).catch(() => undefined);
    const warning = ctx.budget.record(DISTINGUISH_PAYER, result.costUsd);
    if (warning) ctx.emit({ type: 'run.warning', message: warning });
    const cap = distinguish.spec.max_cost_usd;
    if (cap !== undefined && result.costUsd > cap) {
      ctx.emit({ type: 'run.warning', message: `the tester cost $${result.costUsd.toFixed(2)}, past [select.distinguish] max_cost_usd = $${cap.toFixed(2)}` });
    }
    const kept = await keepTests(testsDir, join(distinguishDir(plan.runDir), TESTS_SUBDIR), distinguish.spec.tests);
    if (result.outcome !== 'success' && kept.tests.length === 0) {
      const why = result.outcome === 'timeout' ? `timed out after ${Math.round(distinguish.spec.timeout / 1000)}s` : `ended with ${result.outcome}`;
      return { tests: [], costUsd: result.costUsd, error: `the tester ${why}${result.message ? `: ${result.message}` : ''}` };
    }
    if (kept.tests.length === 0)
      return { tests: [], costUsd: result.costUsd, ...refusedPart(kept.refused), error: `the tester wrote no test file into ${folder}/` };
    return { tests: kept.tests, costUsd: result.costUsd, ...refusedPart(kept.refused) };
  } finally {
    await provider.close().catch(() => undefined);
    await removeTree(place).catch(() => undefined);
  }
}

/**
 * The tester's environment: the checks' (or the user's) without what names the run or a candidate,
 * and without any variable whose value holds a path of the run (PWD and OLDPWD of the shell that
 * started bestof, npm's INIT_CWD: the repo's path); PATH keeps its other entries.
 */
export function testerEnv(plan: RunPlan, env: Readonly<Record<string, string | undefined>>, testsDir: string): Record<string, string | undefined> {
  const places = [plan.repoRoot, worktreesRoot(plan.repoRoot), plan.runDir, plan.runId].filter((p) => p.length > 1);
  const names = (value: string): boolean => places.some((p) => value.includes(p));
  const out: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || (IDENTIFYING_VARS as readonly string[]).includes(name)) continue;
    // bestof's own settings (BESTOF_WORKTREES_DIR names where the worktrees are); the run key and process tag are random, and find the tester's processes if bestof dies.
    if (name.startsWith('BESTOF_') && !KEPT_BESTOF_VARS.includes(name)) continue;
    if (name === 'PATH')
      out.PATH = value
        .split(delimiter)
        .filter((entry) => !names(entry))
        .join(delimiter);
    else if (!names(value)) out[name] = value;
  }
  out.BESTOF_TESTS_DIR = testsDir;
  return out;
}

function refusedPart(refused: readonly { file: string; reason: string }[]): Pick<TesterCall, 'refused'> {
  return refused.length > 0 ? { refused } : {};
}

/**
 * `[setup] link` folders (node_modules, a venv) as links in the export, so that the tester can run
 * the tests it writes; setup commands are not run for it (their cost is the candidates').
 */
async function linkSetupFolders(plan: RunPlan, work: string): Promise<void> {
  for (const entry of plan.spec.setup.link) {
    if (entry.includes('*')) continue;
    const source = join(plan.repoRoot, entry);
    if (!(await exists(source))) continue;
    await mkdir(dirname(join(work, entry)), { recursive: true });
    await symlink(source, join(work, entry)).catch(() => undefined);
  }
}

/** The regular files under `from`, in name order: the first `max` copied into `to`; the rest, and what is not a regular file or is too large, refused. */
export async function keepTests(from: string, to: string, max: number): Promise<{ tests: GeneratedTest[]; refused: { file: string; reason: string }[] }> {
  await removeTree(to);
  await mkdir(to, { recursive: true });
  const found = await walk(from);
  const tests: GeneratedTest[] = [];
  const refused: { file: string; reason: string }[] = [];
  for (const entry of found) {
    const file = relative(from, entry.path).split(sep).join('/');
    if (entry.kind !== 'file') refused.push({ file, reason: entry.kind === 'link' ? 'a symbolic link' : 'not a regular file' });
    else if (entry.size > MAX_TEST_BYTES) refused.push({ file, reason: `larger than ${MAX_TEST_BYTES / 1024} KB` });
    else if (tests.length >= max) refused.push({ file, reason: `past the ${max} asked for` });
    else {
      const target = join(to, ...file.split('/'));
      await mkdir(dirname(target), { recursive: true });
      await copyFile(entry.path, target);
      const bytes = await readFile(target);
      tests.push({ id: `t${tests.length + 1}`, file, digest: createHash('sha256').update(bytes).digest('hex'), bytes: bytes.length });
    }
  }
  return { tests, refused };
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

interface Entry {
  readonly path: string;
  readonly kind: 'file' | 'link' | 'other';
  readonly size: number;
}

async function walk(dir: string): Promise<Entry[]> {
  const names = (await readdir(dir).catch(() => [] as string[])).sort();
  const out: Entry[] = [];
  for (const name of names) {
    const path = join(dir, name);
    const stat = await lstat(path).catch(() => undefined);
    if (!stat) continue;
    if (stat.isDirectory()) out.push(...(await walk(path)));
    else out.push({ path, kind: stat.isFile() ? 'file' : stat.isSymbolicLink() ? 'link' : 'other', size: stat.size });
  }
  return out;
}
