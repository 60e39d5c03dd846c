import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../slugify.mjs';

test('collapses runs of separators and trims dashes', () => {
  assert.equal(slugify('  --Many   spaces -- here--  '), 'many-spaces-here');
});

test('empty and symbol-only titles give an empty slug', () => {
  assert.equal(slugify(''), '');
  assert.equal(slugify('!!!'), '');
});
