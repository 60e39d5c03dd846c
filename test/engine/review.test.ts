import { describe, expect, it } from 'vitest';
import { parseVerdict } from '../../src/engine/review.js';

describe('parseVerdict', () => {
  it.each([
    ['Looks right.\nVERDICT: LGTM', { verdict: 'lgtm' }],
    ['VERDICT: LGTM\n\n', { verdict: 'lgtm' }],
    ['**VERDICT: LGTM**', { verdict: 'lgtm' }],
    ['The tests are gamed.\nVERDICT: REFUSE: it edits the fixtures', { verdict: 'refuse', reason: 'it edits the fixtures' }],
  ])('reads the strict last line: %j', (text, expected) => {
    expect(parseVerdict(text)).toEqual(expected);
  });

  it.each([
    'VERDICT: LGTM\nActually, wait: the parser is wrong.',
    'I would not say LGTM here.',
    'LGTM',
    'VERDICT: REFUSE:',
    '',
  ])('never finds a verdict in prose: %j', (text) => {
    expect(parseVerdict(text).verdict).toBe('none');
  });
});
