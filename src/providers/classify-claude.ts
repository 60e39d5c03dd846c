/**
 * Turns what Claude Code printed and how it exited into a ProviderResult. Every outcome comes
 * from a real signal (docs/design/agent-clis.md sections 1.2, 1.3 and 1.5): API errors end
 * with `subtype:"success"` and `is_error:true`, so the subtype alone never means success.
 */
import type { ProcessResult } from '../process/types.js';
import { crashMessage, processOutcome, resultOf, retryAfterFromText, type ClassifyContext, type Gathered } from './classify-common.js';
import type { ClaudeStreamState } from './claude-stream.js';
import { lastLine, oneLine } from './stream-lines.js';
import { ZERO_USAGE, type Outcome, type ProviderResult } from './types.js';

const USAGE_LIMIT = /hit your (session|weekly|opus) limit|usage limit/i;
const AUTH_TEXT = /not logged in|invalid api key|please run \/login|oauth token (has )?expired|authentication_error|x-api-key/i;
const CONTEXT_TEXT = /^prompt is too long|context limit reached|input is too long for requested model|context window/i;
const AUTH_ERRORS = new Set(['authentication_failed', 'oauth_org_not_allowed', 'account_on_hold', 'verification_required', 'cloud_credential_error']);

export function classifyClaude(state: ClaudeStreamState, process: ProcessResult, ctx: ClassifyContext): ProviderResult {
  const result = state.result;
  const gathered: Gathered = {
    text: result?.result ?? (state.lastAssistantText || result?.errors.join('\n') || ''),
    usage: result?.usage ?? ZERO_USAGE,
    costUsd: result?.totalCostUsd ?? 0,
    costEstimated: false,
    sessionId: state.sessionId,
    turns: result?.numTurns ?? 0,
  };
  const retryAfterMs =
    state.rateLimitRejected?.resetsAt !== undefined ? state.rateLimitRejected.resetsAt * 1000 - Date.now() : retryAfterFromText(result?.result ?? '');
  const finish = (outcome: Outcome, message?: string) => resultOf(gathered, process, outcome, message, retryAfterMs);

  if (process.canceled) return finish('cancelled', 'cancelled');
  // A final result written before a timeout kill still tells how the turn ended.
  if (!result) {
    const early = processOutcome(process, ctx);
    if (early) return finish(early.outcome, early.message);
    return classifyWithoutResult(process, ctx, finish);
  }

  const text = result.result ?? '';
  if (result.subtype === 'error_max_turns' || result.terminalReason === 'max_turns') {
    return finish('max_turns', `Claude Code stopped at the turn limit: ${result.errors[0] ?? `${result.numTurns} turns`}; raise \`max_turns\` in the spec`);
  }
  if (result.subtype === 'error_max_budget_usd' || result.terminalReason === 'budget_exhausted') {
    return finish('usage_limit', `Claude Code stopped at its budget: ${result.errors[0] ?? 'budget exhausted'}`);
  }
  if (!result.isError && result.subtype === 'success') {
    if (result.stopReason === 'refusal') return finish('refusal', `the model refused the request: ${oneLine(text)}`);
    return finish('success');
  }
  if (result.subtype !== 'success') {
    // error_during_execution, error_max_structured_output_retries, and subtypes newer than us.
    return finish('crashed', `Claude Code ended with ${result.subtype}${result.errors[0] ? `: ${result.errors[0]}` : ''}`);
  }

  // subtype "success" with is_error: an API or login error, told apart by status, code and text.
  const status = result.apiErrorStatus;
  const code = state.assistantError;
  if (state.rateLimitRejected || USAGE_LIMIT.test(text)) {
    const resets = state.rateLimitRejected?.resetsAt;
    const when = resets ? ` (resets at ${new Date(resets * 1000).toISOString()})` : '';
    return finish('usage_limit', `the Claude subscription limit was reached${when}: ${oneLine(text)}`);
  }
  if (status === 429 || code === 'rate_limit') return finish('rate_limited', `rate limited by the Anthropic API (429): ${oneLine(text)}`);
  if (status === 529 || code === 'overloaded') return finish('rate_limited', `the Anthropic API is overloaded (529), try again later: ${oneLine(text)}`);
  if (status === 401 || status === 403 || (code !== undefined && AUTH_ERRORS.has(code)) || AUTH_TEXT.test(text)) {
    return finish('auth_error', `${authMessage(text)}`);
  }
  if (code === 'billing_error' || status === 402 || /credit balance is too low/i.test(text)) {
    return finish('usage_limit', `the Anthropic account is out of credit: ${oneLine(text)} — add credit in the Console or use another key`);
  }
  if (result.terminalReason === 'prompt_too_long' || CONTEXT_TEXT.test(text)) {
    return finish('context_overflow', `the conversation does not fit the model's context window: ${oneLine(text)}`);
  }
  if (code === 'max_output_tokens' || result.stopReason === 'max_tokens' || /output token maximum/i.test(text)) {
    return finish('max_tokens', `the model's answer hit the output token limit: ${oneLine(text)}`);
  }
  if (result.stopReason === 'refusal' || state.refused) {
    return finish('refusal', `the model refused the request: ${oneLine(text)}`);
  }
  return finish('crashed', `Claude Code reported an error${status ? ` (HTTP ${status})` : ''}: ${oneLine(text) || 'no details'}`);
}

/** Claude Code retries before it gives up; past this attempt an auth or billing error is final. */
const FINAL_AFTER_ATTEMPT = 3;

/**
 * An outcome that is already certain while Claude Code is still running. Claude Code 2.1.332
 * retries a 401 ten times with backoff (minutes) before it reports it; a key that was refused
 * three times in a row will not be accepted, so bestof stops the CLI and reports the auth error
 * at once. (The first retries are left alone: an OAuth login may refresh its token.)
 */
export function claudeEarlyStop(state: ClaudeStreamState): { outcome: Outcome; message: string } | undefined {
  const retry = state.lastRetry;
  if (!retry || retry.attempt < FINAL_AFTER_ATTEMPT) return undefined;
  if (retry.status === 401 || retry.status === 403 || (retry.error !== undefined && AUTH_ERRORS.has(retry.error))) {
    return {
      outcome: 'auth_error',
      message: authMessage(`the API refused the credentials (HTTP ${retry.status ?? '?'}, ${retry.error ?? 'no code'}) ${retry.attempt} times`),
    };
  }
  if (retry.error === 'billing_error' || retry.status === 402) {
    return {
      outcome: 'usage_limit',
      message: `the Anthropic account is out of credit (${retry.error ?? `HTTP ${retry.status}`}) — add credit in the Console or use another key`,
    };
  }
  return undefined;
}

function authMessage(text: string): string {
  return `Claude Code cannot authenticate: ${oneLine(text)} — set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from \`claude setup-token\`), or log in once with \`claude\``;
}

function classifyWithoutResult(process: ProcessResult, ctx: ClassifyContext, finish: (outcome: Outcome, message?: string) => ProviderResult): ProviderResult {
  const stderr = process.stderr;
  if (AUTH_TEXT.test(stderr)) return finish('auth_error', authMessage(lastLine(stderr)));
  if (/cannot be used with root\/sudo privileges/.test(stderr)) {
    return finish(
      'crashed',
      `${crashMessage(ctx, process)} — bypassPermissions is refused as root; run bestof as another user, or set IS_SANDBOX=1 in the spec's env if this machine is a sandbox`,
    );
  }
  if (process.exitCode === 0) return finish('crashed', 'Claude Code exited without a final result (its stream-json output had no "result" event)');
  return finish('crashed', crashMessage(ctx, process));
}
