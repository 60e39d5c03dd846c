/**
 * `bestof bench mine`: a benchmark of a repo made from its own history. The walk (./commits.ts)
 * proposes a task for each non-merge commit that changes both source and test files; validation
 * (./validate.ts) runs the repo's report check on the parent with the new tests, on the commit
 * twice and on the fix over the old tests, side by side; the verdicts go to the journal
 * (./journal.ts) as they come, so a stopped mining goes on where it was; and the folder
 * (./write-bench.ts, ./mined-report.ts) is written from the journal at the end, whether the walk
 * finished or was stopped.
 *
 * Reads the repo only (git log, diff, archive, cat-file): no ref, worktree, index or file of the
 * repo is written. Every tree runs in the mining folder.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { basename, join } from 'node:path';
import PQueue from 'p-queue';
import { headCommitOf } from '../../git/history/mining.js';
import { err, ok, type Result } from '../../result.js';
import { DEFAULT_TEST_PATTERNS, fixSize, type SortRules, sortFiles, sourcePatch, taskId, walkCommits } from './commits.js';
import { openJournal } from './journal.js';
import { minedJson, minedMarkdown, summarize, type MinedSummary } from './mined-report.js';
import { type MineProfile, mineProfile } from './profile.js';
import { type SuiteSandbox, suiteSandbox } from './suite.js';
import type { CommitVerdict, KeptTask, MinedCommit, RejectionReason } from './types.js';
import { validate } from './validate.js';
import { benchToml, writeTaskFiles } from './write-bench.js';

export interface MineOptions {
  /** The repo's top folder. */
  readonly root: string;
  /** The mining folder, outside the repo. */
  readonly out: string;
  /** Non-merge commits to look at, newest first. */
  readonly commits: number;
  /** Stop once this many tasks are kept. */
  readonly maxTasks?: number;
  readonly since?: string;
  readonly paths?: readonly string[];
  readonly check?: string;
  /** The largest fix kept, in lines added and removed outside the tests. */
  readonly maxDiff: number;
  readonly reference: boolean;
  /** Test runs at once. */
  readonly jobs?: number;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  readonly onVerdict?: (verdict: CommitVerdict, progress: MineProgress) => void;
}

export interface MineProgress {
  readonly total: number;
  readonly lookedAt: number;
  readonly kept: number;
  readonly rejected: number;
  /** The verdict came from the journal (validated by an earlier mining). */
  readonly fromJournal: boolean;
}

export const DEFAULT_MAX_DIFF = 400;

