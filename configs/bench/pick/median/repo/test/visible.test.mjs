import assert from 'node:assert/strict';
import { test } from 'node:test';
import { median } from '../lib/median.mjs';

test('the middle of an odd count of one-digit numbers', () => assert.equal(median([3, 1, 2]), 2));
