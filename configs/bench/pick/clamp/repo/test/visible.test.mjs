import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clamp } from '../lib/clamp.mjs';

test('a number inside the range', () => assert.equal(clamp(5, 0, 10), 5));
