#!/usr/bin/env node
// The scripted tester of the median task: the tests a model would write after reading the three
// diffs (an even count, numbers of two digits, two cases all get right, one broken file).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.BESTOF_TESTS_DIR;
const head = "import assert from 'node:assert/strict';\nimport { test } from 'node:test';\nimport { median } from '../lib/median.mjs';\n\n";
const file = (name, body) => writeFileSync(join(dir, name), `${head}${body}\n`);
file('even.test.mjs', "test('even', () => assert.equal(median([4, 1, 3, 2]), 2.5));");
file('two-digits.test.mjs', "test('two digits', () => assert.equal(median([10, 9, 2]), 9));");
file('odd.test.mjs', "test('odd', () => assert.equal(median([3, 1, 2]), 2));");
file('single.test.mjs', "test('one', () => assert.equal(median([5]), 5));");
writeFileSync(join(dir, 'broken.test.mjs'), "import { mean } from '../lib/mean.mjs';\n");
