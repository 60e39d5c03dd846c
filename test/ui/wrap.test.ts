/**
 * Wrapping for narrow terminals: text between words with a backquoted command kept whole,
 * parts of a line left out least important first, and the closing lines printed after the
 * Ink UI wrapped at the terminal's width.
 */
import { describe, expect, it } from 'vitest';
import { writeClosingLines } from '../../src/cli/interactive-ui.js';
import { displayWidth, wrapText } from '../../src/ui/format/text.js';
import { fitSegments, wrapSegments, type Part } from '../../src/ui/layout/fit-parts.js';

const BRANCH = 'bestof/20261203-081137-8e36/c1';
const CLOSING = `run winner in 13s (exit 0): c1 (thorough) won; the winner's work is on branch ${BRANCH} (merge it with \`git merge ${BRANCH}\`)`;

describe('wrapText', () => {
  it('breaks between words and keeps a backquoted command on one line', () => {
    expect(wrapText(CLOSING, 60)).toEqual([
      "run winner in 13s (exit 0): c1 (thorough) won; the winner's",
      `work is on branch ${BRANCH} (merge it`,
      `with \`git merge ${BRANCH}\`)`,
    ]);
    expect(wrapText(CLOSING, 80)).toEqual([
      "run winner in 13s (exit 0): c1 (thorough) won; the winner's work is on branch",
      `${BRANCH} (merge it with`,
      `\`git merge ${BRANCH}\`)`,
    ]);
    expect(wrapText('short', 80)).toEqual(['short']);
    expect(wrapText('', 80)).toEqual(['']);
  });

  it('a word wider than the line: broken after a space of the command or a "/" of a path, or kept whole for the terminal to wrap', () => {
    const lines = wrapText(`merge it with \`git merge ${BRANCH}\``, 24);
    expect(lines).toEqual(['merge it with', '`git merge bestof/', '20261203-081137-8e36/c1`']);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(24);
    expect(wrapText('in .bestof/runs/r1/candidates/c2/checks/ now', 20)).toEqual(['in', '.bestof/runs/r1/', 'candidates/c2/', 'checks/ now']);
    expect(wrapText(`merge it with \`git merge ${BRANCH}\``, 24, { long: 'keep' })).toEqual(['merge it with', `\`git merge ${BRANCH}\``]);
    // Wide characters count twice; one wider than the line still gets a line of its own.
    expect(wrapText('日本語のテキスト', 6)).toEqual(['日本語', 'のテキ', 'スト']);
    expect(wrapText('日本', 1)).toEqual(['日', '本']);
  });
});

describe('fitSegments and wrapSegments', () => {
  const keys: Part<string>[] = [
    { text: '↑↓ candidate', sep: '  ', drop: 3 },
    { text: 'j/k/space/b scroll', short: 'j/k scroll', sep: '  ', drop: 5 },
    { text: 'n/p file', sep: '  ', drop: 6 },
    { text: 'w choose winner', sep: '  ', drop: 1 },
    { text: 'q quit', sep: '  ' },
    { text: '? keys', sep: '  ' },
  ];
  const line = (width: number): string =>
    fitSegments(keys, width)
      .map((s) => s.text)
      .join('');

  it('leaves out or shortens the parts with the highest drop first, and never the others', () => {
    expect(line(100)).toBe('↑↓ candidate  j/k/space/b scroll  n/p file  w choose winner  q quit  ? keys');
    expect(line(70)).toBe('↑↓ candidate  j/k/space/b scroll  w choose winner  q quit  ? keys');
    expect(line(60)).toBe('↑↓ candidate  j/k scroll  w choose winner  q quit  ? keys');
    expect(line(40)).toBe('w choose winner  q quit  ? keys');
    // The first part shown has no separator before it.
    expect(line(14)).toBe('q quit  ? keys');
    // Narrower than the parts that stay: they all stay, for the line to cut at its end.
    expect(line(8)).toBe('q quit  ? keys');
  });

  it('wraps segments between them, the lines after the first indented', () => {
    const title = [{ text: 'c2 hasty' }, { text: ' · command/sonnet' }, { text: ' · running' }, { text: ' · iteration 2/3' }, { text: ' · 40/100' }];
    const wrapped = wrapSegments(title, 30, '  ').map((segments) => segments.map((s) => s.text).join(''));
    expect(wrapped).toEqual(['c2 hasty · command/sonnet', '  · running · iteration 2/3', '  · 40/100']);
    expect(wrapSegments([{ text: 'a' }], 30)).toEqual([[{ text: 'a' }]]);
  });
});

describe('writeClosingLines', () => {
  const written = (columns: number | undefined, text: string): string => {
    let out = '';
    writeClosingLines(text, { columns, write: (chunk: string) => (out += chunk) });
    return out;
  };

  it('wraps the closing line at the terminal width between words, the merge command whole on one line', () => {
    const out = written(60, CLOSING);
    expect(out.split('\n')).toEqual([
      "run winner in 13s (exit 0): c1 (thorough) won; the winner's",
      `work is on branch ${BRANCH} (merge it`,
      `with \`git merge ${BRANCH}\`)`,
      '',
    ]);
  });

  it('keeps a command wider than the terminal whole on its own line, and does not wrap without a width', () => {
    expect(written(30, 'merge it with `git merge bestof/20261203-081137-8e36/c1`').split('\n')).toEqual([
      'merge it with',
      '`git merge bestof/20261203-081137-8e36/c1`',
      '',
    ]);
    expect(written(undefined, CLOSING)).toBe(`${CLOSING}\n`);
  });
});
