import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../../lib/median.mjs';

test('odd', () => assert.equal(median([3, 1, 2]), 2));
test('even: the mean of the two middle values', () => assert.equal(median([4, 1, 3, 2]), 2.5));
test('numbers of two digits', () => assert.equal(median([10, 9, 2]), 9));
test('the array is not changed', () => {
  const numbers = [3, 1, 2];
  median(numbers);
  assert.deepEqual(numbers, [3, 1, 2]);
});