export async function mine(options: MineOptions): Promise<Result<MinedSummary>> {
  const started = Date.now();
  const profile = await mineProfile(options.root, options.check);
  if (!profile.ok) return profile;
  const prof = profile.value;
  const settings = {
    check: prof.check.name,
    command: prof.suite.command,
    report: prof.suite.report,
    setup: prof.suite.setup,
    maxDiff: options.maxDiff,
  };
  const journal = openJournal(join(options.out, '.mine', 'journal.jsonl'), settings);
  if (!journal.ok) return err(journal.error);
  const jobs = Math.max(1, options.jobs ?? availableParallelism());
  const work = join(options.out, '.mine', 'work');
  rmSync(work, { recursive: true, force: true });
  try {
    const head = await headCommitOf(options.root);
    const commits = await walkCommits(options.root, { commits: options.commits, since: options.since, paths: options.paths, signal: options.signal });
    const sandbox = await suiteSandbox([options.out, options.root], options.env);
    const runs = new PQueue({ concurrency: jobs });
    // Twice the runs: validation goes in stages (../validate.ts), so a commit often waits on its next one.
    const perCommit = new PQueue({ concurrency: jobs * 2 });
    let failure: unknown;
    const rules = { tests: [...prof.frozen, ...DEFAULT_TEST_PATTERNS], kept: [...prof.frozen, ...prof.protected], editable: prof.editable };
    const verdicts = new Map<string, CommitVerdict>();
    let lookedAt = 0;
    let lookedAtThisSession = 0;
    const keptSoFar = () => [...verdicts.values()].filter((v) => v.outcome === 'kept').length;
    const enough = () => options.maxTasks !== undefined && keptSoFar() >= options.maxTasks;
    const record = (verdict: CommitVerdict, fromJournal: boolean) => {
      verdicts.set(verdict.sha, verdict);
      lookedAt++;
      if (!fromJournal) {
        journal.append(verdict);
        lookedAtThisSession++;
      }
      const kept = keptSoFar();
      options.onVerdict?.(verdict, { total: commits.length, lookedAt, kept, rejected: lookedAt - kept, fromJournal });
    };

    for (const commit of commits) {
      if (options.signal.aborted) break;
      const known = journal.verdicts.get(commit.sha);
      if (known !== undefined) {
        record(known, true);
        continue;
      }
      await perCommit.onSizeLessThan(jobs);
      if (enough() || options.signal.aborted || failure !== undefined) break;
      void perCommit.add(async () => {
        if (enough() || options.signal.aborted || failure !== undefined) return;
        try {
          const verdict = await judgeCommit({ commit, rules, profile: prof, sandbox, work, runs, options });
          if (verdict !== undefined && !options.signal.aborted) record(verdict, false);
        } catch (error) {
          // A git call that must work did not (or the stop's abort reached one): the verdicts so far are in the journal.
          if (!options.signal.aborted) failure ??= error;
        }
      });
    }
    await perCommit.onIdle();
    if (failure !== undefined) throw failure;

    const summary = await writeFolder({ options, prof, rules, commits, verdicts, head, settings, started, lookedAtThisSession, jobs });
    return ok(summary);
  } finally {
    journal.close();
    if (existsSync(work)) rmSync(work, { recursive: true, force: true });
  }
}

interface JudgeInput {
  readonly commit: MinedCommit;
  readonly rules: SortRules;
  readonly profile: MineProfile;
  readonly sandbox: SuiteSandbox;
  readonly work: string;
  readonly runs: PQueue;
  readonly options: MineOptions;
}

/** A commit's verdict: sorted out by its files, or validated; undefined when the mining was stopped meanwhile. */
async function judgeCommit({ commit, rules, profile, sandbox, work, runs, options }: JudgeInput): Promise<CommitVerdict | undefined> {
  const root = options.root;
  const rejected = (reason: RejectionReason, detail: string, extra: Partial<CommitVerdict> = {}) => reject(commit, reason, detail, extra);
  const files = await sortFiles(root, commit, rules, options.signal);
  const size = await fixSize(root, commit, files.source, options.signal);
  if (files.tests.length === 0 && files.source.length === 0 && files.protectedChanged.length === 0)
    return rejected(files.docs.length > 0 ? 'docs-only' : 'no-test-change', files.docs.length > 0 ? files.docs.slice(0, 5).join(', ') : 'no file changed');
  if (files.tests.length === 0)
    return rejected('no-test-change', `changes ${files.source.length + files.protectedChanged.length} files, none a test`, { size });
  if (files.protectedChanged.length > 0) return rejected('protected-file', `changes ${files.protectedChanged.slice(0, 3).join(', ')}`, { size });
  if (files.source.length === 0) return rejected('no-source-change', `changes only ${files.tests.slice(0, 3).join(', ')}`);
  if (size.lines > options.maxDiff) return rejected('too-large', `${size.lines} lines in ${size.files} files (--max-diff ${options.maxDiff})`, { size });
  const t0 = Date.now();
  const workDir = join(work, commit.sha.slice(0, 12));
  const judged = await validate({
    repo: root,
    commit,
    files,
    check: profile.suite,
    sandbox,
    workDir,
    env: options.env,
    signal: options.signal,
    slot: <T>(job: () => Promise<T>) => runs.add(job) as Promise<T>,
  }).finally(() => rmSync(workDir, { recursive: true, force: true }));
  if (options.signal.aborted) return undefined;
  const validationMs = Date.now() - t0;
  if (!judged.kept) return rejected(judged.reason, judged.detail, { size, validationMs });
  return {
    outcome: 'kept',
    sha: commit.sha,
    parent: commit.parent,
    subject: commit.subject,
    message: commit.message,
    date: commit.date,
    id: taskId(commit),
    size,
    testFiles: files.tests,
    deletedTestFiles: files.deletedTests,
    failToPass: judged.failToPass,
    passToPass: judged.passToPass,
    flaky: judged.flaky,
    validationMs,
  };
}

