import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../slugify.mjs';

test('removes accents', () => {
  assert.equal(slugify('Crème Brûlée à la carte'), 'creme-brulee-a-la-carte');
});
