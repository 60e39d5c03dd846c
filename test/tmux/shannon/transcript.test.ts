/**
 * The transcript reader against a file written the way Claude Code writes it: in pieces, with a
 * half-written last line, unknown line types, and the blocks of one API response on separate
 * lines that repeat its usage.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempRepos } from '../../helpers/temp-repo.js';
import { chunkUsage, emptyChunk, TranscriptReader } from '../../../src/providers/shannon/transcript.js';

const { tempDir } = tempRepos();

const usage = { input_tokens: 10, output_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 7 };
const line = (value: unknown) => `${JSON.stringify(value)}\n`;

describe('TranscriptReader', () => {
  it('reads appended lines, keeps a partial last line for later, skips unknown types, counts a response once', async () => {
    const path = join(tempDir(), 'session.jsonl');
    const activity: string[] = [];
    const reader = new TranscriptReader(path, (text) => activity.push(text));
    const chunk = emptyChunk();
    await reader.readInto(chunk); // not written yet: nothing, no error
    expect(chunk.lines).toEqual([]);

    writeFileSync(path, line({ type: 'mode', mode: 'x' }) + line({ type: 'user', message: { content: 'hi' } }));
    const first = line({ type: 'assistant', message: { id: 'm1', usage, content: [{ type: 'tool_use', name: 'Write', input: { file_path: 'a.txt' } }] } });
    const second = line({ type: 'assistant', message: { id: 'm1', usage, content: [{ type: 'text', text: 'done writing' }] } });
    appendFileSync(path, first + second.slice(0, 20));
    await reader.readInto(chunk);
    expect(chunk.lines).toHaveLength(3);
    expect(chunk.texts).toEqual([]);

    appendFileSync(
      path,
      second.slice(20) +
        line({ type: 'brand-new-type', x: 1 }) +
        line({ type: 'cost-state', totalCostUSD: 0.25 }) +
        line({ type: 'system', subtype: 'turn_duration', durationMs: 5 }),
    );
    await reader.readInto(chunk);
    expect(chunk.texts).toEqual(['done writing']);
    expect(chunkUsage(chunk)).toEqual({ input: 10, output: 5, cacheRead: 100, cacheWrite: 7 });
    expect(chunk.usageById.size).toBe(1);
    expect(chunk.costUsd).toBe(0.25);
    expect(chunk.turnEnded).toBe(true);
    expect(activity).toEqual([expect.stringMatching(/^Write/), 'done writing']);
  });

  it('a second chunk holds only what came after the first read', async () => {
    const path = join(tempDir(), 'session.jsonl');
    const reader = new TranscriptReader(path);
    writeFileSync(path, line({ type: 'assistant', message: { id: 'm1', usage, content: [{ type: 'text', text: 'one' }] } }));
    const one = emptyChunk();
    await reader.readInto(one);
    appendFileSync(path, line({ type: 'assistant', message: { id: 'm2', usage, content: [{ type: 'text', text: 'two' }] } }));
    const two = emptyChunk();
    await reader.readInto(two);
    expect(two.texts).toEqual(['two']);
    expect(chunkUsage(two).input).toBe(10);
  });
});
