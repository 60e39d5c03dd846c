// The visible check: odd counts of one-digit numbers only. Every scripted writer passes it,
// the two wrong ones too (the even count and numbers of two digits are where they differ).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../../../lib/median.mjs';

test('the middle of an odd count', () => {
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([5, 1, 9]), 5);
});

test('one number', () => {
  assert.equal(median([7]), 7);
});
