import { describe, expect, it } from 'vitest';
import { LineSplitter } from '../../src/process/line-splitter.js';

function split(chunks: (string | Uint8Array)[], maxLineLength?: number): string[] {
  const lines: string[] = [];
  const splitter = new LineSplitter((l) => lines.push(l), maxLineLength);
  for (const c of chunks) splitter.push(typeof c === 'string' ? Buffer.from(c) : c);
  splitter.end();
  return lines;
}

describe('LineSplitter', () => {
  it('splits on \\n and \\r\\n, also across chunks, and flushes an unterminated last line', () => {
    expect(split(['a\nb', 'c\r', '\nd\r\n\nlast'])).toEqual(['a', 'bc', 'd', '', 'last']);
  });

  it('emits nothing extra for a trailing newline or empty input', () => {
    expect(split(['x\n'])).toEqual(['x']);
    expect(split([])).toEqual([]);
  });

  it('keeps a UTF-8 character split across chunks intact', () => {
    const bytes = Buffer.from('h€llo\n');
    expect(split([bytes.subarray(0, 2), bytes.subarray(2, 3), bytes.subarray(3)])).toEqual(['h€llo']);
  });

  it('emits overlong lines in pieces', () => {
    expect(split(['abcdefg'], 3)).toEqual(['abc', 'def', 'g']);
  });
});