interface FolderInput {
  readonly options: MineOptions;
  readonly prof: MineProfile;
  readonly rules: SortRules;
  readonly commits: readonly MinedCommit[];
  readonly verdicts: ReadonlyMap<string, CommitVerdict>;
  readonly head: string;
  readonly settings: Readonly<Record<string, unknown>>;
  readonly started: number;
  readonly lookedAtThisSession: number;
  readonly jobs: number;
}

/** The folder, from every verdict of the walk (this session's and the journal's), in walk order. */
async function writeFolder({
  options,
  prof,
  rules,
  commits,
  verdicts,
  head,
  settings,
  started,
  lookedAtThisSession,
  jobs,
}: FolderInput): Promise<MinedSummary> {
  let inOrder = commits.map((c) => verdicts.get(c.sha)).filter((v): v is CommitVerdict => v !== undefined);
  // With --max, the walk ends at the last task kept: commits validated beside it stay in the journal for a larger --max.
  const keptIndexes = inOrder.flatMap((v, i) => (v.outcome === 'kept' ? [i] : []));
  const last = options.maxTasks !== undefined ? keptIndexes[options.maxTasks - 1] : undefined;
  if (last !== undefined) inOrder = inOrder.slice(0, last + 1);
  const kept = inOrder.filter((v): v is KeptTask => v.outcome === 'kept');
  const patches = new Map<string, string>();
  for (const task of kept) {
    const source = (await sortFiles(options.root, task, rules)).source;
    patches.set(task.id, await sourcePatch(options.root, task, source));
  }
  const name = `${
    basename(options.root)
      .replace(/[^A-Za-z0-9._-]+/g, '-')
      .replace(/^[^A-Za-z0-9]+/, '')
      .slice(0, 30) || 'repo'
  }-mined`;
  const input = {
    out: options.out,
    root: options.root,
    name,
    profile: prof,
    tasks: kept,
    patches,
    reference: options.reference,
    header: `# A benchmark mined from ${options.root} by \`bestof bench mine\`: ${kept.length} tasks from ${inOrder.length} commits (mined.md says which and why).\n# Each task: a commit's parent, its message as the prompt, its own tests as a hidden oracle. Run: bestof bench ${join(options.out, 'bench.toml')}`,
  };
  for (const sub of ['tasks', 'hidden', 'reference']) rmSync(join(options.out, sub), { recursive: true, force: true });
  for (const task of kept) await writeTaskFiles(input, task);
  mkdirSync(options.out, { recursive: true });
  writeFileSync(join(options.out, 'bench.toml'), benchToml(input));
  const summary = summarize({
    repo: options.root,
    head,
    settings,
    checkSource: prof.source,
    verdicts: [...inOrder.filter((v) => v.outcome === 'rejected'), ...kept],
    notLookedAt: commits.length - inOrder.length,
    wallMs: Date.now() - started,
    lookedAtThisSession,
    jobs,
  });
  writeFileSync(join(options.out, 'mined.json'), minedJson(summary));
  writeFileSync(join(options.out, 'mined.md'), minedMarkdown(summary));
  return summary;
}

function reject(commit: MinedCommit, reason: RejectionReason, detail: string, extra: Partial<CommitVerdict>): CommitVerdict {
  return {
    outcome: 'rejected',
    sha: commit.sha,
    parent: commit.parent,
    subject: commit.subject,
    date: commit.date,
    reason,
    detail,
    validationMs: 0,
    ...(extra as object),
  } as CommitVerdict;
}
