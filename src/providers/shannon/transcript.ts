/**
 * A tolerant reader of a Claude Code session transcript (`transcript_path`, JSON lines; types
 * in docs/design/agent-clis.md section 10). It reads what was appended since the last read,
 * keeps a half-written last line for the next read, and skips what it does not know.
 *
 * What a turn needs from it: the tokens of this turn's assistant lines (the blocks of one API
 * response are separate lines that share `message.id` and repeat its usage: counted once), the
 * session's cumulative cost (`cost-state` `totalCostUSD`: a turn's cost is the difference),
 * the number of API responses, activity lines (text and tool calls) and the end of a turn
 * (`system` / `turn_duration`). The file is not always flushed when the Stop hook runs: the
 * caller polls.
 */
import { type FileHandle, open } from 'node:fs/promises';
import { arr, num, obj, oneLine, parseJsonObject, str, summarizeToolInput, type JsonObject } from '../stream-lines.js';
import type { TokenUsage } from '../types.js';

/** What one read (or several) found. */
export interface TranscriptChunk {
  /** The complete lines, raw, in order. */
  readonly lines: string[];
  /** Usage per API response (message id), the last seen. */
  readonly usageById: Map<string, TokenUsage>;
  /** The model of each API response (message id). */
  readonly modelById: Map<string, string>;
  /** Usage of the responses after the last `cost-state` line: what no cost total covers yet. */
  readonly uncoveredById: Map<string, TokenUsage>;
  /** The last `cost-state` totalCostUSD seen, if any. */
  costUsd: number | undefined;
  /** A `system` / `turn_duration` line was seen. */
  turnEnded: boolean;
  /** Texts of assistant text blocks, in order. */
  readonly texts: string[];
}

export function emptyChunk(): TranscriptChunk {
  return { lines: [], usageById: new Map(), modelById: new Map(), uncoveredById: new Map(), costUsd: undefined, turnEnded: false, texts: [] };
}

export class TranscriptReader {
  private offset = 0;
  private partial = '';

  constructor(
    private readonly path: string,
    private readonly onActivity: (text: string) => void = () => undefined,
  ) {}

  /** Reads what was appended and adds it to `into`; a missing file is no error (not written yet). */
  async readInto(into: TranscriptChunk): Promise<void> {
    const text = await this.readNew();
    if (text === '') return;
    const all = this.partial + text;
    const lines = all.split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      into.lines.push(line);
      const entry = parseJsonObject(line);
      if (entry) this.take(entry, into);
    }
  }

  /** Skips everything written so far (a new session's reader starts at its end). */
  async skipToEnd(): Promise<void> {
    await this.readNew();
    this.partial = '';
  }

  private async readNew(): Promise<string> {
    let handle: FileHandle;
    try {
      handle = await open(this.path, 'r');
    } catch {
      return '';
    }
    try {
      const chunks: Buffer[] = [];
      for (;;) {
        const buffer = Buffer.alloc(64 * 1024);
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, this.offset);
        if (bytesRead === 0) break;
        this.offset += bytesRead;
        chunks.push(buffer.subarray(0, bytesRead));
      }
      return Buffer.concat(chunks).toString('utf8');
    } catch {
      return '';
    } finally {
      await handle.close().catch(() => undefined);
    }
  }

  private take(entry: JsonObject, into: TranscriptChunk): void {
    switch (entry.type) {
      case 'assistant': {
        // A subagent's lines are in their own files; a sidechain line here is not the main turn's.
        if (entry.isSidechain === true) return;
        const message = obj(entry.message);
        const id = str(message.id) ?? str(entry.uuid) ?? `line-${into.lines.length}`;
        const model = str(message.model);
        if (model) into.modelById.set(id, model);
        const usage = obj(message.usage);
        if (Object.keys(usage).length > 0) {
          const tokens = {
            input: num(usage.input_tokens),
            output: num(usage.output_tokens),
            cacheRead: num(usage.cache_read_input_tokens),
            cacheWrite: num(usage.cache_creation_input_tokens),
          };
          into.usageById.set(id, tokens);
          into.uncoveredById.set(id, tokens);
        }
        for (const block of arr(message.content)) {
          const content = obj(block);
          if (content.type === 'text') {
            const text = str(content.text) ?? '';
            if (text.trim() === '') continue;
            into.texts.push(text);
            this.onActivity(oneLine(text));
          } else if (content.type === 'tool_use') {
            const summary = summarizeToolInput(content.input);
            this.onActivity(`${str(content.name) ?? 'tool'}${summary ? ` ${summary}` : ''}`);
          }
        }
        return;
      }
      case 'cost-state': {
        const total = entry.totalCostUSD ?? obj(entry.costState).totalCostUSD;
        if (typeof total === 'number' && Number.isFinite(total)) {
          into.costUsd = total;
          into.uncoveredById.clear();
        }
        return;
      }
      case 'system':
        if (entry.subtype === 'turn_duration') into.turnEnded = true;
        return;
      default:
        return;
    }
  }
}

/** The usage of these responses per model (responses without a model under "unknown"). */
export function usageByModel(chunk: TranscriptChunk, usageById: ReadonlyMap<string, TokenUsage> = chunk.usageById): { model: string; usage: TokenUsage }[] {
  const byModel = new Map<string, TokenUsage>();
  for (const [id, usage] of usageById) {
    const model = chunk.modelById.get(id) ?? 'unknown';
    const sum = byModel.get(model) ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
    byModel.set(model, {
      input: sum.input + usage.input,
      output: sum.output + usage.output,
      cacheRead: sum.cacheRead + usage.cacheRead,
      cacheWrite: sum.cacheWrite + usage.cacheWrite,
    });
  }
  return [...byModel].map(([model, usage]) => ({ model, usage }));
}

/** The sum of the usage of every API response in the chunk. */
export function chunkUsage(chunk: TranscriptChunk): TokenUsage {
  const sum = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const usage of chunk.usageById.values()) {
    sum.input += usage.input;
    sum.output += usage.output;
    sum.cacheRead += usage.cacheRead;
    sum.cacheWrite += usage.cacheWrite;
  }
  return sum;
}
