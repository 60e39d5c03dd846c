/**
 * Parser of `codex exec --json` (one JSON event per line; docs/design/agent-clis.md 3.2).
 * `error` events and `error` items are warnings (reconnects, model metadata): only
 * `turn.failed` ends a run as a failure, and `turn.completed` is the success signal. A
 * `file_change` item that ended `"status":"failed"` is recorded (classify-codex.ts never lets
 * it pass as a quiet success).
 */
import { arr, num, obj, oneLine, parseJsonObject, str, type JsonObject } from './stream-lines.js';

export interface CodexStreamState {
  threadId: string | undefined;
  /** The last `agent_message` text: Codex's final answer. */
  lastAgentMessage: string;
  /** Model calls, estimated: Codex reports none, so each tool call plus the final message counts as one. */
  modelCalls: number;
  turnsCompleted: number;
  /** Summed over the turns of this exec; thread-cumulative after `exec resume`. */
  usage: { input: number; cachedInput: number; cacheWrite: number; output: number; reasoning: number };
  /** The message of `turn.failed`, when the turn failed. */
  failure: string | undefined;
  /** The last `error` event (non-fatal on its own). */
  lastError: string | undefined;
  /** How many `error` events said "Reconnecting...": Codex retrying a failed request by itself. */
  reconnects: number;
  /** `file_change` items that completed with `"status":"completed"`. */
  fileChangesApplied: number;
  /** Paths of `file_change` items that ended `"status":"failed"` (Codex's own sandbox refusing writes). */
  failedFileChanges: string[];
}

const TOOL_ITEMS = new Set(['command_execution', 'file_change', 'mcp_tool_call', 'collab_tool_call', 'web_search']);

export class CodexStreamParser {
  readonly state: CodexStreamState = {
    threadId: undefined,
    lastAgentMessage: '',
    modelCalls: 0,
    turnsCompleted: 0,
    usage: { input: 0, cachedInput: 0, cacheWrite: 0, output: 0, reasoning: 0 },
    failure: undefined,
    lastError: undefined,
    reconnects: 0,
    fileChangesApplied: 0,
    failedFileChanges: [],
  };
  /** Items whose start was already shown, so their completion is not shown twice. */
  private readonly shown = new Set<string>();

  constructor(private readonly onActivity: (text: string) => void = () => {}) {}

  push(line: string): void {
    const event = parseJsonObject(line);
    if (!event) return;
    switch (event.type) {
      case 'thread.started':
        this.state.threadId = str(event.thread_id) ?? this.state.threadId;
        break;
      case 'item.started':
        this.onItem(obj(event.item), false);
        break;
      case 'item.completed':
        this.onItem(obj(event.item), true);
        break;
      case 'turn.completed': {
        this.state.turnsCompleted += 1;
        const usage = obj(event.usage);
        this.state.usage.input += num(usage.input_tokens);
        this.state.usage.cachedInput += num(usage.cached_input_tokens);
        this.state.usage.cacheWrite += num(usage.cache_write_input_tokens);
        this.state.usage.output += num(usage.output_tokens);
        this.state.usage.reasoning += num(usage.reasoning_output_tokens);
        break;
      }
      case 'turn.failed':
        this.state.failure = str(obj(event.error).message) ?? 'the turn failed';
        break;
      case 'error': {
        const message = str(event.message) ?? '';
        this.state.lastError = message;
        if (/^Reconnecting\.\.\./.test(message)) this.state.reconnects += 1;
        if (message) this.onActivity(`codex: ${oneLine(message)}`);
        break;
      }
      default:
        // turn.started, item.updated, item.plan.delta, request_user_input, ...
        break;
    }
  }

  private onItem(item: JsonObject, completed: boolean): void {
    const type = str(item.type) ?? '';
    const id = str(item.id) ?? '';
    if (completed && TOOL_ITEMS.has(type)) this.state.modelCalls += 1;
    if (completed && type === 'file_change') this.onFileChange(item);
    if (type === 'agent_message' && completed) {
      this.state.modelCalls += 1;
      this.state.lastAgentMessage = str(item.text) ?? '';
      if (this.state.lastAgentMessage.trim() !== '') this.onActivity(oneLine(this.state.lastAgentMessage));
      return;
    }
    if (!TOOL_ITEMS.has(type) || this.shown.has(id)) return;
    const text = describeItem(type, item);
    if (!text) return;
    this.shown.add(id);
    this.onActivity(text);
  }

  private onFileChange(item: JsonObject): void {
    if (str(item.status) !== 'failed') {
      this.state.fileChangesApplied += 1;
      return;
    }
    const paths = arr(item.changes).map((change) => str(obj(change).path) ?? '?');
    this.state.failedFileChanges.push(...(paths.length > 0 ? paths : ['?']));
    this.onActivity(`edit FAILED: ${oneLine(paths.join(', ') || '(no path)', 160)}`);
  }
}

function describeItem(type: string, item: JsonObject): string | undefined {
  switch (type) {
    case 'command_execution':
      return `$ ${oneLine(str(item.command) ?? '', 160)}`;
    case 'file_change': {
      const changes = arr(item.changes).map((change) => `${str(obj(change).kind) ?? 'update'} ${str(obj(change).path) ?? '?'}`);
      return changes.length > 0 ? `edit: ${oneLine(changes.join(', '), 160)}` : undefined;
    }
    case 'mcp_tool_call':
      return `mcp ${str(item.server) ?? ''}.${str(item.tool) ?? ''}`;
    case 'web_search':
      return `web search ${oneLine(str(item.query) ?? '', 120)}`;
    case 'collab_tool_call':
      return `agent ${oneLine(str(item.tool) ?? str(item.prompt) ?? '', 120)}`;
    default:
      return undefined;
  }
}
