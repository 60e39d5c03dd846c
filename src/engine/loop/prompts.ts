/**
 * The prompt of each iteration. Iteration 1 gets the task (and the phase's prompt, when the
 * spec has phases), then, where the spec keeps paths as in base, what they are (PathRules): an
 * honest agent that adds a regression test under a frozen `tests/**` would otherwise learn only
 * after its first iteration that such a change keeps its work from being chosen, and no later
 * iteration takes it back. Later iterations get `retry_prompt_file` (or the task again) plus what
 * the agent needs to do better: the score and the threshold, which checks failed with the
 * tail of their output, how its last run ended, the reviewer's refusal, messages sent
 * through the channel, the output file, and the time and money left. What it says about each
 * outcome is the `promptNote` of ./outcome-policy.ts.
 *
 * The text is a product decision: a test holds the exact text of a typical iteration-2
 * prompt, so a change here is a visible one.
 */
import type { Outcome } from '../../providers/types.js';
import { formatDuration } from '../../spec/duration.js';
import type { CheckOutcome } from '../../checks/run-checks.js';
import type { CheckReport } from '../../checks/test-report/types.js';
import { OUTCOME_POLICY } from './outcome-policy.js';
import { failingOutput } from '../record/failing-part.js';
import { testMessageHead } from '../record/test-report-words.js';
import { plural } from '../words.js';

/** Per failed check, at most this much of the end of its output. */
export const MAX_CHECK_OUTPUT_CHARS = 2000;

export interface IterationFeedback {
  readonly score: number;
  readonly maxScore: number;
  readonly threshold: number;
  readonly failedChecks: readonly CheckOutcome[];
  readonly outcome: Outcome;
  readonly outcomeMessage?: string;
  readonly refuseReason?: string;
  readonly tampered: readonly string[];
  /**
   * Files of the agent's that bestof's commit left out (`src/add.js is a symbolic link to /tmp/x,
   * outside the worktree: ...`): the checks did not see them, and no merge brings them. Only from
   * the iteration just scored; after a resume, the run's warnings still say it. @default none
   */
  readonly leftOut?: readonly string[];
}

/** What the spec keeps as in base, told to the agent with the task (`[checks]`). */
export interface PathRules {
  /** `frozen` and `protected`: the checks use base's version; a change there is never chosen. */
  readonly kept: readonly string[];
  /** `editable`: only changes there count. Empty: everything but `kept`. */
  readonly editable: readonly string[];
  /**
   * The test runners' files bestof keeps by itself (RunPlan.runner's patterns), but where `editable`
   * covers them (../../checks/runner-defaults.ts). @default none
   */
  readonly runner?: readonly string[];
}

export interface IterationPromptInput {
  /** `[prompt]` text or file. */
  readonly task: string;
  /** `[prompt] retry_prompt_file`, used instead of the task from iteration 2 on. */
  readonly retryTemplate?: string;
  /** The `[[prompts]]` phase of this iteration. */
  readonly phase?: { readonly name: string; readonly prompt: string };
  /** The paths the spec keeps as in base; no section where there are none. */
  readonly rules?: PathRules;
  readonly iteration: number;
  readonly maxIterations: number;
  /** What happened in the previous iteration; absent for iteration 1. */
  readonly feedback?: IterationFeedback;
  readonly messages: readonly string[];
  readonly outputFile?: string;
  readonly timeLeftMs?: number;
  readonly budgetLeftUsd?: number;
}

function tail(text: string, max: number): string {
  return text.length > max ? `...${text.slice(-max)}` : text;
}

/**
 * A failed check's output in the retry prompt: the failing part (src/engine/record/failing-part.ts,
 * what the user sees too) when the end of the output does not hold it, then the end of the output.
 */
function outputBlocks(check: CheckOutcome): string {
  const end = tail(check.outputTail, MAX_CHECK_OUTPUT_CHARS);
  if (check.excerpt === undefined) return `\`\`\`\n${end}\n\`\`\``;
  const part = failingOutput(check);
  const body = part.replace(/^… \(\d+ lines? above\)\n/, '');
  if (body.trim() === '' || end.includes(body)) return `\`\`\`\n${end}\n\`\`\``;
  return `The failing part of its output:\n\n\`\`\`\n${part}\n\`\`\`\n\nThe end of its output:\n\n\`\`\`\n${end}\n\`\`\``;
}

