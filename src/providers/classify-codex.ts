/**
 * Turns what `codex exec --json` printed and how it exited into a ProviderResult, from the
 * real signals of docs/design/agent-clis.md 3.3: `turn.failed` messages, exit codes 0/1/2.
 *
 * Failed file edits (docs/design/agent-clis.md 11: with bubblewrap installed, Codex's own
 * `--sandbox workspace-write` fails every write, yet the turn completes and exits 0): when
 * every `file_change` of a completed turn failed, the outcome is `crashed`, with the files
 * and the cause; when only some failed, it stays `success` with a message that names them.
 */
import type { ProcessResult } from '../process/types.js';
import { crashMessage, processOutcome, resultOf, retryAfterFromText, type ClassifyContext, type Gathered } from './classify-common.js';
import type { CodexStreamState } from './codex-stream.js';
import { lastLine, oneLine } from './stream-lines.js';
import type { Outcome, ProviderResult, TokenUsage } from './types.js';

export interface CodexCost {
  readonly costUsd: number;
  readonly costEstimated: boolean;
}

/** Codex's `input_tokens` include the cached ones; bestof's `input` never does. */
export function codexUsage(state: CodexStreamState): TokenUsage {
  const { usage } = state;
  return {
    input: Math.max(0, usage.input - usage.cachedInput),
    output: usage.output,
    cacheRead: usage.cachedInput,
    cacheWrite: usage.cacheWrite,
  };
}

/** The outcome a failure message of Codex means (turn.failed, error event, or stderr). */
export function classifyCodexMessage(message: string): Outcome | undefined {
  if (/usage limit|upgrade to (plus|pro)/i.test(message)) return 'usage_limit';
  if (/quota exceeded|insufficient_quota|billing/i.test(message)) return 'usage_limit';
  if (/\b429\b|too many requests|rate.?limit|high demand/i.test(message)) return 'rate_limited';
  if (
    /\b401\b|\b403\b|unauthorized|forbidden|missing environment variable|not logged in|incorrect api key|invalid api key|codex login|401 unauthorized/i.test(
      message,
    )
  ) {
    return 'auth_error';
  }
  if (/context window|context_length_exceeded|maximum context length/i.test(message)) return 'context_overflow';
  if (/max_output_tokens|max output tokens/i.test(message)) return 'max_tokens';
  if (/refus|content policy|safety/i.test(message)) return 'refusal';
  return undefined;
}

/**
 * An outcome that is already certain while Codex is still running: it reconnects up to five
 * times on any error, including a refused key or an exhausted quota, which no retry fixes.
 */
export function codexEarlyStop(state: CodexStreamState): { outcome: Outcome; message: string } | undefined {
  if (state.reconnects < 2 || state.lastError === undefined) return undefined;
  const outcome = classifyCodexMessage(state.lastError);
  if (outcome !== 'auth_error' && outcome !== 'usage_limit') return undefined;
  const detail = state.lastError.replace(/^Reconnecting\.\.\. \d+\/\d+ \((.*)\)$/s, '$1');
  return { outcome, message: codexMessage(outcome, detail, { exitCode: 1 }) };
}

export function classifyCodex(state: CodexStreamState, process: ProcessResult, ctx: ClassifyContext, cost: CodexCost): ProviderResult {
  const gathered: Gathered = {
    text: state.lastAgentMessage || state.failure || '',
    usage: codexUsage(state),
    costUsd: cost.costUsd,
    costEstimated: cost.costEstimated,
    sessionId: state.threadId,
    turns: state.modelCalls,
  };
  const finish = (outcome: Outcome, message?: string) => resultOf(gathered, process, outcome, message);
  if (process.canceled) return finish('cancelled', 'cancelled');
  if (state.turnsCompleted > 0 && state.failure === undefined && (process.exitCode === 0 || process.timedOut)) {
    const failed = state.failedFileChanges;
    if (failed.length === 0) return finish('success');
    const files = `${failed.slice(0, 5).join(', ')}${failed.length > 5 ? `, … (${failed.length} in all)` : ''}`;
    if (state.fileChangesApplied === 0) {
      return finish(
        'crashed',
        `every file edit of Codex failed (${files}): Codex's own sandbox refuses writes on this machine (it does once bubblewrap is installed); let bestof's sandbox be the boundary (the default there), or set sandbox = "bypass" in the spec`,
      );
    }
    return finish('success', `some file edits of Codex failed (${files}); the others were applied`);
  }
  const early = processOutcome(process, ctx);
  if (early) return finish(early.outcome, early.message);

  const failure = state.failure ?? (process.exitCode !== 0 ? lastLine(process.stderr) || state.lastError : undefined);
  if (failure !== undefined) {
    const outcome = classifyCodexMessage(failure) ?? 'crashed';
    return resultOf(gathered, process, outcome, codexMessage(outcome, failure, process), retryAfterFromText(failure));
  }
  if (process.exitCode === 0) return finish('crashed', 'Codex exited without completing its turn (no turn.completed event)');
  return finish('crashed', crashMessage(ctx, process));
}

function codexMessage(outcome: Outcome, failure: string, process: Pick<ProcessResult, 'exitCode'>): string {
  const text = oneLine(failure, 300);
  switch (outcome) {
    case 'auth_error':
      return `Codex cannot authenticate: ${text} — set CODEX_API_KEY (or OPENAI_API_KEY with isolate_config = true), or run \`codex login\``;
    case 'usage_limit':
      return `the OpenAI account's usage limit or quota was reached: ${text}`;
    case 'rate_limited':
      return `rate limited by the OpenAI API: ${text}`;
    case 'context_overflow':
      return `the conversation does not fit the model's context window: ${text}`;
    case 'crashed':
      return process.exitCode === 2
        ? `Codex refused its arguments (exit 2): ${text} — check \`args\`, \`sandbox\` and \`config\` in the spec`
        : `Codex failed: ${text}`;
    default:
      return `Codex ended with ${outcome}: ${text}`;
  }
}
