/**
 * The review: an LLM judge (any provider) reads the candidate's diff and answers with a
 * strict last line, `VERDICT: LGTM` or `VERDICT: REFUSE: <reason>`. The verdict is read
 * from that line only, never by searching prose for the words (a judge that writes "I would
 * not say LGTM" must not pass). An unparsable answer is asked once more, then recorded as
 * no verdict. LGTM earns the review's points; REFUSE keeps the candidate from stopping on
 * its score and its reason goes into the next prompt.
 *
 * The reviewer reads a clean export of the candidate's commit (src/git/worktrees/export.ts), outside the
 * worktree and without the agent CLIs' instruction files (a committed CLAUDE.md must not
 * become the reviewer's instructions), in the same sandbox as the candidates when there is one;
 * the export is removed after the review. The diff is fenced with more backticks than its
 * longest run, so nothing inside it can close the fence and speak to the judge as the prompt.
 */
import type { Env } from '../../env.js';
import type { LogRedactor } from '../../process/types.js';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { putBackCandidateFiles } from '../../checks/frozen.js';
import { exportCommit } from './review-export.js';
import type { SandboxLayout } from '../../process/sandbox.js';
import type { Provider } from '../../providers/types.js';
import { reviewExportDir } from '../sandbox/agent-sandbox.js';
import { removeTree } from '../../owned-tree.js';
import { WAYS_TO_PASS_WITHOUT_THE_TASK } from '../../vote/prompts.js';
import type { VerdictKind } from '../record/run-types.js';

export type Verdict = { verdict: 'lgtm' } | { verdict: 'refuse'; reason: string } | { verdict: 'none'; reason: string };
// Every kind the record knows (run-types.ts VerdictKind), and no other: a kind added to one and not the other fails here.
const sameKinds: [Verdict['verdict'], VerdictKind] extends [VerdictKind, Verdict['verdict']] ? true : never = true;
void sameKinds;

const MAX_DIFF_CHARS = 60_000;

export const BUILT_IN_REVIEW_PROMPT = `You are reviewing a change made by a coding agent for the task below. Read the diff (and the
files in the current folder if you need more context). Judge whether the change does what the
task asks, correctly and completely, without breaking anything. Refuse a change that makes the
checks pass without doing the task: ${WAYS_TO_PASS_WITHOUT_THE_TASK}. Do not change any file.

End your answer with exactly one line, the last line, in one of these two forms:
VERDICT: LGTM
VERDICT: REFUSE: <one-line reason>`;

/** The last non-empty line decides; anything else is no verdict. */
export function parseVerdict(text: string): Verdict {
  const lines = text
    .replace(/\r/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const last = (lines.at(-1) ?? '').replace(/^[*_`>\s]+|[*_`\s]+$/g, '');
  if (/^VERDICT:\s*LGTM\.?$/.test(last)) return { verdict: 'lgtm' };
  const refuse = /^VERDICT:\s*REFUSE:\s*(.+)$/.exec(last);
  if (refuse) return { verdict: 'refuse', reason: (refuse[1] as string).trim() };
  return { verdict: 'none', reason: last === '' ? 'the reviewer gave no answer' : `the last line is not a verdict: "${last.slice(0, 120)}"` };
}

export interface ReviewRequest {
  readonly provider: Provider;
  readonly model: string | undefined;
  readonly promptFile: string | undefined;
  readonly task: string;
  readonly diff: string;
  readonly worktree: string;
  readonly commit: string;
  readonly keepPaths: readonly string[];
  readonly candidateId: string;
  readonly iteration: number;
  readonly timeoutMs: number;
  readonly env: Env;
  readonly artifactsDir: string;
  readonly signal: AbortSignal;
  /** The run's secret redaction, for what the reviewer's provider writes into the run folder. */
  readonly redact?: ((text: string) => string) | undefined;
  readonly logRedactor?: (() => LogRedactor) | undefined;
  /** The reviewer's sandbox (its folder is the export), or undefined without one. */
  readonly sandbox?: SandboxLayout | undefined;
}

export interface ReviewResult {
  readonly verdict: Verdict;
  readonly attempts: number;
  readonly costUsd: number;
}

/** A fence of backticks longer than any run of backticks in `text` (at least three). */
export function fenceFor(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(Math.max(3, longest + 1));
}

export function reviewPrompt(instructions: string, task: string, fullDiff: string): string {
  const diff = fullDiff.length > MAX_DIFF_CHARS ? `${fullDiff.slice(0, MAX_DIFF_CHARS)}\n[... diff cut at ${MAX_DIFF_CHARS} characters]` : fullDiff;
  const fence = fenceFor(diff);
  return `${instructions.trimEnd()}\n\n## Task\n\n${task.trimEnd()}\n\n## Diff\n\n${fence}diff\n${diff}\n${fence}\n`;
}

export async function runReview(request: ReviewRequest): Promise<ReviewResult> {
  const instructions = request.promptFile ? await readFile(request.promptFile, 'utf8') : BUILT_IN_REVIEW_PROMPT;
  const prompt = reviewPrompt(instructions, request.task, request.diff);
  const exportDir = reviewExportDir({ id: request.candidateId, worktree: request.worktree });
  try {
    return await reviewInExport(request, prompt, exportDir);
  } finally {
    await removeTree(exportDir).catch(() => undefined);
  }
}

async function reviewInExport(request: ReviewRequest, prompt: string, exportDir: string): Promise<ReviewResult> {
  let costUsd = 0;
  let verdict: Verdict = { verdict: 'none', reason: 'not run' };
  let attempts = 0;
  for (attempts = 1; attempts <= 2; attempts++) {
    const artifactsDir = join(request.artifactsDir, `review-${attempts}`);
    await mkdir(artifactsDir, { recursive: true });
    // A fresh export per attempt: whatever the judge wrote in the first one is gone.
    const exported = await exportCommit(request.worktree, request.commit, exportDir);
    if (!exported.ok) return { verdict: { verdict: 'none', reason: exported.error }, attempts, costUsd };
    const result = await request.provider.run({
      prompt:
        attempts === 1
          ? prompt
          : `${prompt}\nYour previous answer did not end with a verdict line. Answer again and end with the verdict line exactly as specified.\n`,
      cwd: exportDir,
      model: request.model,
      iteration: request.iteration,
      candidateId: `${request.candidateId}-review`,
      env: request.env,
      timeoutMs: request.timeoutMs,
      artifactsDir,
      signal: request.signal,
      onActivity: () => undefined,
      redact: request.redact,
      logRedactor: request.logRedactor,
      sandbox: request.sandbox,
    });
    costUsd += result.costUsd;
    // The judge must not change what is judged: without a sandbox it could still reach the
    // worktree by its path, so whatever it wrote there is discarded.
    await putBackCandidateFiles(request.worktree, { commit: request.commit, keep: [...request.keepPaths] });
    if (request.signal.aborted) return { verdict: { verdict: 'none', reason: 'cancelled' }, attempts, costUsd };
    verdict =
      result.outcome === 'success'
        ? parseVerdict(result.text)
        : { verdict: 'none', reason: `the reviewer ended with ${result.outcome}${result.message ? `: ${result.message}` : ''}` };
    if (verdict.verdict !== 'none') break;
  }
  return { verdict, attempts: Math.min(attempts, 2), costUsd };
}