export function buildIterationPrompt(input: IterationPromptInput): string {
  const { feedback } = input;
  const base = feedback && input.retryTemplate !== undefined ? input.retryTemplate : input.task;
  const parts: string[] = [base.trimEnd()];
  if (input.phase) parts.push(`## Phase: ${input.phase.name}\n\n${input.phase.prompt.trimEnd()}`);
  const rules = input.rules ? rulesSection(input.rules) : undefined;
  if (rules) parts.push(rules);
  if (!feedback) {
    if (input.messages.length > 0) parts.push(messagesSection(input.messages));
    return `${parts.join('\n\n')}\n`;
  }

  const context: string[] = [`## bestof: iteration ${input.iteration} of ${input.maxIterations}`];
  context.push(
    `Your previous attempt scored ${feedback.score} of ${plural(feedback.maxScore, 'point')}; ${feedback.threshold} ${feedback.threshold === 1 ? 'is' : 'are'} needed to finish.`,
  );
  const note = OUTCOME_POLICY[feedback.outcome].promptNote;
  if (note) context.push(`Your previous run ended early (${feedback.outcome}): ${note}${feedback.outcomeMessage ? ` (${feedback.outcomeMessage})` : ''}.`);
  if (feedback.refuseReason) context.push(`The reviewer refused your previous attempt: ${feedback.refuseReason}`);
  parts.push(context.join('\n\n'));

  const shown = feedback.failedChecks.filter((check) => !check.hidden);
  const hidden = feedback.failedChecks.filter((check) => check.hidden);
  if (shown.length > 0) {
    const checks = shown.map((check) => {
      const how = check.why ?? check.report?.failure ?? (check.timedOut ? 'timed out' : `exit code ${check.exitCode ?? 'none'}`);
      return `### ${check.name} (${how})\n\n${failingTestsLine(check.report)}${outputBlocks(check)}`;
    });
    parts.push(
      `These checks failed. They always run from the original tests and check scripts, so changing those earns nothing: fix the work itself.\n\n${checks.join('\n\n')}`,
    );
  }
  if (hidden.length > 0) {
    parts.push(
      `${hidden.map(hiddenCheckLine).join('\n')}\n\nA hidden check runs tests you cannot see, with other inputs than the tests you can: make the work do the task in general, not for the inputs you see.`,
    );
  }
  if (feedback.tampered.length > 0) parts.push(`Your changes to frozen files were ignored when scoring: ${feedback.tampered.join(', ')}.`);
  if (feedback.leftOut && feedback.leftOut.length > 0) {
    parts.push(
      `These files were not committed, so the checks did not see them and no merge brings them:\n\n${feedback.leftOut.map((line) => `- ${line}`).join('\n')}`,
    );
  }
  if (input.messages.length > 0) parts.push(messagesSection(input.messages));

  const limits: string[] = [];
  if (input.outputFile) limits.push(`Output file: ${input.outputFile} (your previous output is there; build on it).`);
  if (input.timeLeftMs !== undefined) limits.push(`Time left: ${formatDuration(Math.max(0, input.timeLeftMs))}.`);
  if (input.budgetLeftUsd !== undefined) limits.push(`Budget left: $${input.budgetLeftUsd.toFixed(2)}.`);
  if (limits.length > 0) parts.push(limits.join('\n'));
  return `${parts.join('\n\n')}\n`;
}

/** "## bestof: paths the checks keep": what is frozen or protected, and where changes count; undefined where the spec says nothing. */
function rulesSection(rules: PathRules): string | undefined {
  const lines: string[] = [];
  const list = (patterns: readonly string[]): string => patterns.map((p) => `\`${p}\``).join(', ');
  if (rules.kept.length > 0) {
    lines.push(
      `The checks always use the original version of these paths: ${list(rules.kept)}. Changing, adding or deleting a file there earns nothing, and work that does is not chosen: leave them as they are.`,
    );
  }
  if (rules.runner !== undefined && rules.runner.length > 0) {
    const unless = rules.editable.length > 0 ? ' (unless a path where your changes count, below, names one)' : '';
    lines.push(
      `The checks also use the original version of the test runners' own files${unless}, and work that changes them is not chosen: ${list(rules.runner)}; and of the test runners' settings in package.json, pyproject.toml and go.mod.`,
    );
  }
  if (rules.editable.length > 0) lines.push(`Only your changes to ${list(rules.editable)} count: a change elsewhere is undone before the checks and not kept.`);
  return lines.length > 0 ? `## bestof: paths the checks keep\n\n${lines.join('\n')}` : undefined;
}

function messagesSection(messages: readonly string[]): string {
  return `Messages from the user:\n${messages.map((m) => `- ${m}`).join('\n')}`;
}

/**
 * "hidden check `acceptance` failed: 3 of 9 tests": counts only. Its output, its tests' names and
 * their messages would tell the agent what the hidden tests check (their inputs, the answers).
 */
export function hiddenCheckLine(check: CheckOutcome): string {
  return `- hidden check \`${check.name}\` failed${hiddenFailure(check)}`;
}

function hiddenFailure(check: CheckOutcome): string {
  const report = check.report;
  if (check.why !== undefined) return `: ${check.why}`;
  if (report?.failure === 'no test report') return ': no test report';
  if (report && report.expected === 0) return ': its test report has no test that ran';
  if (report && report.expected > report.passed) return `: ${report.expected - report.passed} of ${plural(report.expected, 'test')}`;
  return ` (${check.timedOut ? 'timed out' : `exit ${check.exitCode ?? 'none'}`})`;
}

/** How many failing or missing tests of a report the retry prompt names. */
const MAX_NAMED_TESTS = 20;

/**
 * A report check's tests that must pass and do not (failed, errored, skipped, missing), by name, for
 * the retry prompt: what is left to do, not only that something is. '' without a report.
 */
export function failingTestsLine(report: CheckReport | undefined): string {
  if (!report) return '';
  const left = report.tests.filter((test) => (test.role === 'fail_to_pass' || test.role === 'pass_to_pass') && test.outcome !== 'passed');
  if (left.length === 0) return '';
  const named = left.slice(0, MAX_NAMED_TESTS).map((test) => {
    const message = testMessageHead(test);
    return `- ${test.name} (${test.outcome === 'missing' ? 'missing from the report: it did not run' : test.outcome})${message ? `: ${message}` : ''}`;
  });
  const more = left.length > MAX_NAMED_TESTS ? `\n- and ${left.length - MAX_NAMED_TESTS} more` : '';
  return `${report.passed} of ${plural(report.expected, 'test')} pass. Still to pass:\n${named.join('\n')}${more}\n\n`;
}
