/**
 * Prompts after the first iteration: the task again, plus what the agent needs to do
 * better: which checks failed and the tail of their output, the score and the threshold.
 */
import type { ProviderResult } from '../providers/types.js';
import type { Scoring } from './score.js';

const MAX_CHECK_OUTPUT = 1500;

export interface RetryPromptInput {
  readonly task: string;
  readonly iteration: number;
  readonly scoring: Scoring;
  readonly threshold: number;
  readonly result: ProviderResult;
}

export function buildRetryPrompt(input: RetryPromptInput): string {
  const { scoring } = input;
  const failed = scoring.checks.filter((c) => !c.passed);
  const lines = [
    input.task.trimEnd(),
    '',
    `## Iteration ${input.iteration}: your previous attempt scored ${scoring.score} of ${scoring.maxScore} (needed: ${input.threshold})`,
    '',
  ];
  if (input.result.outcome !== 'success') lines.push(`Your previous run ended with "${input.result.outcome}"${input.result.message ? `: ${input.result.message}` : ''}.`, '');
  if (failed.length > 0) {
    lines.push('These checks failed. Fix the code, not the checks: the checks run from the original version whatever you change.', '');
    for (const check of failed) {
      const output = check.outputTail.length > MAX_CHECK_OUTPUT ? `...${check.outputTail.slice(-MAX_CHECK_OUTPUT)}` : check.outputTail;
      lines.push(`### ${check.name}${check.timedOut ? ' (timed out)' : ` (exit code ${check.exitCode ?? 'none'})`}`, '```', output, '```', '');
    }
  }
  if (scoring.tampered.length > 0) {
    lines.push(`You changed frozen files (${scoring.tampered.map((t) => t.path).join(', ')}); those changes are ignored when scoring.`, '');
  }
  return lines.join('\n');
}
