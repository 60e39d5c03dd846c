/**
 * Parser of Claude Code's `-p --output-format stream-json --verbose` stream (one JSON event
 * per line; see docs/design/agent-clis.md section 1.4). It keeps only what classification
 * and the result need, and reports live activity (assistant text, each tool call, retries)
 * as it goes. Unknown event types and non-JSON lines are skipped.
 */
import { arr, num, obj, oneLine, parseJsonObject, str, summarizeToolInput, type JsonObject } from './stream-lines.js';
import type { TokenUsage } from './types.js';

/** The final `result` event, reduced to the fields bestof reads. */
export interface ClaudeResultEvent {
  readonly subtype: string;
  readonly isError: boolean;
  /** HTTP status of an API error (429, 401, 400, 529), else undefined. */
  readonly apiErrorStatus: number | undefined;
  /** The final answer on success, the error text on API errors; absent on error subtypes. */
  readonly result: string | undefined;
  readonly stopReason: string | undefined;
  readonly terminalReason: string | undefined;
  readonly errors: readonly string[];
  readonly numTurns: number;
  readonly totalCostUsd: number | undefined;
  /** Tokens of the whole tree (subagents included) from `modelUsage`, or `usage` when that is empty. */
  readonly usage: TokenUsage;
  /** Per model, from `modelUsage`. */
  readonly models: readonly string[];
  readonly permissionDenials: readonly string[];
}

export interface ClaudeStreamState {
  sessionId: string | undefined;
  /** The model announced by `system/init`, e.g. "claude-opus-4-8[1m]". */
  model: string | undefined;
  cliVersion: string | undefined;
  /** Text of the last main-loop assistant message (blocks of one message joined). */
  lastAssistantText: string;
  toolCalls: number;
  /** The `error` code of the synthetic assistant message an API error produces (rate_limit, authentication_failed, ...). */
  assistantError: string | undefined;
  /** A `system/model_refusal_no_fallback` event was seen. */
  refused: boolean;
  /** A subscription `rate_limit_event` with status "rejected": when it resets (epoch seconds), if known. */
  rateLimitRejected: { resetsAt: number | undefined; type: string | undefined } | undefined;
  apiRetries: number;
  /** The last `system/api_retry` event: Claude Code retrying a failed API call by itself. */
  lastRetry: { attempt: number; status: number | undefined; error: string | undefined } | undefined;
  result: ClaudeResultEvent | undefined;
}

export class ClaudeStreamParser {
  readonly state: ClaudeStreamState = {
    sessionId: undefined,
    model: undefined,
    cliVersion: undefined,
    lastAssistantText: '',
    toolCalls: 0,
    assistantError: undefined,
    refused: false,
    rateLimitRejected: undefined,
    apiRetries: 0,
    lastRetry: undefined,
    result: undefined,
  };
  private lastMessageId: string | undefined;

  constructor(private readonly onActivity: (text: string) => void = () => {}) {}

  push(line: string): void {
    const event = parseJsonObject(line);
    if (!event) return;
    const sessionId = str(event.session_id);
    if (sessionId) this.state.sessionId = sessionId;
    switch (event.type) {
      case 'system':
        this.onSystem(event);
        break;
      case 'assistant':
        this.onAssistant(event);
        break;
      case 'rate_limit_event':
        this.onRateLimit(obj(event.rate_limit_info));
        break;
      case 'result':
        this.state.result = parseResult(event);
        break;
      default:
        // user (tool results), stream_event, tool_progress, ...: nothing bestof needs.
        break;
    }
  }

