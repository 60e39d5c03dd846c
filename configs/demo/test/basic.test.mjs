import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../slugify.mjs';

test('lower-cases words and joins them with dashes', () => {
  assert.equal(slugify('Hello World'), 'hello-world');
});

test('drops punctuation', () => {
  assert.equal(slugify('Ship it, now!'), 'ship-it-now');
});
