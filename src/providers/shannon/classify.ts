/**
 * A turn that ended with StopFailure (an API error; docs/design/agent-clis.md section 2.2):
 * its `error` code and the error text in `last_assistant_message` give the outcome, the same
 * outcomes and wording as the headless provider's (../classify-claude.ts).
 */
import { retryAfterFromText } from '../classify-common.js';
import { oneLine } from '../stream-lines.js';
import type { Outcome } from '../types.js';

const USAGE_LIMIT = /hit your (session|weekly|opus) limit|usage limit/i;
const CONTEXT_TEXT = /prompt is too long|context limit reached|input is too long for requested model|context window/i;
const AUTH_ERRORS = new Set(['authentication_failed', 'oauth_org_not_allowed', 'account_on_hold', 'verification_required', 'cloud_credential_error']);

export interface FailureOutcome {
  readonly outcome: Outcome;
  readonly message: string;
  readonly retryAfterMs?: number;
}

export function classifyStopFailure(error: string | undefined, text: string): FailureOutcome {
  const said = oneLine(text) || 'no details';
  const retryAfterMs = retryAfterFromText(text);
  const withRetry = (outcome: Outcome, message: string): FailureOutcome =>
    retryAfterMs !== undefined ? { outcome, message, retryAfterMs } : { outcome, message };
  if (USAGE_LIMIT.test(text)) return withRetry('usage_limit', `the Claude subscription limit was reached: ${said}`);
  switch (error) {
    case 'rate_limit':
      return withRetry('rate_limited', `rate limited by the Anthropic API (429): ${said}`);
    case 'overloaded':
      return withRetry('rate_limited', `the Anthropic API is overloaded (529), try again later: ${said}`);
    case 'billing_error':
      return { outcome: 'usage_limit', message: `the Anthropic account is out of credit: ${said} — add credit in the Console or use another key` };
    case 'max_output_tokens':
      return { outcome: 'max_tokens', message: `the model's answer hit the output token limit: ${said}` };
    case 'model_not_found':
      return { outcome: 'crashed', message: `the model was not found: ${said} — set \`model\` in the spec to one your account can use` };
    default:
      break;
  }
  if (error !== undefined && AUTH_ERRORS.has(error)) {
    return {
      outcome: 'auth_error',
      message: `Claude Code cannot authenticate: ${said} — set ANTHROPIC_API_KEY (or CLAUDE_CODE_OAUTH_TOKEN from \`claude setup-token\`), or log in once with \`claude\``,
    };
  }
  if (CONTEXT_TEXT.test(text)) return { outcome: 'context_overflow', message: `the conversation does not fit the model's context window: ${said}` };
  return { outcome: 'crashed', message: `Claude Code reported an error${error ? ` (${error})` : ''}: ${said}` };
}