  private onSystem(event: JsonObject): void {
    switch (event.subtype) {
      case 'init':
        this.state.model = str(event.model) ?? this.state.model;
        this.state.cliVersion = str(event.claude_code_version) ?? this.state.cliVersion;
        break;
      case 'api_retry': {
        this.state.apiRetries += 1;
        const status = num(event.error_status);
        this.state.lastRetry = { attempt: num(event.attempt), status: status || undefined, error: str(event.error) };
        const seconds = Math.round(num(event.retry_delay_ms) / 100) / 10;
        this.onActivity(
          `API error ${status || str(event.error) || ''}`.trim() +
            `, Claude Code retries in ${seconds}s (attempt ${num(event.attempt)}/${num(event.max_retries)})`,
        );
        break;
      }
      case 'model_refusal_no_fallback':
        this.state.refused = true;
        break;
      default:
        break;
    }
  }

  private onAssistant(event: JsonObject): void {
    const message = obj(event.message);
    const subagent = event.parent_tool_use_id !== null && event.parent_tool_use_id !== undefined;
    const prefix = subagent ? '(subagent) ' : '';
    const error = str(event.error);
    if (error && !subagent) this.state.assistantError = error;
    const id = str(message.id);
    for (const block of arr(message.content)) {
      const content = obj(block);
      if (content.type === 'text') {
        const text = str(content.text) ?? '';
        if (!subagent && error === undefined) {
          // Blocks of one API response arrive as separate lines sharing message.id.
          this.state.lastAssistantText = id !== undefined && id === this.lastMessageId ? `${this.state.lastAssistantText}\n${text}` : text;
          this.lastMessageId = id;
        }
        if (text.trim() !== '') this.onActivity(prefix + oneLine(text));
      } else if (content.type === 'tool_use') {
        this.state.toolCalls += 1;
        const name = str(content.name) ?? 'tool';
        const summary = summarizeToolInput(content.input);
        this.onActivity(`${prefix}${name}${summary ? ` ${summary}` : ''}`);
      }
    }
  }

  private onRateLimit(info: JsonObject): void {
    if (info.status !== 'rejected') return;
    const resetsAt = typeof info.resetsAt === 'number' ? info.resetsAt : undefined;
    this.state.rateLimitRejected = { resetsAt, type: str(info.rateLimitType) };
  }
}

function parseResult(event: JsonObject): ClaudeResultEvent {
  const modelUsage = obj(event.modelUsage);
  const models = Object.keys(modelUsage);
  let usage: TokenUsage;
  if (models.length > 0) {
    const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    for (const name of models) {
      const entry = obj(modelUsage[name]);
      sum.input += num(entry.inputTokens);
      sum.output += num(entry.outputTokens);
      sum.cacheRead += num(entry.cacheReadInputTokens);
      sum.cacheWrite += num(entry.cacheCreationInputTokens);
    }
    usage = sum;
  } else {
    const main = obj(event.usage);
    usage = {
      input: num(main.input_tokens),
      output: num(main.output_tokens),
      cacheRead: num(main.cache_read_input_tokens),
      cacheWrite: num(main.cache_creation_input_tokens),
    };
  }
  let totalCostUsd = typeof event.total_cost_usd === 'number' ? event.total_cost_usd : undefined;
  if (totalCostUsd === undefined && models.length > 0) {
    totalCostUsd = models.reduce((sum, name) => sum + num(obj(modelUsage[name]).costUSD), 0);
  }
  return {
    subtype: str(event.subtype) ?? 'unknown',
    isError: event.is_error === true,
    apiErrorStatus: typeof event.api_error_status === 'number' ? event.api_error_status : undefined,
    result: str(event.result),
    stopReason: str(event.stop_reason),
    terminalReason: str(event.terminal_reason),
    errors: arr(event.errors).filter((e): e is string => typeof e === 'string'),
    numTurns: num(event.num_turns),
    totalCostUsd,
    usage,
    models,
    permissionDenials: arr(event.permission_denials).map((denial) => {
      const d = obj(denial);
      const summary = summarizeToolInput(d.tool_input);
      return `${str(d.tool_name) ?? 'tool'}${summary ? ` ${summary}` : ''}`;
    }),
  };
}
