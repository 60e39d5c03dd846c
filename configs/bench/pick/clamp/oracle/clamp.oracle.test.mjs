import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clamp } from '../../lib/clamp.mjs';

test('inside', () => assert.equal(clamp(5, 0, 10), 5));
test('below', () => assert.equal(clamp(-5, 0, 10), 0));
test('above', () => assert.equal(clamp(15, 0, 10), 10));
test('at the bounds', () => assert.deepEqual([clamp(0, 0, 10), clamp(10, 0, 10)], [0, 10]));
