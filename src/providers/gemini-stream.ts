/**
 * Parser of `gemini -p … --output-format stream-json` (docs/design/agent-clis.md 4.3). The
 * final answer is not in `result`: it is the concatenation of the assistant `message` events
 * (delta chunks). Assistant text is shown as activity when a tool call or the result ends it.
 */
import { num, obj, oneLine, parseJsonObject, str, summarizeToolInput } from './stream-lines.js';
import type { TokenUsage } from './types.js';

export interface GeminiModelUsage {
  readonly model: string;
  readonly usage: TokenUsage;
}

export interface GeminiStreamState {
  sessionId: string | undefined;
  /** The model announced by `init` ("auto" unless -m was given). */
  model: string | undefined;
  /** All assistant text of the run. */
  text: string;
  toolCalls: number;
  /** `result.status`, once the result arrived. */
  status: string | undefined;
  error: { type: string | undefined; message: string } | undefined;
  /** Tokens per model that served requests (the router's model included). */
  models: GeminiModelUsage[];
  /** Non-fatal `error` events (severity warning or error). */
  warnings: string[];
}

export class GeminiStreamParser {
  readonly state: GeminiStreamState = {
    sessionId: undefined,
    model: undefined,
    text: '',
    toolCalls: 0,
    status: undefined,
    error: undefined,
    models: [],
    warnings: [],
  };
  /** Assistant text since the last activity line. */
  private pendingText = '';

  constructor(private readonly onActivity: (text: string) => void = () => {}) {}

  push(line: string): void {
    const event = parseJsonObject(line);
    if (!event) return;
    switch (event.type) {
      case 'init':
        this.state.sessionId = str(event.session_id) ?? this.state.sessionId;
        this.state.model = str(event.model) ?? this.state.model;
        break;
      case 'message':
        if (event.role === 'assistant') {
          const content = str(event.content) ?? '';
          // Without `delta`, a message is whole: it starts a new paragraph of the answer.
          const joiner = event.delta === true || this.state.text === '' ? '' : '\n';
          this.state.text += joiner + content;
          this.pendingText += joiner + content;
        }
        break;
      case 'tool_use': {
        this.flushText();
        this.state.toolCalls += 1;
        const summary = summarizeToolInput(event.parameters);
        this.onActivity(`${str(event.tool_name) ?? 'tool'}${summary ? ` ${summary}` : ''}`);
        break;
      }
      case 'tool_result':
        if (event.status === 'error') {
          const error = obj(event.error);
          this.onActivity(`tool failed: ${oneLine(str(error.message) ?? str(event.output) ?? 'error')}`);
        }
        break;
      case 'error': {
        const message = str(event.message) ?? '';
        this.state.warnings.push(message);
        if (message) this.onActivity(`gemini ${str(event.severity) ?? 'error'}: ${oneLine(message)}`);
        break;
      }
      case 'result':
        this.flushText();
        this.onResult(event);
        break;
      default:
        break;
    }
  }

  private onResult(event: Readonly<Record<string, unknown>>): void {
    this.state.status = str(event.status);
    if (event.error !== undefined) {
      const error = obj(event.error);
      this.state.error = { type: str(error.type), message: str(error.message) ?? '' };
    }
    const stats = obj(event.stats);
    const models = obj(stats.models);
    this.state.models = Object.keys(models).map((model) => ({ model, usage: tokensOf(obj(models[model])) }));
    if (this.state.models.length === 0 && Object.keys(stats).length > 0) {
      this.state.models = [{ model: this.state.model ?? 'unknown', usage: tokensOf(stats) }];
    }
  }

  private flushText(): void {
    const text = this.pendingText.trim();
    this.pendingText = '';
    if (text) this.onActivity(oneLine(text));
  }
}

/** `input` is the prompt minus the cached part; `input_tokens` is the whole prompt. */
function tokensOf(stats: Readonly<Record<string, unknown>>): TokenUsage {
  const cached = num(stats.cached);
  const input = stats.input !== undefined ? num(stats.input) : Math.max(0, num(stats.input_tokens) - cached);
  // Thinking tokens are billed as output; stream-json reports them only inside total_tokens.
  const output = Math.max(num(stats.output_tokens), num(stats.total_tokens) - num(stats.input_tokens));
  return { input, output, cacheRead: cached, cacheWrite: 0 };
}

export function totalUsage(models: readonly GeminiModelUsage[]): TokenUsage {
  return models.reduce(
    (sum, { usage }) => ({
      input: sum.input + usage.input,
      output: sum.output + usage.output,
      cacheRead: sum.cacheRead + usage.cacheRead,
      cacheWrite: sum.cacheWrite + usage.cacheWrite,
    }),
    { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  );
}
