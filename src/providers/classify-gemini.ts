/**
 * Turns what Gemini CLI printed and how it exited into a ProviderResult, from the real
 * signals of docs/design/agent-clis.md 4.2-4.4: the `result` event's status and error, the
 * exit code (41 auth, 53 turn limit, an HTTP status modulo 256 for API errors: 429 -> 173,
 * 400 -> 144) and the `{ "error": … }` block Gemini prints on stderr.
 */
import type { ProcessResult } from '../process/types.js';
import { crashMessage, processOutcome, resultOf, retryAfterFromText, type ClassifyContext, type Gathered } from './classify-common.js';
import { totalUsage, type GeminiStreamState } from './gemini-stream.js';
import { lastJsonBlock, lastLine, obj, oneLine, str } from './stream-lines.js';
import type { Outcome, ProviderResult } from './types.js';

/** Exit codes of Gemini CLI that name a cause ([SRC] packages/core/src/utils/exitCodes.ts). */
const EXIT_AUTH = 41;
const EXIT_TURN_LIMIT = 53;
const httpExit = (status: number) => status % 256;

export interface GeminiCost {
  readonly costUsd: number;
  readonly costEstimated: boolean;
}

/** The error Gemini reported: from the stream's result, else from the JSON block on stderr. */
export function geminiError(state: GeminiStreamState, stderr: string): { type: string | undefined; message: string; code: number | undefined } | undefined {
  if (state.error) return { ...state.error, code: undefined };
  const block = lastJsonBlock(stderr);
  if (!block || block.error === undefined) return undefined;
  const error = obj(block.error);
  return { type: str(error.type), message: str(error.message) ?? '', code: typeof error.code === 'number' ? error.code : undefined };
}

export function classifyGeminiError(exitCode: number | undefined, type: string | undefined, message: string): Outcome | undefined {
  if (exitCode === EXIT_TURN_LIMIT || type === 'FatalTurnLimitedError' || /max session turns/i.test(message)) return 'max_turns';
  if (
    exitCode === EXIT_AUTH ||
    type === 'FatalAuthenticationError' ||
    /API_KEY_INVALID|API key not valid|invalid auth method|UNAUTHENTICATED|PERMISSION_DENIED|login required|\b401\b|\b403\b/i.test(message)
  ) {
    return 'auth_error';
  }
  if (exitCode === httpExit(401) || exitCode === httpExit(403)) return 'auth_error';
  // A daily quota does not come back with a retry; a per-minute one does (RetryableQuotaError).
  if (/TerminalQuotaError|per day|daily (limit|quota)|quota exceeded for .*day/i.test(`${type ?? ''} ${message}`)) return 'usage_limit';
  if (exitCode === httpExit(429) || /RESOURCE_EXHAUSTED|resource has been exhausted|\b429\b|rate limit|RetryableQuotaError/i.test(`${type ?? ''} ${message}`)) {
    return 'rate_limited';
  }
  // Not reproduced against the real CLI (docs/design/agent-clis.md section 8): the API's own texts.
  if (/exceeds the maximum number of tokens|input token count .* exceeds|context window|prompt is too long/i.test(message)) return 'context_overflow';
  if (/MAX_TOKENS/.test(message)) return 'max_tokens';
  if (/\bSAFETY\b|PROHIBITED_CONTENT|blocked due to|BLOCKLIST/.test(message)) return 'refusal';
  return undefined;
}

export function classifyGemini(state: GeminiStreamState, process: ProcessResult, ctx: ClassifyContext, cost: GeminiCost): ProviderResult {
  const gathered: Gathered = {
    text: state.text.trim() || state.error?.message || '',
    usage: totalUsage(state.models),
    costUsd: cost.costUsd,
    costEstimated: cost.costEstimated,
    sessionId: state.sessionId,
    turns: state.status === undefined ? state.toolCalls : state.toolCalls + 1,
  };
  const finish = (outcome: Outcome, message?: string) => resultOf(gathered, process, outcome, message);
  if (process.canceled) return finish('cancelled', 'cancelled');
  if (state.status === 'success' && (process.exitCode === 0 || process.timedOut)) return finish('success');
  const early = processOutcome(process, ctx);
  if (early) return finish(early.outcome, early.message);

  const error = geminiError(state, process.stderr);
  const message = error?.message ?? '';
  const outcome = classifyGeminiError(process.exitCode, error?.type, message);
  if (outcome)
    return resultOf(
      gathered,
      process,
      outcome,
      geminiMessage(outcome, message || lastLine(process.stderr)),
      retryAfterFromText(`${message}\n${process.stderr}`),
    );
  if (process.exitCode === 130) return finish('crashed', 'Gemini CLI was interrupted (exit 130)');
  if (process.exitCode === 0 && state.status === undefined) return finish('crashed', 'Gemini CLI exited without a final result (no "result" event)');
  return finish('crashed', crashMessage(ctx, process, message ? oneLine(message, 300) : undefined));
}

function geminiMessage(outcome: Outcome, detail: string): string {
  const text = oneLine(detail.replace(/^\[API Error: |\]$/g, ''), 300);
  switch (outcome) {
    case 'auth_error':
      return `Gemini CLI cannot authenticate: ${text} — set GEMINI_API_KEY (or GOOGLE_API_KEY with Vertex AI), or log in once with \`gemini\``;
    case 'max_turns':
      return `Gemini CLI stopped at its session turn limit: ${text}`;
    case 'rate_limited':
      return `rate limited by the Gemini API (429): ${text}`;
    case 'usage_limit':
      return `the Gemini quota was exhausted: ${text}`;
    default:
      return `Gemini CLI ended with ${outcome}: ${text}`;
  }
}
